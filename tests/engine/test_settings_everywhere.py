"""Settings and file kinds reach every front end the same way: the CLI's options come from
the catalog, checkspec.yml works where checkspec.yaml does, a file whose kind is given by
`$schema` is found by folder runs and the pytest plugin, and the pytest plugin applies the
workspace's settings (`model:`) as `checkspec run` does."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from checkspec.engine.catalog import SETTINGS
from checkspec.engine.cli.main import main
from checkspec.engine.spec.files import collect, file_kind
from checkspec.engine.spec.kinds import FileKind
from tests.support.processes import LEAN_PYTEST

pytest_plugins = ["pytester"]
QUIET = ("-p", "no:asyncio")

BY_SCHEMA = textwrap.dedent(
    """\
    $schema: https://checkspec.dev/schemas/scenario.schema.json
    name: by schema
    steps:
      - interacts: [{inputs: q, outputs: hello}]
        checks: [{kind: string_matching, keyword: hello}]
    """
)
JUDGED = textwrap.dedent(
    """\
    name: judged
    steps:
      - interacts: [{inputs: hi, outputs: hello}]
        checks:
          - kind: llm_judge
            prompt: "Is {{ trace.last.outputs }} polite?"
    """
)


def test_run_options_are_the_catalogs_settings() -> None:
    help_text = _run_help()
    for setting in SETTINGS:
        if setting.flag is not None:
            assert setting.flag in help_text, setting.name
    assert "else 8)" in help_text  # the concurrency default, as the catalog has it


def _run_help() -> str:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        main(["run", "--help"])
    return out.getvalue()


def test_a_file_kinded_by_schema_is_found_by_folder_runs(tmp_path: Path, capsys) -> None:
    (tmp_path / "plain.yaml").write_text(BY_SCHEMA, encoding="utf-8")
    (tmp_path / "other.yaml").write_text("a: 1\n$schema: elsewhere.json\n", encoding="utf-8")
    (tmp_path / "notes.json").write_text('{"$schema": "x/suite.schema.json", "name": 1', "utf-8")
    assert file_kind(tmp_path / "plain.yaml") is FileKind.SCENARIO
    files, missing = collect([tmp_path])
    assert [f.name for f in files] == ["plain.yaml"] and not missing
    assert main(["run", str(tmp_path), "--executor", "inprocess"]) == 0
    assert "PASS  by schema" in capsys.readouterr().out


def test_custom_checks_of_checkspec_yml_are_known(tmp_path: Path, capsys) -> None:
    (tmp_path / "checkspec.yml").write_text(
        "custom_checks:\n"
        "  - identifier: custom_greets\n"
        "    params: {type: string_matching, keyword: hello}\n",
        encoding="utf-8",
    )
    spec = tmp_path / "a.scenario.yaml"
    spec.write_text(
        "name: n\nsteps:\n  - interacts: [{inputs: q, outputs: hello}]\n"
        "    checks: [{kind: custom_greets}]\n",
        encoding="utf-8",
    )
    assert main(["validate", str(spec)]) == 0, capsys.readouterr().err


def test_pytest_plugin_collects_schema_kinded_files(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", plain=BY_SCHEMA)
    result = pytester.runpytest("--checkspec", "-v", *QUIET)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*plain.yaml::by schema PASSED*"])


def test_pytest_plugin_applies_the_workspace_model(pytester: pytest.Pytester) -> None:
    # A provider litellm does not know stops the session before it runs (a usage error),
    # naming the model it was given and the line of the workspace's file that gave it.
    pytester.makefile(".yml", checkspec="model: nosuchprovider/m1\n")
    pytester.makefile(".scenario.yaml", judged=JUDGED)
    # In a process of its own: a usage error raised in-process leaves this session's
    # plugin manager without the plugin for the in-process runs after it.
    result = pytester.runpytest_subprocess(*LEAN_PYTEST, "--checkspec", *QUIET)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = result.stderr.str()
    assert "checkspec.yml:1: error: model 'nosuchprovider/m1' cannot be called" in errors
    assert "No LLM model configured" not in result.stdout.str() + errors


def test_the_plugin_adds_no_warning_to_a_test_run(pytester: pytest.Pytester) -> None:
    # Tags become registered markers; nothing of ours warns, even under -W error.
    pytester.makefile(
        ".scenario.yaml",
        tagged=BY_SCHEMA.replace(
            "$schema: https://checkspec.dev/schemas/scenario.schema.json\n", ""
        )
        + 'tags: [billing, "Category:Refund"]\n',
    )
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    result = pytester.runpytest("--checkspec", "-W", "error", "-rw", *QUIET)
    result.assert_outcomes(passed=2, warnings=0)
