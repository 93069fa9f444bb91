"""Nothing checked is never green: a run, a calibration, a compare or a pytest session that
checked nothing exits 5 (docs/outcomes.md) and says on stdout which scenarios were left
out and why; a calibration with a label not judged exits 1 unless --allow-not-judged."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from checkspec.engine.history.compare import compare
from tests.support.cli import Done, run_main
from tests.support.openai_stub import OpenAIStub, running_stub
from tests.support.processes import LEAN_PYTEST

pytest_plugins = ["pytester"]

SUITE = """\
name: s
scenarios:
  - name: reviewed
    steps:
      - interacts: [{inputs: hi, outputs: hello}]
        checks: [{kind: equals, expected_value: hello}]
  - name: proposed
    status: draft
    steps:
      - interacts: [{inputs: hi, outputs: hello}]
        checks: [{kind: equals, expected_value: hello}]
  - name: switched off
    steps:
      - interacts: [{inputs: hi, outputs: hello}]
        checks: [{kind: equals, expected_value: hello, enabled: false}]
"""


def cli(root: Path, *args: str, env: dict[str, str] | None = None) -> Done:
    return run_main(root, *args, env=env, unset=("CHECKSPEC_", "OPENAI_"))


@pytest.fixture(name="suite")
def suite_fixture(tmp_path: Path) -> Path:
    (tmp_path / "s.suite.yaml").write_text(SUITE)
    return tmp_path


def test_a_draft_named_alone_is_nothing_checked(suite: Path) -> None:
    done = cli(suite, "run", "s.suite.yaml::proposed")
    assert done.returncode == 5, done.stdout + done.stderr
    assert (
        "left out: 1 draft scenario(s) not run (--include-drafts runs them): "
        "s.suite.yaml::proposed\n" in done.stdout
    )
    assert done.stdout.endswith("nothing checked: no scenario ran (exit 5)\n")


def test_with_a_report_for_programs_the_lines_go_to_stderr(suite: Path) -> None:
    done = cli(suite, "run", "s.suite.yaml::proposed", "--format", "json")
    assert done.returncode == 5
    assert json.loads(done.stdout)["scenarios"] == []  # stdout stays one JSON document
    assert "left out: 1 draft scenario(s)" in done.stderr
    assert "nothing checked: no scenario ran (exit 5)" in done.stderr


def test_a_run_that_checked_something_is_green_and_names_what_it_did_not(suite: Path) -> None:
    done = cli(suite, "run", "s.suite.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "left out: 1 draft scenario(s) not run" in done.stdout
    assert (
        "unchecked: 1 scenario(s) ran no check (all disabled or skipped): "
        "s.suite.yaml::switched off" in done.stdout
    )
    assert "nothing checked" not in done.stdout


def test_only_disabled_checks_is_nothing_checked(suite: Path) -> None:
    done = cli(suite, "run", "s.suite.yaml::switched off")
    assert done.returncode == 5
    assert "nothing checked: none of the 1 scenario(s) ran a check (exit 5)" in done.stdout


def test_status_draft_runs_the_drafts_and_names_the_others(suite: Path) -> None:
    done = cli(suite, "run", "s.suite.yaml", "--status", "draft")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS  proposed" in done.stdout
    assert (
        "left out: 2 scenario(s) not of --status draft: s.suite.yaml::reviewed, "
        "s.suite.yaml::switched off" in done.stdout
    )


def test_an_empty_shard_is_one_job_and_merge_judges_the_whole(suite: Path) -> None:
    codes = []
    for k in (1, 2, 3):
        done = cli(
            suite,
            "run",
            "s.suite.yaml::reviewed",
            "--shard",
            f"{k}/3",
            "-o",
            f"{k}.json",
            "--format",
            "json",
        )
        codes.append(done.returncode)
        if done.returncode == 0 and "holds none" in done.stdout:
            assert f"shard {k}/3 holds none of the 1 selected scenario(s)" in done.stdout
    assert sorted(codes) == [0, 0, 0]
    merged = cli(suite, "merge", "1.json", "2.json", "3.json")
    assert merged.returncode == 0 and "1 passed" in merged.stdout
    only_off = cli(suite, "run", "s.suite.yaml::switched off", "--format", "json", "-o", "off.json")
    assert only_off.returncode == 5
    nothing = cli(suite, "merge", "off.json")
    assert nothing.returncode == 5
    assert "nothing checked: none of the 1 scenario(s) ran a check (exit 5)" in nothing.stdout


def test_a_failure_keeps_exit_1(suite: Path) -> None:
    (suite / "s.suite.yaml").write_text(
        SUITE.replace("expected_value: hello}", "expected_value: x}", 1)
    )
    assert cli(suite, "run", "s.suite.yaml").returncode == 1


# -- calibrate -------------------------------------------------------------------------------

LABELS = """\
name: s
scenarios:
  - name: a
    steps:
      - interacts: [{inputs: q, outputs: alpha}]
        checks: [{kind: llm_judge, prompt: 'fine? {{ trace.last.outputs }}', expect: pass}]
  - name: b
    steps:
      - interacts: [{inputs: q, outputs: beta}]
        checks: [{kind: llm_judge, prompt: 'fine? {{ trace.last.outputs }}', expect: pass}]
