"""Check functions referenced as 'tests.support.lazy_fn_target:<name>' by FnCheck tests.

Nothing imports this module directly: the tests assert it is imported only when the
check runs.
"""

from __future__ import annotations

from typing import Any


def has_output(trace: Any) -> bool:
    return trace.last is not None and bool(trace.last.outputs)


async def mentions_refund(trace: Any) -> bool:
    return "refund" in str(trace.last.outputs)
