# ruff: noqa: SLF001  (the reference library's private globals are what is tested)
"""giskard-checks' settings module under our name (`checkspec.engine.settings`): its
settings object, `get_settings()` and the default-generator globals code resets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import checkspec.engine.settings as settings_module
from checkspec.engine import Generator
from checkspec.engine.llm import snapshot


def test_get_settings_reads_the_giskard_checks_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(settings_module.GiskardChecksSettings.model_config, "env_file", None)
    monkeypatch.setenv("GISKARD_CHECKS_DISABLE_RICH_PRETTY", "true")
    monkeypatch.setenv(settings_module.MAX_REPORTED_FAILURES_ENV_VAR, "3")
    found = settings_module.get_settings()
    assert isinstance(found, settings_module.GiskardChecksSettings)
    assert found.disable_rich_pretty is True
    assert found.max_reported_failures == 3
    for unreadable in ("invalid", "-1", "true", ""):
        monkeypatch.setenv(settings_module.MAX_REPORTED_FAILURES_ENV_VAR, unreadable)
        assert settings_module.get_settings().max_reported_failures is None
    # No built-in default model (docs/compatibility.md).
    assert found.default_model is None and settings_module.DEFAULT_MODEL is None


def test_get_settings_reads_dot_env_under_the_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`.env` as pydantic-settings reads it (a variable set goes over it), read by the one
    reader of the environment (core/environment.py)."""
    (tmp_path / ".env").write_text(
        "GISKARD_CHECKS_DISABLE_RICH_PRETTY=true\nGISKARD_CHECKS_MAX_REPORTED_FAILURES=5\nOTHER=1\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GISKARD_CHECKS_DISABLE_RICH_PRETTY", raising=False)
    monkeypatch.setenv(settings_module.MAX_REPORTED_FAILURES_ENV_VAR, "2")
    found = settings_module.get_settings()
    assert (found.disable_rich_pretty, found.max_reported_failures) == (True, 2)
    assert settings_module.GiskardChecksSettings(max_reported_failures=7).max_reported_failures == 7
    monkeypatch.setitem(settings_module.GiskardChecksSettings.model_config, "env_file", None)
    assert settings_module.get_settings().disable_rich_pretty is False


def test_the_default_generator_global_is_the_engines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snapshot, "_code", snapshot.CodeDefaults())
    settings_module.set_default_generator("openai/x")
    assert isinstance(settings_module._default_generator, Generator)
    assert settings_module._default_generator.model == "openai/x"
    # Assigning the global (as giskard-checks' tests reset it) resets the engine's default.
    settings_module._default_generator = None
    assert snapshot.code_defaults().generator is None
    assert settings_module.get_default_generator().model is None
    settings_module._default_embedding_model = "e"
    assert snapshot.code_defaults().embedding_model == "e"
    settings_module._default_embedding_model = None


def test_pydantic_settings_loads_only_when_asked_for() -> None:
    import subprocess
    import sys

    code = (
        "import sys, checkspec.engine.settings as s; "
        "assert 'pydantic_settings' not in sys.modules; s.get_settings(); "
        "assert 'pydantic_settings' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


async def _suite_of_failures(count: int) -> Any:
    from checkspec.engine import Equals, Scenario, Suite

    suite = Suite(name="failing")
    for index in range(1, count + 1):
        suite.append(
            Scenario(f"scenario{index}x")
            .interact("a", "b")
            .check(Equals(expected_value="a", target_key="trace.last.outputs"))
        )
    return await suite.run(verbose=False)


@pytest.mark.parametrize(
    ("limit", "shown", "more"),
    [("2", [1, 2], "... and 1 more"), ("0", [], "... and 3 more"), ("invalid", [1, 2, 3], None)],
)
async def test_a_suite_report_details_at_most_max_reported_failures(
    limit: str, shown: list[int], more: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rich.console import Console

    result = await _suite_of_failures(3)
    monkeypatch.setenv(settings_module.MAX_REPORTED_FAILURES_ENV_VAR, limit)
    console = Console(record=True, width=120)
    console.print(result)
    text = console.export_text()
    assert [i for i in (1, 2, 3) if f"scenario{i}x" in text] == shown
    if more is None:
        assert "... and" not in text
    else:
        assert more in text


async def test_tags_split_at_the_first_colon_when_grouped() -> None:
    from checkspec.engine import Scenario, Suite
    from checkspec.engine.core.result import _parse_tag

    assert [_parse_tag(t) for t in ("a:b:c", "flaky", ":", "")] == [
        ("a", "b:c"),
        ("flaky", ""),
        ("", ""),
        ("", ""),
    ]
    suite = Suite(name="tags")
    suite.append(Scenario("one", tags=["url:http://x"]).interact("a", "a"))
    suite.append(Scenario("two", tags=["url"]).interact("a", "a"))
    grouped = (await suite.run(verbose=False)).group_by("url")
    assert set(grouped.groups) == {"http://x", ""}
