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
