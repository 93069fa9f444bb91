"""The pytest plugin: spec files become test items when enabled, and only then."""

from __future__ import annotations

import textwrap

import pytest

from tests.support.processes import LEAN_PYTEST

pytest_plugins = ["pytester"]

# The inner runs are subprocesses: in-process (pytester.runpytest) each run drops the
# modules it imported, and a later run's spec reader then met the first run's YAML event
# classes ("unexpected MappingStartEvent"): two tests passed alone and failed after another.
# The inner runs have no ini of ours: keep pytest-asyncio's loop-scope notice out of them.
QUIET = ("-p", "no:asyncio")

SUITE = """
name: s
scenarios:
  - name: good one
    steps:
      - interacts: [{inputs: q, outputs: We offer refunds.}]
        checks: [{kind: string_matching, keyword: refund}]
  - name: bad one
    steps:
      - interacts: [{inputs: q, outputs: We offer refunds.}]
        checks:
          - kind: string_matching
            keyword: never
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".suite.yaml", s=textwrap.dedent(SUITE))
    pytester.makefile(".scenario.yaml", broken="name: x\nsteps:\n  - checks: [{kind: nope}]\n")
    return pytester


def test_off_by_default(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess(*LEAN_PYTEST, *QUIET)
    result.assert_outcomes()  # nothing collected


def test_enabled_with_p_collects_one_item_per_scenario(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess(*LEAN_PYTEST, "-p", "checkspec", "-v", *QUIET)
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*s.suite.yaml::good one PASSED*"])
    result.stdout.fnmatch_lines(["*broken.scenario.yaml:3:21: error: unknown check 'nope'*"])
    result.stdout.fnmatch_lines(
        ["*FAIL string_matching at s.suite.yaml:11: The answer does not contain the keyword*"]
    )


def test_enabled_with_ini_option(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\ncheckspec = true\n")
    # Every installed plugin loaded, as in a user's session (the other tests leave two
    # test tools out: LEAN_PYTEST).
    project.runpytest_subprocess(*QUIET).assert_outcomes(passed=1, failed=2)


def test_scenarios_run_in_worker_processes_with_the_workspace_settings(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        plugin_agent=(
            "import os, time\n"
            "def exits(q):\n    os._exit(3)\n"
            "def hangs(q):\n    time.sleep(3600)\n"
            "def chatty(q):\n    print('said by the agent')\n    return 'nope'\n"
        )
    )
    pytester.makefile(".yaml", checkspec="scenario_timeout: 1\n")
    runs = "\n".join(
        f"  - name: {name}\n"
        f"    target: python:plugin_agent:{name}\n"
        "    steps:\n"
        "      - interacts: [{inputs: q}]\n"
        "        checks: [{kind: string_matching, keyword: ok}]"
        for name in ("exits", "hangs", "chatty")
    )
    pytester.makefile(".suite.yaml", faults="name: faults\nscenarios:\n" + runs + "\n")
    result = pytester.runpytest_subprocess(*LEAN_PYTEST, "--checkspec", *QUIET)
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        [
            "*died (exit code 3)*",
            "*did not finish within 1 s (stopped)*",
            "*said by the agent*",
        ]
    )


def test_the_session_is_kept_in_the_run_history(project: pytest.Pytester) -> None:
    import json
    import sqlite3
    import sys

    project.makefile(".yaml", checkspec="history_max_runs: 3\n")
    project.runpytest_subprocess(*LEAN_PYTEST, "-p", "checkspec", *QUIET).assert_outcomes(
        passed=1, failed=2
    )
    database = project.path / ".checkspec" / "history.db"
    db = sqlite3.connect(database)
    rows = db.execute("SELECT source, passed, failed FROM runs").fetchall()
    assert rows == [("pytest", 1, 1)]  # the broken file is no scenario run
    names = {r[0]: r[1] for r in db.execute("SELECT name, status FROM scenarios")}
    assert names == {"good one": "pass", "bad one": "fail"}
    db.close()
    listed = project.run(
        sys.executable, "-m", "checkspec.engine.cli.main", "history", "--format", "json"
    )
    assert json.loads(listed.stdout.str())[0]["source"] == "pytest"
    project.makefile(".yaml", checkspec="history: false\n")
    project.runpytest_subprocess(*LEAN_PYTEST, "-p", "checkspec", *QUIET)
    assert sqlite3.connect(database).execute("SELECT count(*) FROM runs").fetchone()[0] == 1
