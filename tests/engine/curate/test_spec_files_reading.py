"""Reading spec files for curation (engine/curate/files.py): what cannot be read is refused
with its place and reason; a file's line end, kind by `$schema`, and items without a
name; and the query scan, which parses only the items that may match, and reads the
whole file as usual whenever the file is unusual (its answer is then the full file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkspec.engine.curate.files import CurateError, read_spec, scan_spec


def write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        ("latin.suite.yaml", b"name: caf\xe9\n", "not UTF-8 text: invalid continuation byte"),
        ("checkspec.yaml", "jobs: 1\n", "not a scenario, suite or dataset file"),
        ("notes.yaml", "scenarios:\n  - name: a\n", "not a scenario, suite or dataset file"),
        ("list.suite.yaml", "- a\n- b\n", "expected a mapping at the top of the file"),
    ],
)
def test_what_cannot_be_curated_is_refused(tmp_path: Path, name: str, text: str, said: str) -> None:
    path = write(tmp_path, name, text)
    with pytest.raises(CurateError) as refused:
        read_spec(path)
    assert str(refused.value) == f"{path}: {said}"
    with pytest.raises(CurateError, match=said):  # a query reads it the same way
        scan_spec(path, ["a"])


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CurateError, match=r"missing\.suite\.yaml: no such file"):
        read_spec(tmp_path / "missing.suite.yaml")


def test_line_ends_kind_by_schema_and_unnamed_items(tmp_path: Path) -> None:
    old_mac = read_spec(write(tmp_path, "cr.suite.yaml", "name: s\rscenarios:\r  - name: a\r"))
    assert old_mac.eol == "\r" and [i.name for i in old_mac.items] == ["a"]
    by_schema = read_spec(
        write(
            tmp_path, "faq.yaml", "$schema: https://x/suite.schema.json\nname: s\nscenarios: []\n"
        )
    )
    assert by_schema.kind.name == "SUITE"
    odd = read_spec(write(tmp_path, "odd.suite.yaml", "name: s\nscenarios: [5, {name: b}]\n"))
    assert [(i.name, i.named) for i in odd.items] == [("scenario 1", False), ("b", True)]
    empty = read_spec(write(tmp_path, "empty.suite.yaml", ""))
    assert empty.items == [] and empty.root is None


def names(spec: object) -> list[str]:
    return [item.name for item in spec.items]  # type: ignore[attr-defined]


SUITE = """\
name: s
tags: [shop]
scenarios:
  - name: refund by card
    steps: []
  - name: "caf\\u00e9 order"
    steps: []
  - name: plain \\U00110000 text
    steps: []
  - name: delivery
    steps: []
"""


def test_the_scan_parses_only_the_items_that_may_match(tmp_path: Path) -> None:
    path = write(tmp_path, "s.suite.yaml", SUITE)
    refund = scan_spec(path, ["refund"])
    assert refund.partial and names(refund) == ["refund by card"]
    assert refund.tags == ["shop"] and refund.items[0].index == 0
    # Escapes are read: \u00e9 is é (and an escape beyond Unicode reads as nothing).
    cafe = scan_spec(path, ["café"])
    assert cafe.partial and [i.index for i in cafe.items] == [1]
    assert names(scan_spec(path, [], tags=["shop"])) == names(read_spec(path))  # every one
    assert read_spec(path).items[2].name == "plain \\U00110000 text"  # a plain backslash


def test_a_file_without_a_head_is_scanned_too(tmp_path: Path) -> None:
    path = write(tmp_path, "h.suite.yaml", "scenarios:\n  - name: a\n  - name: b\n")
    found = scan_spec(path, ["b"])
    assert found.partial and names(found) == ["b"] and found.tags == []


@pytest.mark.parametrize(
    "text",
    [
        # an anchor between the key and the first item
        "name: s\nscenarios: &all\n  - name: a\n  - name: b\n",
        "name: s\nscenarios:\n  !!seq\n  - name: a\n  - name: b\n",
        # an item that does not read alone (an alias of another's anchor)
        "name: s\nscenarios:\n  - name: a\n    steps: &s []\n  - name: b\n    steps: *s\n",
    ],
)
def test_an_unusual_file_is_read_whole(tmp_path: Path, text: str) -> None:
    path = write(tmp_path, "u.suite.yaml", text)
    found = scan_spec(path, ["b"])
    assert not found.partial and names(found) == ["a", "b"]


def test_when_most_items_may_match_the_file_is_read_whole(tmp_path: Path) -> None:
    items = "".join(f"  - name: item {n}\n" for n in range(120))
    path = write(tmp_path, "big.suite.yaml", "name: big\nscenarios:\n" + items)
    found = scan_spec(path, ["item"])
    assert not found.partial and len(found.items) == 120
    few = scan_spec(path, ["item 7"])
    assert few.partial and names(few) == ["item 7", *(f"item {n}" for n in range(70, 80))]


def test_a_head_that_does_not_parse_is_refused_where_it_is(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.suite.yaml", "name: [unclosed\nscenarios:\n  - name: a\n")
    with pytest.raises(CurateError, match=r"bad\.suite\.yaml:\d+:\d+: .*the file is left as it is"):
        scan_spec(path, ["a"])
