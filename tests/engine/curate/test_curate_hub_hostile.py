"""`checkspec hub import` and `export` on hostile or odd input (issue 36): `error:` and
exit 2, never a traceback; what it writes, `validate` accepts; a dataset over one file's
limits is refused (nothing written, split the source); `export -o` keeps an existing file
unless --force."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from checkspec.engine.cli.main import main
from checkspec.engine.spec import source

ROW = {
    "name": "a",
    "interactions": [
        {
            "input": "hello",
            "output": "hi there",
            "checks": [{"check_id": "hub_correctness", "spec": {"reference": "x"}}],
        }
    ],
}


def _import(tmp_path: Path, rows: object, to: str = "d.dataset.yaml", raw: str | None = None):  # type: ignore[no-untyped-def]
    source = tmp_path / "in.json"
    source.write_text(raw if raw is not None else json.dumps(rows))
    return main(["hub", "import", str(source), "--to", str(tmp_path / to)])


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"interactions": ["a string turn"]}, "interactions[0] should be an object, not str"),
        ({"tags": 5}, "tags should be a list of strings, not int"),
        ({"comments": ["a string comment"]}, "comments[0] should be an object, not str"),
        (
            {"interactions": [{"input": "x", "checks": ["hub_correctness"]}]},
            "interactions[0].checks[0] should be an object, not str",
        ),
        ({"interactions": [{"input": "x", "position": "1"}]}, "position should be a number"),
        ({"comments": [{"comment": "c", "user": "zoe"}]}, "comments[0].user should be an object"),
    ],
)
def test_a_row_of_the_wrong_shape_is_an_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict, said: str
) -> None:
    assert _import(tmp_path, [{**ROW, **change}]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {tmp_path / 'in.json'}:1: scenario 1: ") and said in err
    assert not (tmp_path / "d.dataset.yaml").exists()


def test_deep_nesting_is_an_error_not_a_recursion_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    assert _import(tmp_path, None, raw=deep) == 2
    assert "nested too deeply" in capsys.readouterr().err
    nested: object = "x"
    for _ in range(min(sys.getrecursionlimit() - 100, 900)):
        nested = {"k": nested}  # JSON reads it; writing it as YAML recurses further
    assert _import(tmp_path, [{**ROW, "interactions": [{"input": nested}]}]) == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_plain_string_inputs_are_imported_in_a_form_validate_accepts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for to in ("d.dataset.yaml", "d.dataset.jsonl"):
        assert _import(tmp_path, [ROW], to=to) == 0
        assert main(["validate", str(tmp_path / to)]) == 0, capsys.readouterr()


def test_a_big_import_to_jsonl_is_one_file_under_per_row_limits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # 50 rows hold far more than 200 nodes: a JSON Lines dataset's limits are per row.
    monkeypatch.setattr(source, "MAX_NODES", 200)
    assert _import(tmp_path, [ROW] * 50, to="d.dataset.jsonl") == 0, capsys.readouterr()
    assert len((tmp_path / "d.dataset.jsonl").read_text().splitlines()) == 50
    assert main(["validate", str(tmp_path / "d.dataset.jsonl")]) == 0


def test_a_big_import_to_yaml_is_split_into_files_under_the_limits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "checkspec.yaml").write_text("max_file_size: 3000\n")
    assert _import(tmp_path, [ROW] * 50, to="d.dataset.yaml") == 0
    err = capsys.readouterr().err
    assert not (tmp_path / "d.dataset.yaml").exists()
    parts = sorted(tmp_path.glob("d-*.dataset.yaml"))
    assert len(parts) > 1 and f"into {len(parts)} files" in err and "*.dataset.jsonl" in err
    assert all(p.stat().st_size <= 3000 for p in parts)
    assert main(["validate", *map(str, parts)]) == 0
    exported = tmp_path / "back.jsonl"
    assert main(["hub", "export", *map(str, parts), "-o", str(exported)]) == 0
    assert len(exported.read_text().splitlines()) == 50


def test_export_o_keeps_an_existing_file_unless_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert _import(tmp_path, [ROW]) == 0
    out = tmp_path / "out.jsonl"
    out.write_text("precious\n")
    assert main(["hub", "export", str(tmp_path / "d.dataset.yaml"), "-o", str(out)]) == 2
    assert "exists; --force overwrites it" in capsys.readouterr().err
    assert out.read_text() == "precious\n"
    assert main(["hub", "export", str(tmp_path / "d.dataset.yaml"), "-o", str(out), "--force"]) == 0
    assert json.loads(out.read_text().splitlines()[0])["name"] == "a"
