"""Command-line words and files that raised tracebacks (issue 36): a tag over 255 bytes
(ENAMETOOLONG when taken for a path), a `--like` dataset nested 100k deep (RecursionError)
are handled: the tag is a tag, the dataset an `error:` line with exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkspec.engine.cli.main import main

SUITE = """\
name: s
scenarios:
  - name: one
    target: python:agent:answer
    steps:
      - interacts: [{inputs: hi}]
        checks: [{kind: string_matching, keyword: ok}]
"""


def test_a_tag_over_255_bytes_is_a_tag_not_a_file_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.suite.yaml").write_text(SUITE)
    tag = "t" * 300
    assert main(["tag", "add", tag, "s.suite.yaml"]) == 0
    assert tag in (tmp_path / "s.suite.yaml").read_text()
    assert main(["tag", "remove", tag, "s.suite.yaml"]) == 0


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("deep.dataset.jsonl", "[" * 100_000 + "]" * 100_000 + "\n"),
        ("deep.dataset.yaml", "scenarios: " + "[" * 100_000 + "]" * 100_000 + "\n"),
    ],
)
def test_generate_like_a_dataset_nested_100k_deep_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    assert (
        main(["generate", "--like", str(path), "-n", "1", "-o", str(tmp_path / "o.dataset.yaml")])
        == 2
    )
    assert capsys.readouterr().err.startswith(f"error: {path}")
