"""tools/port_reference_tests.py on a small sample: the mechanical rename, the tree it
writes out of a real git repository, and the summary it reads back from a real pytest run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from tests.support.paths import REPO as _REPO
from tests.support.paths import load_script

REPO = _REPO


def _tool() -> ModuleType:
    return load_script(REPO / "tools" / "port_reference_tests.py", "port_reference_tests")


tool = _tool()


def test_only_giskard_checks_is_renamed() -> None:
    source = (
        "from giskard.checks import Equals\n"
        "import giskard.checks.settings as settings_module\n"
        'monkeypatch.setattr("giskard.checks.judges.base.X", 1)\n'
        "from giskard.agents import Generator\n"
        "from giskard import agents\n"
        "import giskard.checkstyle\n"
        "mygiskard.checks = 1\n"
    )
    assert tool.rename(source) == (
        "from checkspec.engine import Equals\n"
        "import checkspec.engine.settings as settings_module\n"
        'monkeypatch.setattr("checkspec.engine.judges.base.X", 1)\n'
        "from giskard.agents import Generator\n"
        "from giskard import agents\n"
        "import giskard.checkstyle\n"
        "mygiskard.checks = 1\n"
    )


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def test_a_sample_is_ported_run_and_summarised(tmp_path: Path) -> None:
    upstream = tmp_path / "upstream"
    tests = upstream / "libs" / "giskard-checks" / "tests"
    tests.mkdir(parents=True)
    (tests / "__init__.py").write_text("")
    (tests / "test_sample.py").write_text(
        "import importlib.util\n\n"
        "def test_renamed():\n"
        "    assert 'giskard.checks'.startswith('checkspec')\n\n"
        "def test_untouched():\n"
        "    assert 'giskard.agents' == 'giskard.agents'\n"
    )
    (tests / "data.json").write_text('{"module": "giskard.checks"}')
    _git(upstream, "init", "-q")
    _git(upstream, "add", "-A")
    _git(upstream, "commit", "-q", "-m", "sample")
    commit = _git(upstream, "rev-parse", "HEAD")

    files = tool.extract(upstream / ".git", commit, "libs/giskard-checks/tests")
    assert sorted(files) == ["__init__.py", "data.json", "test_sample.py"]

    ported = tmp_path / "ported"
    tool.write_tree(files, ported, ported=True)
    assert "'checkspec.engine'" in (ported / "tests" / "test_sample.py").read_text()
    # Only Python sources are renamed; data files are copied as they are.
    assert "giskard.checks" in (ported / "tests" / "data.json").read_text()
    original = tmp_path / "original"
    tool.write_tree(files, original, ported=False)
    assert "'giskard.checks'" in (original / "tests" / "test_sample.py").read_text()

    ported_summary = tool.run_tree(sys.executable, ported, tmp_path / "ported.json", [])
    original_summary = tool.run_tree(sys.executable, original, tmp_path / "original.json", [])
    assert ported_summary == {
        "tests.test_sample::test_renamed": "passed",
        "tests.test_sample::test_untouched": "passed",
    }
    assert original_summary["tests.test_sample::test_renamed"] == "failed"
    assert json.loads((tmp_path / "ported.json").read_text()) == ported_summary

    # The denominator is what passes on the original.
    assert tool.compare(original_summary, ported_summary) == (1, 1, [])
    assert tool.compare(ported_summary, original_summary) == (
        1,
        2,
        ["tests.test_sample::test_renamed"],
    )


def test_the_manifest_names_one_upstream_revision() -> None:
    manifest = tool.load_manifest()
    assert manifest["folder"] == "libs/giskard-checks/tests"
    assert len(manifest["commit"]) == 40
    assert {"repo", "version", "git_dir"} <= set(manifest)
