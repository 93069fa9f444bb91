"""rego_policy: evaluate a boolean Rego rule with regorus against a trace value."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from ..core.check import Check, FieldIssue, linting_later
from ..core.jsonpath import JSONPathStr, NoMatch, resolve
from ..core.result import CheckResult
from ..core.trace import Trace

POLICY_FILE = "policy.rego"
_LOCATION = re.compile(r"-->\s*[^\n]*?:(\d+):(\d+)")


@dataclass(frozen=True)
class RegoError:
    """A regorus error message, with the policy's 1-based line:col when it gives one."""

    message: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        where = f" at line {self.line}, column {self.column}" if self.line else ""
        return f"{self.message}{where}"


def parse_rego_error(raw: str) -> RegoError:
    # regorus errors carry a rust backtrace when RUST_BACKTRACE is set: keep the message.
    text = raw.split("Stack backtrace:")[0].strip()
    match = _LOCATION.search(text)
    message = next(
        (ln.strip()[len("error:") :].strip() for ln in text.splitlines() if "error:" in ln),
        text.splitlines()[0] if text else "invalid policy",
    )
    if match:
        return RegoError(message, int(match.group(1)), int(match.group(2)))
    return RegoError(message)


@lru_cache(maxsize=256)
def compile_policy(policy: str) -> Any:
    """An engine with the policy loaded (cached by text); raises RuntimeError on bad Rego."""
    import regorus

    engine = regorus.Engine()
    engine.add_policy(POLICY_FILE, policy)
    return engine


def rego_syntax_error(policy: str) -> RegoError | None:
    try:
        compile_policy(policy)
    except Exception as exc:
        return parse_rego_error(str(exc))
    return None


@Check.register("rego_policy")
class RegoPolicy(Check):
    """Evaluates a Rego rule; true passes, false or undefined fails, other values error."""

    policy: str = Field(description="Inline Rego source loaded into the engine.")
    rule: str = Field(
        description="Fully qualified boolean rule path, e.g. data.giskard.allow.",
        examples=["data.giskard.allow"],
        json_schema_extra={"pattern": "^data\\."},  # as _rule_path checks
    )
    target_key: JSONPathStr = Field(
        default="trace.last.outputs",
        description="JSONPath to the value exposed to the policy as `input`.",
    )
    data: dict[str, Any] = Field(
        default_factory=dict, description="Static data document merged into the engine."
    )

    @field_validator("rule")
    @classmethod
    def _rule_path(cls, rule: str) -> str:
        if not rule.startswith("data."):
            raise ValueError(f"Rule path must start with 'data.', got {rule!r}.")
        return rule

    @model_validator(mode="after")
    def _policy_compiles(self) -> RegoPolicy:
        """A policy (or data) that regorus rejects is rejected here, as the reference does.

        The located document asks for it as a lint problem instead (lint_later), so the
        editor can point at the line inside the policy.
        """
        if linting_later():
            return self
        error = rego_syntax_error(self.policy)
        if error is None and self.data:
            try:
                self._engine()
            except Exception as exc:
                error = parse_rego_error(str(exc))
        if error is not None:
            raise PydanticCustomError(
                "rego_syntax",
                "Invalid Rego policy or data: {error}",
                {"error": str(error), "line": error.line, "column": error.column},
            )
        return self

    def lint(self) -> list[FieldIssue]:
        error = rego_syntax_error(self.policy)
        if error is None:
            return []
        line = error.line - 1 if error.line else None
        column = error.column - 1 if error.column else None
        return [FieldIssue("policy", "rego-syntax", f"Rego: {error.message}", line, column)]

    def _engine(self) -> Any:
        engine = compile_policy(self.policy).clone()
        if self.data:
            engine.add_data_json(json.dumps(self.data))
        return engine

    async def run(self, trace: Trace) -> CheckResult:
        value = resolve(trace, self.target_key)
        details: dict[str, Any] = {
            "target_key": self.target_key,
            "data": self.data,
            "rule": self.rule,
            "input": value,
        }
        if isinstance(value, NoMatch):
            return CheckResult.error(f"No value found for key '{self.target_key}'.", details)
        try:
            input_json = json.dumps(value)
        except (TypeError, ValueError) as exc:
            details["error"] = str(exc)
            return CheckResult.error(
                f"Value at key '{self.target_key}' is not JSON serializable: {exc}", details
            )
        try:
            engine = self._engine()
            engine.set_input_json(input_json)
            outcome = engine.eval_rule(self.rule)
        except Exception as exc:
            details["error"] = str(parse_rego_error(str(exc)))
            return CheckResult.error(f"Rego policy evaluation failed: {details['error']}", details)
        details["value"] = outcome
        if outcome is True:
            return CheckResult.success(f"Rule '{self.rule}' evaluated to true.", details)
        if outcome is False:
            return CheckResult.failure(f"Rule '{self.rule}' evaluated to false.", details)
        if outcome is None:
            return CheckResult.failure(f"Rule '{self.rule}' is undefined.", details)
        return CheckResult.error(
            f"Rule '{self.rule}' returned {type(outcome).__name__}, expected bool or undefined.",
            details,
        )
