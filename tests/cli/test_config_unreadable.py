"""A checkspec.yaml that cannot be used stops every command that would use it (issue 47
item 1): exit 2 before anything runs, the problem at `checkspec.yaml:LINE:COL`, never
the defaults in its place. The editor's side: tests/server/lsp/test_server_config_refused.py."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.support.cli import run_main
from tests.support.processes import LEAN_PYTEST

SCENARIO = textwrap.dedent(
    """\
    name: greets
    steps:
      - interacts:
          - inputs: hello
            outputs: hi there
        checks:
          - kind: string_matching
            keyword: hi
    """
)

# (config text, the line:col of its problem, what the message must say)
BROKEN = {
    "secret key": (
        "model: openai/gpt-4o-mini\napi_key: sk-abcdefghijklmnop\n",
        "2:1",
        "CHECKSPEC_API_KEY",
    ),
    "misspelt key": ("modle: openai/gpt-4o-mini\n", "1:1", "did you mean 'model'"),
    "yaml error": ("max_cost: 0.000001\nmodel: [unclosed\n", ":", "error"),
    "wrong type": ("concurrency: many\n", "1:", "concurrency"),
    "typo beside a budget": ("max_cost: 0.000001\nmax_cots: 1\n", "2:1", "max_cots"),
}

# Every command that resolves settings, with what it needs to otherwise go on.
COMMANDS = {
    "run": ("run", "suites"),
    "run --dry-run": ("run", "--dry-run", "suites"),
    "settings": ("settings",),
    "calibrate": ("calibrate", "suites"),
    "generate": ("generate", "--persona", "a user", "--count", "1", "-o", "suites/g.dataset.jsonl"),
}


def workspace(root: Path, config: str) -> Path:
    (root / "checkspec.yaml").write_text(config, encoding="utf-8")
    (root / "suites").mkdir()
    (root / "suites" / "greets.scenario.yaml").write_text(SCENARIO, encoding="utf-8")
    return root


@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS.keys())
@pytest.mark.parametrize("config", BROKEN.values(), ids=BROKEN.keys())
def test_every_command_refuses_a_config_it_cannot_use(
    tmp_path: Path, config: tuple[str, str, str], command: tuple[str, ...]
) -> None:
    text, at, says = config
    root = workspace(tmp_path, text)
    done = run_main(root, *command, unset=("CHECKSPEC_",))
    assert done.returncode == 2, done.stdout + done.stderr
    first = done.stderr.splitlines()[0]
    assert first.startswith("checkspec.yaml:") and ": error: " in first, done.stderr
    assert first.split("checkspec.yaml:")[1].startswith(at.rstrip(":")), first
    assert says in done.stderr
    assert "nothing runs with defaults" in done.stderr
    # Nothing ran, nothing was printed as a result or a setting, nothing was written.
    assert "passed" not in done.stdout and "default" not in done.stdout
    assert not (root / ".checkspec" / "history.db").exists()
    assert not (root / "suites" / "g.dataset.jsonl").exists()
    assert "sk-abcdefghijklmnop" not in done.stdout + done.stderr


def test_the_same_workspace_runs_once_the_file_is_fixed(tmp_path: Path) -> None:
    """The refusal is the file's problems, not the command's: fixed, the run goes on."""
    root = workspace(tmp_path, "modle: openai/gpt-4o-mini\n")
    assert run_main(root, "settings", unset=("CHECKSPEC_",)).returncode == 2
    (root / "checkspec.yaml").write_text("model: openai/gpt-4o-mini\n", encoding="utf-8")
    shown = run_main(root, "settings", unset=("CHECKSPEC_",))
    assert shown.returncode == 0, shown.stderr
    assert "openai/gpt-4o-mini  checkspec.yaml:1" in " ".join(shown.stdout.split("  ")) or (
        "checkspec.yaml:1" in shown.stdout
    )


def test_init_leads_keys_to_the_environment_not_the_file(tmp_path: Path) -> None:
    assert run_main(tmp_path, "init", ".").returncode == 0
    text = (tmp_path / "checkspec.yaml").read_text(encoding="utf-8")
    assert "CHECKSPEC_API_KEY" in text
    assert "api_key" not in text  # no comment inviting a key into the file


pytest_plugins = ["pytester"]


def test_the_pytest_plugin_makes_it_a_usage_error(pytester: pytest.Pytester) -> None:
    """As pytest's --strict-config: exit 4 (usage error), the problem named, nothing run."""
    pytester.makefile(".yaml", checkspec="concurrency: 4\ntarget_timout: 3\n")
    pytester.makefile(".scenario.yaml", greets=SCENARIO)
    result = pytester.runpytest_subprocess(*LEAN_PYTEST, "-p", "checkspec")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    errors = result.stderr.str()
    assert "checkspec.yaml:2:1: error:" in errors and "target_timeout" in errors
    assert "passed" not in result.stdout.str()


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("CHECKSPEC_MAX_COST", "ten dollars"),
        ("CHECKSPEC_MAX_PROMPT_SIZE", "-5"),
        ("CHECKSPEC_MAX_COST", "0"),
    ],
)
def test_a_variable_that_does_not_read_stops_the_run_too(
    tmp_path: Path, variable: str, value: str
) -> None:
    """The environment is config too: a budget given as words is not silently no budget."""
    root = workspace(tmp_path, "model: openai/gpt-4o-mini\n")
    for command in (("run", "suites"), ("settings",)):
        done = run_main(root, *command, env={variable: value}, unset=("CHECKSPEC_",))
        assert done.returncode == 2, done.stdout + done.stderr
        assert f"error: {variable}={value!r}" in done.stderr
        assert "passed" not in done.stdout
