"""all_of, any_of and not: combine checks."""

from __future__ import annotations

# SerializeAsAny: dump nested checks as their own class, not as the base `Check`.
from pydantic import Field, SerializeAsAny

from ..core.check import Check
from ..core.result import CheckResult, CheckStatus
from ..core.trace import Trace


@Check.register("all_of")
class AllOf(Check):
    """Passes when every inner check passes; stops at the first failure or error."""

    checks: list[SerializeAsAny[Check]] = Field(description="Ordered checks; all must pass.")

    async def run(self, trace: Trace) -> CheckResult:
        passed: list[str] = []
        skipped: list[str] = []
        all_skipped = True
        for check in self.checks:
            result = await check.run(trace)
            if result.skipped:
                if result.message:
                    skipped.append(result.message)
                continue
            if not result.passed:
                return result
            all_skipped = False
            if result.message:
                passed.append(result.message)
        if all_skipped and self.checks:
            detail = f" Details: {'; '.join(skipped)}" if skipped else ""
            return CheckResult.skip("All checks were skipped." + detail)
        return CheckResult.success("; ".join(passed) if passed else "All checks passed.")


@Check.register("any_of")
class AnyOf(Check):
    """Passes when one inner check passes; stops at the first pass (or error)."""

    checks: list[SerializeAsAny[Check]] = Field(
        description="Ordered checks; at least one must pass."
    )

    async def run(self, trace: Trace) -> CheckResult:
        failures: list[str] = []
        all_skipped = True
        for check in self.checks:
            result = await check.run(trace)
            if result.passed or result.errored:
                return result
            if not result.skipped:
                all_skipped = False
            if result.message:
                failures.append(result.message)
        if all_skipped and self.checks:
            detail = f" Details: {'; '.join(failures)}" if failures else ""
            return CheckResult.skip("No checks passed and all were skipped." + detail)
        if failures:
            return CheckResult.failure("No checks passed. Failures: " + "; ".join(failures))
        return CheckResult.failure("All checks failed.")


@Check.register("not")
class Not(Check):
    """Inverts the inner check: pass <-> fail; error and skip pass through."""

    check: SerializeAsAny[Check] = Field(description="The inner check whose result is inverted.")

    async def run(self, trace: Trace) -> CheckResult:
        result = await self.check.run(trace)
        if result.status in (CheckStatus.ERROR, CheckStatus.SKIP):
            return result
        suffix = f": {result.message}" if result.message else "."
        if result.passed:
            return CheckResult.failure(
                "Expected check to fail, but it passed" + suffix, result.details
            )
        return CheckResult.success("Check correctly failed (inverted)" + suffix, result.details)
