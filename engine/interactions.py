"""Interaction specs: how a scenario step produces interactions.

A spec's `generate(trace)` is an async generator (the reference protocol): it yields
`Interaction`s and receives the updated trace after each (`asend`), so later inputs can
depend on earlier answers. `Interact` (kind `interact`, the default) has inputs and
outputs: inputs are a value, a callable, a (sync or async) generator function or an
input generator (a simulated user); outputs are a value or a callable. Outputs that
are a plain value are a recorded answer, replayed when the scenario runs without a
target. `WithSpy` wraps another spec and records the calls made to a patched function.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, Callable
from typing import Any, ClassVar, Generic

from pydantic import Field, SerializeAsAny, field_validator

from .capture import target_call, with_captured
from .core.check import ANY_KIND_MARKER, KindModel
from .core.construct import construct
from .core.exceptions import InteractionGenerationError
from .core.inference import infer_input_type
from .core.inference import infer_input_type as _infer_input_type  # noqa: F401 (reference name)
from .core.injection import call_injected
from .core.input_generator import InputGenerator
from .core.sentinel import MISSING
from .core.trace import Interaction, Trace, TraceType
from .core.typevars import InputType, OutputType

Target = Callable[..., Any]


class NoOutputError(ValueError):
    """An interaction has no recorded output and the scenario has no target."""


_NO_OUTPUT = (
    "Interaction outputs are not provided and no target was bound: this interaction has "
    "no recorded 'outputs' and the scenario has no target to call"
)


class InteractionSpec(KindModel, Generic[InputType, OutputType, TraceType]):
    """Base of the interaction specs of a scenario step.

    Subclasses implement `generate(trace)`: an async generator yielding interactions
    and receiving the updated trace after each one.
    """

    _registry: ClassVar[dict[str, type[KindModel]]] = {}

    @classmethod
    def _default_kind(cls) -> str | None:
        return "interact"

    def generate(self, trace: Any) -> AsyncGenerator[Interaction[Any, Any], Any]:
        raise NotImplementedError

    async def _extend(self, trace: Trace[Any, Any], target: Target | None) -> Trace[Any, Any]:
        """The trace with this spec's interactions (the run loop's entry point).

        `target` answers interactions without outputs of their own; on failure,
        InteractionGenerationError carries the progress made.
        """
        return await trace.with_interaction(self)


def _inputs_schema() -> dict[str, Any]:
    """Any value, but an object whose kind is an input generator's must be a valid one.

    Built when a schema is generated, once every input generator is registered; the
    marker becomes the union of their kinds (schema_gen).
    """
    kinds = sorted(InputGenerator.kinds())
    generator_kind = {
        "type": "object",
        "required": ["kind"],
        "properties": {"kind": {"enum": kinds}},
    }
    return {"anyOf": [{ANY_KIND_MARKER: "InputGenerator"}, {"not": generator_kind}]}


async def call_flexible(fn: Callable[..., Any], *args: Any, thread: bool = False) -> Any:
    """Call fn with as many of `args` as it accepts (inputs, trace); await if needed."""
    values = dict(zip(("inputs", "trace"), args, strict=False))
    if len(args) > 2:  # pragma: no cover - not used with more
        values.update({f"arg{i}": a for i, a in enumerate(args[2:])})
    return await call_injected(fn, values, thread=thread)


async def _inputs_of(inputs: Any, trace: Any, input_type: Any) -> AsyncGenerator[Any, Any]:
    """The inputs as an async generator: a value once, or what a callable produces."""
    if not callable(inputs):
        return _once(inputs)
    produced = await call_injected(inputs, {"trace": trace, "input_type": input_type})
    if inspect.isasyncgen(produced):
        return produced
    if inspect.isgenerator(produced):
        return _from_sync(produced)
    return _once(produced)


async def _once(value: Any) -> AsyncGenerator[Any, Any]:
    yield value


async def _from_sync(generator: Any) -> AsyncGenerator[Any, Any]:
    try:
        sent = yield next(generator)
        while True:
            sent = yield generator.send(sent)
    except StopIteration:
        return
    finally:
        generator.close()


@InteractionSpec.register("interact")
class Interact(InteractionSpec[InputType, OutputType, TraceType]):
    """One exchange (or several, when inputs is a generator): inputs and outputs."""

    inputs: Any = Field(
        description=(
            "What is sent to the agent: a value, fn(trace), a generator of inputs, or an "
            "input generator such as a simulated user ({kind: user_simulator, persona: ...})."
        ),
        json_schema_extra=lambda schema: schema.update(_inputs_schema()),
    )
    outputs: Any | MISSING = Field(
        default=MISSING,
        description=(
            "The answer: a recorded value (replayed when there is no target), or "
            "fn(inputs) / fn(inputs, trace), sync or async."
        ),
    )
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="Metadata attached to the interaction."
    )

    @field_validator("inputs", mode="before")
    @classmethod
    def _input_generator(cls, inputs: Any) -> Any:
        # `{kind: user_simulator, persona: ...}` in a file is a simulated user, not a
        # literal input (a dict whose kind is not an input generator's stays a dict).
        if type(inputs) is dict and InputGenerator.kind_class(inputs.get("kind")) is not None:
            return InputGenerator.model_validate(inputs)
        return inputs

    def set_outputs(self, outputs: Any) -> Interact[Any, Any, Any]:
        """Set the outputs (e.g. bind a target); returns self for chaining."""
        self.outputs = outputs
        return self

    def generate(self, trace: Any) -> AsyncGenerator[Interaction[Any, Any], Any]:
        return self._generate(trace, None)

    async def _generate(
        self, trace: Any, target: Target | None
    ) -> AsyncGenerator[Interaction[Any, Any], Any]:
        answer = self.outputs if callable(self.outputs) else target
        input_type = infer_input_type(answer) if answer is not None else None
        inputs = await _inputs_of(self.inputs, trace, input_type)
        try:
            value = await anext(inputs)
            while True:
                interaction = await self._answer(value, trace, target)
                trace = yield interaction
                value = await inputs.asend(trace)
        except StopAsyncIteration:
            return
        finally:
            await inputs.aclose()

    async def _answer(
        self, inputs: Any, trace: Any, target: Target | None
    ) -> Interaction[Any, Any]:
        outputs = self.outputs
        captured = None
        if callable(outputs):
            with target_call() as captured:
                outputs = await call_injected(outputs, {"inputs": inputs, "trace": trace})
        elif target is not None:
            # A target (scenario or run) answers even where outputs were recorded: the
            # recordings are what a run without a target replays.
            with target_call() as captured:
                outputs = await call_flexible(target, inputs, trace, thread=True)
        elif outputs is MISSING:
            raise NoOutputError(_NO_OUTPUT)
        return _answered(inputs, outputs, dict(self.metadata), captured)

    async def _extend(self, trace: Trace[Any, Any], target: Target | None) -> Trace[Any, Any]:
        inputs = self.inputs
        if callable(inputs):  # possibly several interactions: drive the generator
            return await trace.with_interaction(_Bound(self, target))
        outputs = self.outputs
        if target is None and outputs is not MISSING and not callable(outputs):
            # A recorded exchange replayed: the common case, built directly.
            if isinstance(outputs, Interaction):
                return trace._extended(outputs)  # noqa: SLF001 (interaction specs of this module)
            return trace._extended(  # noqa: SLF001 (interaction specs of this module)
                construct(
                    Interaction,
                    {"inputs": inputs, "outputs": outputs, "metadata": dict(self.metadata)},
                )
            )
        return trace._extended(await self._answer(inputs, trace, target))  # noqa: SLF001


def chat_messages(inputs: Any) -> list[Any] | None:
    """The messages of a Hub-format (chat) input, `{"messages": [...]}`; else None."""
    if isinstance(inputs, dict):
        messages = inputs.get("messages")
        if isinstance(messages, list):
            return messages
    return None


def last_user_text(messages: list[Any]) -> str:
    """The content of the last user message (else of the last message): what a plain
    `str -> str` target is given for a chat input."""
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return str(message.get("content") or "")
    last = messages[-1] if messages else None
    return str(last.get("content") or "") if isinstance(last, dict) else ""


def chat_answer(text: str) -> dict[str, Any]:
    """A plain answer read as a Hub-format output (`trace.last.outputs.response.content`)."""
    return {"response": {"role": "assistant", "content": text}}


def wants_text(target: Any) -> bool:
    """Whether a target takes its input as a plain string (first parameter `str`).
    Targets from `resolve_target` carry the input type of the function they call."""
    found = getattr(target, "input_type", MISSING)
    if found is MISSING:
        found = infer_input_type(target)
    return found is str


class ChatInteract(Interact[InputType, OutputType, TraceType]):
    """One turn of a dataset row (the Hub format), met with any target (docs/decisions.md,
    "A Hub-format row meets a plain target"):

    - a chat input (`{"messages": [...]}`) goes to a target whose first parameter is a
      `str` as the text of its last user message; any other target (a chat function, an
      HTTP endpoint) gets the row's input as written;
    - a plain-string answer is read as the response content, `{"response": {"role":
      "assistant", "content": ...}}`; an object answer is kept as it is.

    The trace keeps the row's input (the conversation), so checks read what the file says.
    Not a kind of its own: only the dataset reader makes it.
    """

    async def _answer(
        self, inputs: Any, trace: Any, target: Target | None
    ) -> Interaction[Any, Any]:
        messages = chat_messages(inputs)
        if target is None or callable(self.outputs) or messages is None:
            return await super()._answer(inputs, trace, target)
        sent = last_user_text(messages) if wants_text(target) else inputs
        with target_call() as captured:
            outputs = await call_flexible(target, sent, trace, thread=True)
        if isinstance(outputs, str):
            outputs = chat_answer(outputs)
        return _answered(inputs, outputs, dict(self.metadata), captured)


def _answered(
    inputs: Any, outputs: Any, metadata: dict[str, Any], captured: dict[str, Any] | None
) -> Interaction[Any, Any]:
    """The interaction of an answer, with what was captured of its call (capture: otel)
    under the metadata the spec or the answer gives."""
    if isinstance(outputs, Interaction):  # an answer may be a full interaction
        if not captured:
            return outputs
        merged = with_captured(dict(outputs.metadata), captured, outputs.outputs)
        return outputs.model_copy(update={"metadata": merged})
    return construct(
        Interaction,
        {
            "inputs": inputs,
            "outputs": outputs,
            "metadata": with_captured(metadata, captured, outputs),
        },
    )


class _Bound:
    """A spec with the run's target, seen as a spec by Trace.with_interaction."""

    __slots__ = ("spec", "target")

    def __init__(self, spec: Any, target: Target | None) -> None:
        self.spec = spec
        self.target = target

    def generate(self, trace: Any) -> AsyncGenerator[Interaction[Any, Any], Any]:
        return self.spec._generate(trace, self.target)  # noqa: SLF001 (interaction specs of this module)


