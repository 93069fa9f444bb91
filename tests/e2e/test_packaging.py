"""The built wheel holds the namespaced packages, the schemas and the prompt templates."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from tests.support.paths import REPO as _REPO

REPO = _REPO


def test_wheel_contents(tmp_path: Path) -> None:
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(REPO),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    # No deprecation from setuptools (an SPDX license string, data folders declared as
    # packages): a newcomer's install prints none.
    output = built.stdout + built.stderr
    assert "Warning" not in output and "deprecated" not in output, output
    (wheel,) = tmp_path.glob("checkspec-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names}
    assert top <= {"checkspec", f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.dist-info"}
    assert "checkspec/engine/__init__.py" in names
    assert "checkspec/engine/spec/document.py" in names
    assert "checkspec/server/__init__.py" in names
    for kind in ("scenario", "suite", "dataset", "config"):
        assert f"checkspec/schemas/{kind}.schema.json" in names
    assert any(
        n.startswith("checkspec/engine/judges/prompts/") and n.endswith(".j2") for n in names
    )
    # The simulated user's prompts, and the PEP 561 marker of a typed package.
    assert "checkspec/engine/generators/prompts/user_simulator.j2" in names
    assert "checkspec/engine/py.typed" in names
    # The HTML report's template, styles and scripts, read at render time (engine/html).
    for asset in ("page.html", "style.css", "report.js", "viewer.js"):
        assert f"checkspec/engine/html/assets/{asset}" in names
    assert "checkspec/engine/builtin/__init__.py" in names
    entry_points = (
        zipfile.ZipFile(wheel)
        .read(next(n for n in names if n.endswith("entry_points.txt")))
        .decode()
    )
    assert "checkspec = checkspec.engine.cli.main:main" in entry_points
    assert "checkspec = checkspec.engine.pytest_plugin" in entry_points
    assert "lsp = checkspec.server.main:main" in entry_points
    assert "checkspec/schemas/catalog.json" in names
    # What the server answers `initialize` with before pygls loads (early_initialize.py).
    assert "checkspec/server/initialize_answers.json" in names
