"""Functions the conformance corpora's `fn` checks name (`tests.support.conformance_fns:<name>`).

Plain functions of a trace, importable by the engine (as references) and by the original
library (tools/reference_cases.py passes them as callables), so both run the same code.
"""

from __future__ import annotations

from typing import Any


def _result_class(trace: Any) -> Any:
    """The CheckResult of whichever library built the trace: the engine's or the original's."""
    if type(trace).__module__.startswith("giskard."):
        from giskard.checks import CheckResult  # only under tools/reference_cases.py
    else:
        from checkspec.engine import CheckResult
    return CheckResult


def mentions_refund(trace: Any) -> bool:
    return "refund" in str(trace.last.outputs)


async def mentions_refund_async(trace: Any) -> bool:
    return "refund" in str(trace.last.outputs)


def has_two_interactions(trace: Any) -> bool:
    return len(trace.interactions) >= 2


def not_applicable(trace: Any) -> Any:
    return _result_class(trace).skip(message="Not applicable to this answer.")


def failure_with_reason(trace: Any) -> Any:
    return _result_class(trace).failure(message=f"Too short: {len(str(trace.last.outputs))}")


def crashes(trace: Any) -> bool:
    raise RuntimeError("the check itself is broken")


def returns_a_number(trace: Any) -> Any:
    return 3
