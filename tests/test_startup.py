"""What a command imports: `--version` and `--help` nothing of the engine, `validate` no
LLM client, JSON Schema or Rego library; the built-in checks load on the registry's
first read. Each case runs in a fresh interpreter (this one has imported everything)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

HEAVY = ("pydantic", "checkspec.engine.checks", "checkspec.engine.judges", "jinja2")


def modules_after(code: str) -> set[str]:
    """The modules loaded once `code` has run (it may exit), in a fresh interpreter."""
    script = textwrap.dedent(
        """
        import atexit, json, sys
        atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))
        """
    ) + textwrap.dedent(code)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def test_version_and_help_load_nothing_of_the_engine() -> None:
    for args in (["--version"], ["--help"], ["run", "--help"]):
        loaded = modules_after(f"from checkspec.engine.cli.main import main\nmain({args!r})")
        assert not loaded & set(HEAVY), (args, loaded & set(HEAVY))
    assert "importlib.metadata" not in modules_after(
        "from checkspec.engine.cli.main import main\nmain(['--help'])"
    )


def test_validate_loads_no_llm_client_json_schema_or_rego(tmp_path: Path) -> None:
    spec = tmp_path / "a.scenario.yaml"
    spec.write_text(
        "name: a\nsteps:\n  - interacts: [{inputs: hi, outputs: hello}]\n"
        "    checks: [{kind: string_matching, keyword: hello}]\n",
        encoding="utf-8",
    )
    loaded = modules_after(
        f"from checkspec.engine.cli.main import main\nmain(['validate', {str(spec)!r}])"
    )
    assert "checkspec.engine.checks" in loaded  # it did validate
    for heavy in ("litellm", "jsonschema", "regorus", "openai"):
        assert heavy not in loaded, heavy


def test_the_registry_loads_the_built_in_checks_on_its_first_read() -> None:
    loaded = modules_after("import checkspec.engine.core.check")
    assert "checkspec.engine.checks" not in loaded
    loaded = modules_after(
        """
        from checkspec.engine.core.check import Check
        assert "equals" in Check._registry and "llm_judge" in Check._registry
        Check.model_validate({"kind": "regex_matching", "pattern": "a"})
        """
    )
    assert "checkspec.engine.checks" in loaded and "checkspec.engine.judges" in loaded


def test_the_package_names_load_on_first_use() -> None:
    loaded = modules_after(
        """
        import checkspec.engine as engine
        assert "Scenario" in dir(engine)
        from checkspec.engine import *
        assert Scenario and StringMatching and LLMJudge
        """
    )
    assert "checkspec.engine.scenario" in loaded
