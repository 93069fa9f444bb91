"""A JSON Lines dataset read for curation keeps each row as its line (files.RowItem): its
values are read without its located tree, the tree only when an edit asks (issue 41, a
100,000-row dataset lists and filters without 100,000 trees). Every answer is the one the
tree gives: the same file read with every row's tree (the reading before, forced here by
refusing the value-only reading) is the reference."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkspec.engine.curate import files
from checkspec.engine.curate.files import CurateError, RowItem, SpecFile, read_spec
from checkspec.engine.curate.select import matches, query_words
from tests.support.hub_rows import varied_row

ROWS = 2_000


def _dataset(tmp_path: Path) -> Path:
    path = tmp_path / "big.dataset.jsonl"
    path.write_text("".join(varied_row(n) + "\n" for n in range(ROWS)), encoding="utf-8")
    return path


def _with_trees(path: Path, monkeypatch: pytest.MonkeyPatch) -> SpecFile:
    with monkeypatch.context() as patch:
        patch.setattr(files, "_value_of", lambda line: (False, None))
        return read_spec(path)


def test_rows_read_as_values_answer_as_their_trees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _dataset(tmp_path)
    lazy, tree = read_spec(path), _with_trees(path, monkeypatch)
    kinds = {type(item) for item in lazy.items}
    assert RowItem in kinds and len(kinds) == 2  # U+2028 rows are read in full
    assert not any(isinstance(item, RowItem) for item in tree.items)
    assert len(lazy.items) == len(tree.items) == ROWS
    for a, b in zip(lazy.items, tree.items, strict=True):
        assert (a.index, a.name, a.named, a.line, a.tags, a.status, a.value) == (
            b.index,
            b.name,
            b.named,
            b.line,
            b.tags,
            b.status,
            b.value,
        )
        assert lazy.identity(a, Path.cwd()) == tree.identity(b, Path.cwd())
    for query in ("row 42", "café", "CAFÉ 17", "là", "x1", "stay polite", "plus one 1999"):
        words = query_words(query)
        found = [i.index for i in lazy.items if matches(i, words)]
        assert found == [i.index for i in tree.items if matches(i, words)], query
    assert [i.index for i in lazy.items if matches(i, query_words("café"))]


def test_a_rows_tree_when_asked_for_is_the_one_read_in_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _dataset(tmp_path)
    lazy, tree = read_spec(path), _with_trees(path, monkeypatch)
    for a, b in zip(lazy.items[::37], tree.items[::37], strict=True):
        assert a.node.range == b.node.range and a.node.value == b.node.value
        tags, wanted = a.node.get("tags"), b.node.get("tags")
        assert tags is not None and wanted is not None and tags.range == wanted.range


def test_a_bad_row_is_refused_at_its_line(tmp_path: Path) -> None:
    path = _dataset(tmp_path)
    lines = path.read_text(encoding="utf-8").split("\n")  # (U+2028 ends no line)
    lines[1234] = '{"name": "cut short", "interactions": ['
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(CurateError) as raised:
        read_spec(path)
    assert str(raised.value).startswith(f"{path}:1235:")
