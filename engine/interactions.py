"""Interaction specs: how a scenario step produces interactions.

`Interact` (kind `interact`, the default) has inputs and outputs; each may be a
value, or a sync/async callable. Outputs that are a plain value are a recorded
answer, replayed when the scenario runs without a target. `WithSpy` wraps another
spec and records the calls made to a patched function.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import Field, SerializeAsAny, field_validator

from .core.check import KindModel
from .core.construct import construct
from .core.sentinel import MISSING
from .core.trace import Interaction, Trace

Target = Callable[..., Any]


class NoOutputError(RuntimeError):
    """An interaction has no recorded output and the scenario has no target."""


class InteractionSpec(KindModel):
    """Base of the interaction specs of a scenario step."""

    _registry: ClassVar[dict[str, type[KindModel]]] = {}

    @classmethod
    def _default_kind(cls) -> str | None:
        return "interact"

    async def generate(self, trace: Trace, target: Target | None) -> list[Interaction]:
        raise NotImplementedError


async def call_flexible(fn: Callable[..., Any], *args: Any, thread: bool = False) -> Any:
    """Call fn with as many of `args` as it accepts (inputs, trace); await if needed.

    With `thread`, a synchronous fn runs in a worker thread so a slow agent does not
    stall the other scenarios of a concurrent run.
    """
    try:
        params = inspect.signature(fn).parameters.values()
        variadic = any(p.kind is p.VAR_POSITIONAL for p in params)
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        count = len(args) if variadic else min(len(positional), len(args))
    except (TypeError, ValueError):  # builtins without a signature
        count = 1
    call_args = args[:count]
    if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004 - async callable objects
    ):
        return await fn(*call_args)
    result = await asyncio.to_thread(fn, *call_args) if thread else fn(*call_args)
    if inspect.isawaitable(result):
        result = await result
    return result


@InteractionSpec.register("interact")
class Interact(InteractionSpec):
    """One exchange: inputs (value or callable of the trace) and outputs."""

    inputs: Any = Field(description="What is sent to the agent: a value, or fn(trace).")
    outputs: Any | MISSING = Field(  # type: ignore[valid-type]
        default=MISSING,
        description=(
            "The answer: a recorded value (replayed when there is no target), or "
            "fn(inputs) / fn(inputs, trace), sync or async."
        ),
    )
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="Metadata attached to the interaction."
    )

    async def generate(self, trace: Trace, target: Target | None) -> list[Interaction]:
        inputs = self.inputs
        if callable(inputs):
            inputs = await call_flexible(inputs, trace)
        metadata = dict(self.metadata)
        if callable(self.outputs):
            outputs = await call_flexible(self.outputs, inputs, trace)
        elif target is not None:
            outputs = await call_flexible(target, inputs, trace, thread=True)
        elif self.outputs is not MISSING:
            outputs = self.outputs
        else:
            raise NoOutputError(
                "this interaction has no recorded 'outputs' and the scenario has no target to call"
            )
        if isinstance(outputs, Interaction):  # a target may return a full interaction
            metadata.update(outputs.metadata)
            outputs = outputs.outputs
        return [
            construct(Interaction, {"inputs": inputs, "outputs": outputs, "metadata": metadata})
        ]


@InteractionSpec.register("with_spy")
class WithSpy(InteractionSpec):
    """Patches `target` with a MagicMock while the wrapped spec runs and records its calls."""

    interaction_generator: SerializeAsAny[InteractionSpec] = Field(
        description="The interaction spec to spy on."
    )
    target: str = Field(
        description="Import path of the function to patch, as for unittest.mock.patch.",
    )

    @field_validator("target")
    @classmethod
    def _import_path(cls, target: str) -> str:
        if target.startswith("trace.") or "." not in target:
            raise ValueError(
                f"target must be a Python import path like 'myapp.db.fetch_item' "
                f"(what unittest.mock.patch takes), not {target!r}"
            )
        return target

    async def generate(self, trace: Trace, target: Target | None) -> list[Interaction]:
        # unittest.mock is imported here: only spies need it, and it is a large import.
        from unittest.mock import MagicMock, patch

        spy = MagicMock()
        with patch(self.target, spy):
            produced = await self.interaction_generator.generate(trace, target)
        recorded: list[Interaction] = []
        for interaction in produced:
            calls = {
                "call_count": spy.call_count,
                "call_args": spy.call_args,
                "call_args_list": list(spy.call_args_list),
                "mock_calls": list(spy.mock_calls),
            }
            recorded.append(
                Interaction.model_construct(
                    inputs=interaction.inputs,
                    outputs=interaction.outputs,
                    metadata={**interaction.metadata, self.target: calls},
                )
            )
            spy.reset_mock()
        return recorded
