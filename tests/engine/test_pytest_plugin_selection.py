"""The pytest plugin takes the selection language's filters (--checkspec-query,
--checkspec-tag, --checkspec-status) through the predicate `checkspec run` uses."""

from __future__ import annotations

import pytest

from tests.support.processes import LEAN_PYTEST

pytest_plugins = ["pytester"]

QUIET = ("-p", "no:asyncio")

SUITE = """\
name: t
scenarios:
  - name: greets
    tags: [billing]
    steps:
      - interacts: [{inputs: hi, outputs: hello there}]
        checks: [{kind: string_matching, keyword: hello}]
  - name: opening hours
    status: draft
    steps:
      - interacts: [{inputs: when, outputs: hello we open at 9}]
        checks: [{kind: string_matching, keyword: hello}]
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".suite.yaml", s=SUITE)
    return pytester


@pytest.mark.parametrize(
    ("options", "names"),
    [
        (("--checkspec-query", "open at"), ["opening hours"]),
        (("--checkspec-tag", "billing"), ["greets"]),
        (("--checkspec-status", "active"), ["greets"]),
        (("--checkspec-status", "draft"), ["opening hours"]),
    ],
)
def test_filters_choose_the_items(
    project: pytest.Pytester, options: tuple[str, str], names: list[str]
) -> None:
    result = project.runpytest_subprocess(
        *LEAN_PYTEST, "-p", "checkspec", "--collect-only", "-q", *options, *QUIET
    )
    collected = [line for line in result.outlines if "::" in line]
    assert [line.split("::")[-1] for line in collected] == names
