"""The dataset (hub) judges: correctness, conformity and groundedness of the response text."""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import Field

from ..core.check import Check, ModelCalls
from ..core.jsonpath import JSONPathStr
from ..core.result import CheckResult
from ..core.sentinel import MISSING
from .base import BaseLLMCheck, CheckInputError, documents
from .prompt_files import bundled_prompt

HUB_TARGET_KEY = "trace.last.outputs.response.content"


class HubCheck(BaseLLMCheck):
    """Shared by the hub judges: the response under test (and the user's request)."""

    target_key: JSONPathStr = Field(
        default=HUB_TARGET_KEY,
        description=(
            "JSONPath to the response under test (default: the assistant message text). "
            "'text_key' is accepted as its older name."
        ),
    )

    async def get_inputs(self, trace: Any) -> dict[str, Any]:
        response = self.value_of(trace, "response", MISSING, self.target_key)
        question = trace.last.inputs if trace.last is not None else None
        return {"response": response, "question": question, "trace": trace}


@Check.register("hub_correctness")
class HubCorrectness(HubCheck):
    """Passes when the response contains all of the reference answer, without contradiction."""

    reference: str = Field(
        min_length=1,
        description="The expected correct answer; every piece of it must be in the response.",
    )

    def get_prompt(self) -> str:
        return bundled_prompt("hub_correctness")

    async def get_inputs(self, trace: Any) -> dict[str, Any]:
        return {**await super().get_inputs(trace), "reference": self.reference}


@Check.register("hub_groundedness")
class HubGroundedness(HubCheck):
    """Passes when the response adds nothing that the context does not support."""

    context: str = Field(
        min_length=1, description="The reference context the response must be grounded in."
    )

    def get_prompt(self) -> str:
        return bundled_prompt("hub_groundedness")

    async def get_inputs(self, trace: Any) -> dict[str, Any]:
        documents(self.context)  # an all-blank context is an input error, not a verdict
        return {**await super().get_inputs(trace), "context": self.context}


@Check.register("hub_conformity")
class HubConformity(HubCheck):
    """Passes when the response follows every rule; each rule is judged on its own."""

    rules: list[str] = Field(
        min_length=1,
        description=(
            "Business rules the response must follow, one distinct behaviour each, e.g. "
            "'The response must not include any personal opinions.'"
        ),
    )

    def get_prompt(self) -> str:
        return bundled_prompt("hub_conformity")

    def model_calls(self) -> ModelCalls:
        """A judge request per rule."""
        one = super().model_calls()
        return one._replace(calls=one.calls * len(self.rules))

    async def run(self, trace: Any) -> CheckResult:
        judge = self._judge
        if (missing := judge.missing_model()) is not None:
            return CheckResult.error(missing)
        try:
            inputs = await self.get_inputs(trace)
        except CheckInputError as exc:
            return CheckResult.error(str(exc))
        template = self.get_prompt()
        # One judge call per rule: a verdict on several rules at once hides which one broke.
        results = await asyncio.gather(
            *(
                self._verdict(judge, template, {**inputs, "rule": rule}, trace)
                for rule in self.rules
            )
        )
        verdicts = [
            {
                "rule": rule,
                "status": result.status.value,
                "reason": result.message,
                "prompt": result.details.get("prompt"),
            }
            for rule, result in zip(self.rules, results, strict=True)
        ]
        models = {result.details.get("model") for result in results} - {None}
        details: dict[str, Any] = {"model": next(iter(models), None), "rules": verdicts}
        errored = [v for v in verdicts if v["status"] == "error"]
        if errored:
            listed = "; ".join(f"{v['rule']!r}: {v['reason']}" for v in errored)
            return CheckResult.error(f"Could not judge {len(errored)} rule(s): {listed}", details)
        failed = [v for v in verdicts if v["status"] == "fail"]
        if failed:
            listed = "; ".join(f"{v['rule']!r}: {v['reason']}" for v in failed)
            return CheckResult.failure(
                f"The response breaks {len(failed)} of {len(self.rules)} rule(s): {listed}",
                details,
            )
        return CheckResult.success(f"The response follows all {len(self.rules)} rule(s).", details)
