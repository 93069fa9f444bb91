"""`npm run bundle-server` in a fresh clone (issue 39 item 2): with no repository .venv,
vscode-extension/scripts/bundle-server.mjs runs tools/bundle_server.py with a Python 3.11+
from PATH, and says what to do when there is none."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO

LAUNCHER = REPO / "vscode-extension" / "scripts" / "bundle-server.mjs"
NODE = shutil.which("node")


def _clone(tmp_path: Path) -> Path:
    """A tree shaped like a fresh clone: no .venv, a tools/bundle_server.py that reports
    the Python it runs with and its arguments."""
    clone = tmp_path / "clone"
    (clone / "vscode-extension" / "scripts").mkdir(parents=True)
    shutil.copy(LAUNCHER, clone / "vscode-extension" / "scripts")
    (clone / "tools").mkdir()
    (clone / "tools" / "bundle_server.py").write_text(
        "import sys; print('bundling with', sys.version_info[:2] >= (3, 11), sys.argv[1:])\n"
    )
    return clone


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_a_fresh_clone_bundles_with_a_python_from_path(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)  # this suite's Python: 3.11+
    done = subprocess.run(
        [str(NODE), "scripts/bundle-server.mjs", "--out", "x"],
        cwd=clone / "vscode-extension",
        env={"PATH": f"{bin_dir}:{Path(str(NODE)).parent}"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "bundling with True ['--out', 'x']" in done.stdout


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_no_python_gets_a_clear_message(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    node_only = tmp_path / "node-only"
    node_only.mkdir()
    (node_only / "node").symlink_to(str(NODE))
    done = subprocess.run(
        [str(node_only / "node"), "scripts/bundle-server.mjs"],
        cwd=clone / "vscode-extension",
        env={"PATH": str(node_only)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "no Python 3.11 or newer found" in done.stderr and "make install" in done.stderr