@InteractionSpec.register("with_spy")
class WithSpy(InteractionSpec[InputType, OutputType, TraceType]):
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

    def generate(self, trace: Any) -> AsyncGenerator[Interaction[Any, Any], Any]:
        return self._generate(trace, None)

    async def _generate(
        self, trace: Any, target: Target | None
    ) -> AsyncGenerator[Interaction[Any, Any], Any]:
        # unittest.mock is imported here: only spies need it, and it is a large import.
        from unittest.mock import MagicMock, patch

        inner = self.interaction_generator
        spy = MagicMock()
        with patch(self.target, spy):
            # Specs of ours take the run's target; others only know generate(trace).
            generator = (
                inner._generate(trace, target)  # noqa: SLF001 (interaction specs of this module)
                if hasattr(inner, "_generate")
                else inner.generate(trace)
            )
            try:
                trace = yield self._recorded(await anext(generator), spy)
                while True:
                    trace = yield self._recorded(await generator.asend(trace), spy)
            except StopAsyncIteration:
                return
            finally:
                await generator.aclose()

    def _recorded(self, interaction: Interaction[Any, Any], spy: Any) -> Interaction[Any, Any]:
        calls = {
            "call_count": spy.call_count,
            "call_args": spy.call_args,
            "call_args_list": list(spy.call_args_list),
            "mock_calls": list(spy.mock_calls),
        }
        spy.reset_mock()
        return Interaction.model_construct(
            inputs=interaction.inputs,
            outputs=interaction.outputs,
            metadata={**interaction.metadata, self.target: calls},
        )

    async def _extend(self, trace: Trace[Any, Any], target: Target | None) -> Trace[Any, Any]:
        return await trace.with_interaction(_Bound(self, target))


__all__ = [
    "ChatInteract",
    "Interact",
    "InteractionGenerationError",
    "InteractionSpec",
    "NoOutputError",
    "Target",
    "WithSpy",
    "call_flexible",
    "chat_answer",
    "chat_messages",
    "last_user_text",
    "wants_text",
]
