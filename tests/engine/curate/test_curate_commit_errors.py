"""A multi-file edit that fails on its second file names that file, not the first one it
put back (issue 36), and leaves both files as they were."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from checkspec.engine.curate import commit as commit_module
from checkspec.engine.curate.commit import Change, commit
from checkspec.engine.curate.files import CurateError


def test_the_error_names_the_file_that_failed_and_both_stay_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "a.suite.yaml", tmp_path / "b.suite.yaml"
    first.write_bytes(b"a: 1\n")
    second.write_bytes(b"b: 1\n")
    real_replace = os.replace

    def fail_on_second(src: str, dst: os.PathLike[str]) -> None:
        if Path(dst).name == second.name:
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(commit_module.os, "replace", fail_on_second)
    changes = [Change(first, b"a: 1\n", b"a: 2\n"), Change(second, b"b: 1\n", b"b: 2\n")]
    with pytest.raises(CurateError) as raised:
        commit(changes, tmp_path)
    assert str(raised.value).startswith(f"{second}: cannot write: No space left on device")
    assert first.read_bytes() == b"a: 1\n" and second.read_bytes() == b"b: 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.suite.yaml", "b.suite.yaml"]
