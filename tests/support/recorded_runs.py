"""A workspace with two recorded runs: the report, compare and viewer tests read it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.cli import run_main
from tests.support.paths import EXAMPLES

# The scenario the second run newly fails, and what its check then looks for.
NEWLY_FAILING = "refund policy is stated"
NEW_KEYWORD = "within 90 days"


def examples_run_twice(parent: Path) -> Path:
    """A copy of examples/ under `parent`, run twice (no model: the judged scenario is
    skipped), the second time with one more failure: NEWLY_FAILING's keyword becomes
    NEW_KEYWORD. Tests read it and leave it as it is."""
    folder = parent / "examples"
    shutil.copytree(EXAMPLES, folder, ignore=shutil.ignore_patterns(".checkspec"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CHECKSPEC_MODEL", "")
        for round_ in range(2):
            if round_:
                spec = folder / "refund.scenario.yaml"
                text = spec.read_text(encoding="utf-8")
                spec.write_text(text.replace("keyword: refund\n", f"keyword: {NEW_KEYWORD}\n"))
            done = run_main(folder, "run", ".")
            assert done.returncode == 1, done.stderr
    return folder
