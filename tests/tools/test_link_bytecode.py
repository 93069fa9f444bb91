"""tools/link_bytecode.py: the bytecode compiled at install is linked where Python looks
for it under PYTHONPYCACHEPREFIX, and a process importing under that prefix uses it
instead of compiling the module again."""

from __future__ import annotations

import importlib.util
import os
import py_compile
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.paths import REPO, load_script


def _tool() -> ModuleType:
    return load_script(REPO / "tools" / "link_bytecode.py", "link_bytecode")


tool = _tool()
TAG = sys.implementation.cache_tag


def installed(site: Path) -> Path:
    """A package as pip leaves it: its module compiled beside it, in __pycache__."""
    package = site / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text("VALUE = 42\n")
    for name in ("__init__", "mod"):
        py_compile.compile(str(package / f"{name}.py"), cfile=str(package / "__pycache__" / f"{name}.{TAG}.pyc"))  # fmt: skip
    # What is left alone: another interpreter's, an optimised one, one without source.
    cache = package / "__pycache__"
    (cache / "mod.cpython-27.pyc").write_bytes(b"")
    (cache / f"mod.{TAG}.opt-1.pyc").write_bytes(b"")
    (cache / f"gone.{TAG}.pyc").write_bytes(b"")
    return package


def test_each_compiled_module_is_linked_under_the_prefix_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = installed(tmp_path / "site")
    prefix = tmp_path / "prefix"
    monkeypatch.setattr(sys, "pycache_prefix", str(prefix))
    assert tool.linked(tmp_path / "site") == 2
    target = Path(importlib.util.cache_from_source(str(package / "mod.py")))
    assert target.is_relative_to(prefix)
    assert target.read_bytes() == (package / "__pycache__" / f"mod.{TAG}.pyc").read_bytes()
    assert sorted(p.name for p in target.parent.iterdir()) == [f"__init__.{TAG}.pyc", f"mod.{TAG}.pyc"]  # fmt: skip
    assert tool.linked(tmp_path / "site") == 0  # those already there are left
    assert tool.linked(tmp_path / "site", skip=frozenset({"pkg"})) == 0


@pytest.mark.subprocess
def test_a_process_under_the_prefix_imports_the_linked_bytecode(tmp_path: Path) -> None:
    package = installed(tmp_path / "site")
    prefix = tmp_path / "prefix"
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(prefix), "PYTHONDONTWRITEBYTECODE": ""}
    script = (
        "import importlib.util, sys; sys.path.insert(0, sys.argv[1]);"
        "import link_bytecode; link_bytecode.linked(__import__('pathlib').Path(sys.argv[2]))"
    )
    subprocess.run(
        [sys.executable, "-c", script, str(REPO / "tools"), str(tmp_path / "site")],
        env=env,
        check=True,
    )
    target = prefix / str(package / f"mod.{TAG}.pyc").lstrip(os.sep)
    inode = target.stat().st_ino
    done = subprocess.run(
        [sys.executable, "-c", "import pkg.mod; print(pkg.mod.__cached__, pkg.mod.VALUE)"],
        env={**env, "PYTHONPATH": str(tmp_path / "site")},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == [str(target), "42"]
    assert target.stat().st_ino == inode  # read as it was linked, not compiled again