"""


@pytest.fixture(name="stub")
def stub_fixture() -> Iterator[OpenAIStub]:
    with running_stub() as stub:
        yield stub


def model(stub: OpenAIStub) -> dict[str, str]:
    return {
        "CHECKSPEC_MODEL": "openai/stub-model",
        "CHECKSPEC_API_BASE": stub.base_url,
        "CHECKSPEC_API_KEY": "sk-test",
    }


def judges_alpha_only(stub: OpenAIStub) -> Any:
    # beta's label gets HTTP 400 (not retried): it is not judged
    return lambda body: stub.verdict(True, "ok") if "alpha" in str(body) else 400


def test_a_label_not_judged_fails_unless_allowed(tmp_path: Path, stub: OpenAIStub) -> None:
    (tmp_path / "l.suite.yaml").write_text(LABELS)
    stub.chat = judges_alpha_only(stub)
    done = cli(tmp_path, "calibrate", "--no-history", env=model(stub))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "not judged: 1 of 2 label(s) by llm_judge @ openai/stub-model" in done.stdout
    assert "(--allow-not-judged accepts that)" in done.stdout
    allowed = cli(tmp_path, "calibrate", "--no-history", "--allow-not-judged", env=model(stub))
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert "not judged: 1 of 2 label(s)" in allowed.stdout


def test_a_judge_that_judged_nothing_is_never_green(tmp_path: Path, stub: OpenAIStub) -> None:
    (tmp_path / "l.suite.yaml").write_text(LABELS)
    stub.chat = lambda body: 400
    done = cli(tmp_path, "calibrate", "--no-history", "--allow-not-judged", env=model(stub))
    assert done.returncode == 5, done.stdout + done.stderr
    assert "nothing checked: llm_judge @ openai/stub-model" in done.stdout
    assert "judged no label (exit 5)" in done.stdout


# -- compare ---------------------------------------------------------------------------------


def report(*scenarios: tuple[str, str]) -> dict[str, Any]:
    return {
        "run": {"id": "r"},
        "scenarios": [
            {"id": f"f.yaml::{name}", "scenario_name": name, "status": status}
            for name, status in scenarios
        ],
    }


def test_a_compare_with_nothing_in_common_is_nothing_checked() -> None:
    apart = compare(report(("a", "pass")), report(("b", "pass")))
    assert apart.exit_code == 5
    assert (
        apart.nothing
        == "nothing compared: no scenario is in both runs (1 only in base, 1 only in head)"
    )
    assert apart.to_json()["exit_code"] == 5
    assert compare(report(), report()).nothing == "nothing compared: both runs are empty"
    # something newly failing is still 1, something in common is 0
    assert compare(report(("a", "pass")), report(("b", "fail"))).exit_code == 1
    assert compare(report(("a", "pass")), report(("a", "pass"))).exit_code == 0


# -- pytest ------------------------------------------------------------------------------------


def test_a_pytest_session_of_drafts_alone_is_not_green(pytester: pytest.Pytester) -> None:
    pytester.makefile(".suite.yaml", s=SUITE)
    quiet = ("-p", "no:asyncio", "-p", "no:randomly")
    drafts = pytester.runpytest_subprocess(
        *LEAN_PYTEST, "--checkspec", "s.suite.yaml::proposed", *quiet
    )
    assert drafts.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    drafts.stdout.fnmatch_lines(
        [
            "*left out: 1 draft scenario(s) not run (--checkspec-drafts runs them): "
            "s.suite.yaml::proposed*",
            "*nothing checked: no scenario ran a check (exit 5)*",
        ]
    )
    # A test of another kind that passes is something checked: a mixed session is green.
    pytester.makepyfile(test_other="def test_ok():\n    assert True\n")
    mixed = pytester.runpytest_subprocess(
        *LEAN_PYTEST, "--checkspec", "s.suite.yaml::proposed", "test_other.py", *quiet
    )
    assert mixed.ret == pytest.ExitCode.OK
    everything = pytester.runpytest_subprocess(*LEAN_PYTEST, "--checkspec", *quiet)
    assert everything.ret == pytest.ExitCode.OK
    everything.stdout.fnmatch_lines(["*unchecked: 1 scenario(s) ran no check*"])
