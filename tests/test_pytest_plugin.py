"""The pytest plugin: spec files become test items when enabled, and only then."""

from __future__ import annotations

import textwrap

import pytest

pytest_plugins = ["pytester"]

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
    result = project.runpytest(*QUIET)
    result.assert_outcomes()  # nothing collected


def test_enabled_with_p_collects_one_item_per_scenario(project: pytest.Pytester) -> None:
    result = project.runpytest("-p", "checkspec", "-v", *QUIET)
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*s.suite.yaml::good one PASSED*"])
    result.stdout.fnmatch_lines(["*broken.scenario.yaml:3:21: error: unknown check 'nope'*"])
    result.stdout.fnmatch_lines(
        ["*FAIL string_matching at s.suite.yaml:11: The answer does not contain the keyword*"]
    )


def test_enabled_with_ini_option(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\ncheckspec = true\n")
    project.runpytest(*QUIET).assert_outcomes(passed=1, failed=2)


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
    result = pytester.runpytest("--checkspec", *QUIET)
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        [
            "*died (exit code 3)*",
            "*did not finish within 1 s (stopped)*",
            "*said by the agent*",
        ]
    )
