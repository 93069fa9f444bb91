"""What a run would ask of its models, found without sending anything (`--dry-run`).

Nothing of the user's runs either: no target is called, no `fn` check or input function
runs. Each step's trace is what the file says (recorded outputs; an answer only the
target could give is empty), and on it each model-calling check and LLM input generator
of the scenario asks the client in dry-run mode (llm/dry_run.py), which counts the call
or the cached answer. A generator counts its first turn `max_steps` times: an upper bound
in calls, a lower one in tokens (later turns carry the conversation). Every check and
step is counted, as if none stopped the conversation: an upper bound.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any

from ..core.input_generator import InputGenerator
from ..core.sentinel import MISSING
from ..core.trace import Interaction, Trace
from ..generators.base import BaseLLMGenerator
from ..interactions import Interact
from ..judges.base import BaseLLMCheck
from ..judges.semantic_similarity import SemanticSimilarity
from ..llm import dry_run
from .scenario import Scenario

_MODEL_CHECKS = (BaseLLMCheck, SemanticSimilarity)


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
            if isinstance(check, _MODEL_CHECKS):
                await _quietly(check.run(trace))


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
    known_outputs = outputs if outputs is not MISSING and not callable(outputs) else ""
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
