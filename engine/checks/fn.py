"""fn: a check from a Python function (sync or async, returning bool or CheckResult).

In a spec file `fn` is an import reference, `package.module:function`, resolved only
when the check runs, so validating a file never imports user code.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import Field, WithJsonSchema, field_serializer, field_validator

from ..core.check import Check
from ..core.injection import is_async_callable
from ..core.result import CheckResult
from ..core.trace import Trace
from ..core.user_thread import in_own_thread
from ..imports import SEARCH_PATHS, import_reference, validate_reference


@Check.register("fn")
class FnCheck(Check):
    """Runs `fn(trace)`: True passes, False fails, a CheckResult is the result."""

    fn: Annotated[
        Callable[..., Any] | str,
        WithJsonSchema({"type": "string", "pattern": r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$"}),
    ] = Field(
        description=(
            "Function taking the trace and returning bool or CheckResult; in files, an "
            "import reference 'package.module:function'."
        ),
    )
    success_message: str | None = Field(default=None, description="Message when it passes.")
    failure_message: str | None = Field(default=None, description="Message when it fails.")
    details: dict[str, Any] = Field(default_factory=dict, description="Extra result details.")

    @field_validator("fn")
    @classmethod
    def _reference(cls, fn: Callable[..., Any] | str) -> Callable[..., Any] | str:
        if isinstance(fn, str):
            validate_reference(fn)
        return fn

    @field_serializer("fn")
    def _dump_fn(self, fn: Callable[..., Any] | str) -> str:
        if isinstance(fn, str):
            return fn
        return f"{fn.__module__}:{fn.__qualname__}"

    @classmethod
    def from_fn(cls, fn: Callable[..., Any], **kwargs: Any) -> FnCheck:
        return cls(fn=fn, **kwargs)

    def _function(self) -> Callable[..., Any]:
        # Resolved on every run, not cached on the check: an analysed check may be shared
        # (cache by text) and its module may be reloaded between runs. Imports are cached
        # by Python, so this is a dictionary lookup after the first time.
        if isinstance(self.fn, str):
            return import_reference(self.fn, SEARCH_PATHS.get())
        return self.fn

    async def run(self, trace: Trace) -> CheckResult:
        if isinstance(self.fn, str) or not is_async_callable(self.fn):
            # Imported and called off the event loop: a check that sleeps, or a module
            # that sleeps at import, holds only its own thread, so its scenario alone
            # passes its deadline (docs/decisions.md, "Where user code runs").
            outcome = await in_own_thread(lambda: self._function()(trace))
        else:
            outcome = self.fn(trace)
        if inspect.isawaitable(outcome):
            outcome = await outcome
        if isinstance(outcome, CheckResult):
            return outcome
        if isinstance(outcome, bool):
            details = dict(self.details)
            if outcome:
                return CheckResult.success(self.success_message, details)
            return CheckResult.failure(self.failure_message, details)
        # Anything else is a mistake, not a verdict ("no" is truthy): the check ERRORs
        # (the run reports the exception), as in the reference library.
        raise TypeError(
            "from_fn callable must return bool or CheckResult (or awaitable thereof), "
            f"but got {type(outcome).__name__} (value: {outcome!r})"
        )


def from_fn(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    success_message: str | None = None,
    failure_message: str | None = None,
    details: dict[str, Any] | None = None,
) -> FnCheck:
    """An FnCheck of `fn` (a callable of the trace returning bool or CheckResult)."""
    return FnCheck(
        fn=fn,
        name=name,
        description=description,
        success_message=success_message,
        failure_message=failure_message,
        details={} if details is None else details,
    )
