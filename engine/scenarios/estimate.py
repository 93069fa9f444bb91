"""What a run would ask of its models, found without sending anything (`--dry-run`).

Nothing of the user's runs either: no target is called, no `fn` check or input function
runs. Each step's trace is what the file says (recorded outputs; an answer only the
target could give is empty), and on it each model-calling check and LLM input generator
of the scenario asks the client in dry-run mode (llm/dry_run.py), which counts the call
or the cached answer. How many calls a check makes is what it declares
(`Check.model_calls`: a judge 1, hub_conformity one per rule, semantic_similarity one
embedding request), checks inside all_of / any_of / not included; a call the dry trace
cannot reach (a value only the target's answer holds) is counted all the same. A Hub-format
row's unknown answer is an empty response (`{"response": {"content": ""}}`). A generator counts its first turn `max_steps` times: an upper bound
in calls, a lower one in tokens (later turns carry the conversation). Every check and
step is counted, as if none stopped the conversation: an upper bound.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any

from ..core.check import Check, checks_within
from ..core.input_generator import InputGenerator
from ..core.sentinel import MISSING
from ..core.trace import Interaction, Trace
from ..generators.base import BaseLLMGenerator
from ..interactions import ChatInteract, Interact, chat_answer, chat_messages
from ..llm import dry_run
from .scenario import Scenario


async def plan_run(scenarios: Iterable[Scenario]) -> dry_run.Plan:
    """The calls, cached answers and prompt tokens of running these scenarios, per model."""
    with dry_run.planning() as plan:
        for scenario in scenarios:
            await _plan_scenario(scenario, plan)
    return plan


async def _plan_scenario(scenario: Scenario, plan: dry_run.Plan) -> None:
    trace: Trace = Trace()
    for step in scenario.steps:
        for spec in step.interacts:
            if isinstance(spec, Interact):
                trace = await _plan_interact(spec, trace, plan)
        for check in step.checks:
            for inner in checks_within(check):  # a composition counted whole: an upper bound
                await _plan_check(inner, trace, plan)


async def _plan_check(check: Check, trace: Trace, plan: dry_run.Plan) -> None:
    """The check's calls as it declares them (Check.model_calls). It runs in dry-run mode
    so the client counts each prompt's tokens and finds cached answers; a call that the
    dry trace cannot reach (a value only the target's answer holds) is still counted."""
    declared = check.model_calls()
    if declared.calls <= 0:
        return
    before = {name: (m.calls + m.cached, m.prompt_tokens) for name, m in plan.models.items()}
    await _quietly(check.run(trace))
    seen, tokens = 0, 0
    for name, model in plan.models.items():
        was_seen, was_tokens = before.get(name, (0, 0))
        seen += model.calls + model.cached - was_seen
        tokens += model.prompt_tokens - was_tokens
    missing = declared.calls - seen
    if missing > 0:
        counted = plan.of(declared.model)
        per_call = tokens // seen if seen else 0
        counted.calls += missing
        counted.prompt_tokens += missing * per_call


async def _plan_interact(spec: Interact, trace: Trace, plan: dry_run.Plan) -> Trace:
    inputs = spec.inputs
    if isinstance(inputs, InputGenerator):
        if isinstance(inputs, BaseLLMGenerator):
            before = {name: (m.calls, m.prompt_tokens) for name, m in plan.models.items()}
            await _quietly(_first_turn(inputs, trace))
            for name, model in plan.models.items():
                calls, tokens = before.get(name, (0, 0))
                if model.calls > calls:  # the first turn asked this model (no cached answer)
                    model.calls += inputs.max_steps - 1
                    model.prompt_tokens += (inputs.max_steps - 1) * (model.prompt_tokens - tokens)
        return trace
    known_inputs = inputs if not callable(inputs) else ""
    outputs = spec.outputs
    known_outputs: Any = outputs if outputs is not MISSING and not callable(outputs) else ""
    if known_outputs == "" and isinstance(spec, ChatInteract) and chat_messages(inputs):
        known_outputs = chat_answer("")  # a Hub-format answer only the target could give
    return trace.model_copy(
        update={
            "interactions": [
                *trace.interactions,
                Interaction(inputs=known_inputs, outputs=known_outputs),
            ]
        }
    )


async def _first_turn(generator: BaseLLMGenerator[Any], trace: Trace) -> None:
    turns = generator(trace)
    try:
        await turns.__anext__()
    finally:
        await turns.aclose()


async def _quietly(call: Any) -> None:
    # A dry call ends the check or turn (NotSent); so may the empty answer of a target.
    with contextlib.suppress(Exception):
        await call


__all__ = ["plan_run"]
