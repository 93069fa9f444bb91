"""Trace and Interaction: the conversation a check looks at."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import Any, Generic, Protocol, TypeVar, get_origin

from pydantic import BaseModel, ConfigDict, Field, computed_field

from .construct import construct, fields_set_on_demand
from .exceptions import InteractionGenerationError
from .inference import parameter_hints
from .jsonpath import register_computed, register_trace_classes
from .typevars import InputType, OutputType


@fields_set_on_demand
class Interaction(BaseModel, Generic[InputType, OutputType]):
    """One exchange with the system under test."""

    model_config = ConfigDict(defer_build=True, frozen=True, arbitrary_types_allowed=True)

    inputs: InputType = Field(description="What was sent to the agent (a message, a request...).")
    outputs: OutputType = Field(description="What the agent answered.")
    metadata: dict[str, Any] = Field(
        default_factory=dict,
        description="Anything else recorded about the exchange (timing, tool calls, spies).",
    )

    def to_data(self) -> dict[str, Any]:
        return {"inputs": self.inputs, "outputs": self.outputs, "metadata": self.metadata}

    def __rich_console__(self, console: Any, options: Any) -> Iterator[str]:
        from rich.markup import escape

        yield "Inputs: " + escape(repr(self.inputs))
        yield "Outputs: " + escape(repr(self.outputs))


class InteractionGenerator(Protocol):
    """Anything that generates interactions from a trace (an InteractionSpec)."""

    def generate(self, trace: Any) -> Any: ...


@fields_set_on_demand
class Trace(BaseModel, Generic[InputType, OutputType]):
    """The interactions of a conversation so far, oldest first."""

    model_config = ConfigDict(defer_build=True, frozen=True, arbitrary_types_allowed=True)

    interactions: list[Interaction[InputType, OutputType]] = Field(default_factory=list)
    annotations: dict[str, Any] = Field(
        default_factory=dict, description="Scenario-level annotations injected at run start."
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def last(self) -> Interaction[InputType, OutputType] | None:
        """The most recent interaction (None before the first one)."""
        return self.interactions[-1] if self.interactions else None

    def _extended(self, interaction: Interaction[Any, Any]) -> Trace[Any, Any]:
        """This trace plus one interaction (the run loop's step; no validation)."""
        if type(self) is Trace:  # the usual case: built directly, not re-validated
            return construct(
                Trace,
                {
                    "interactions": [*self.interactions, interaction],
                    "annotations": self.annotations,
                },
            )
        # Subclasses (custom traces, Trace[str, str]) keep their type and extra fields.
        return self.model_copy(update={"interactions": [*self.interactions, interaction]})

    async def with_interaction(self, interaction: Any) -> Trace[Any, Any]:
        """A trace extended with one interaction, or with all a spec generates.

        A spec (anything with `generate(trace)`) is driven to exhaustion, each step
        receiving the updated trace; if it fails, InteractionGenerationError carries
        the progress made (`partial_trace`) and the error as its cause.
        """
        if isinstance(interaction, Interaction):
            return self._extended(interaction)
        trace: Trace[Any, Any] = self
        generator = None
        try:
            generator = interaction.generate(self)
            trace = await trace.with_interaction(await anext(generator))
            while True:
                trace = await trace.with_interaction(await generator.asend(trace))
        except StopAsyncIteration:
            return trace
        except InteractionGenerationError:
            raise  # a nested spec already kept the (larger) partial trace
        except Exception as error:
            raise InteractionGenerationError(trace) from error
        finally:
            if generator is not None:
                await generator.aclose()

    async def with_interactions(self, *interactions: Any) -> Trace[Any, Any]:
        """A trace extended with every interaction or spec given, in order."""
        trace: Trace[Any, Any] = self
        for interaction in interactions:
            trace = await trace.with_interaction(interaction)
        return trace

    @classmethod
    async def from_interactions(cls, *interactions: Any) -> Trace[Any, Any]:
        """A new trace of this type made of the given interactions and specs."""
        return await cls().with_interactions(*interactions)

    @classmethod
    def for_target(cls, target: Any) -> Trace[Any, Any]:
        """An empty trace of the type the target's second parameter is annotated with."""
        trace_type = infer_trace_type(target)
        return cls() if trace_type is None else trace_type()

    def to_data(self) -> dict[str, Any]:
        """The dumped form JSONPath sees (`trace.interactions`, `trace.last`, ...)."""
        interactions = [i.to_data() if isinstance(i, Interaction) else i for i in self.interactions]
        data = _plain(
            {
                "interactions": interactions,
                "annotations": self.annotations,
            }
        )
        data["last"] = data["interactions"][-1] if data["interactions"] else None
        return data

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        from rich.rule import Rule

        for index, interaction in enumerate(self.interactions):
            yield Rule(f"Interaction {index + 1}", style="bold")
            if isinstance(interaction, Interaction):
                yield from interaction.__rich_console__(console, options)


def _plain(value: Any) -> Any:
    """Pydantic models inside outputs become dicts, as a model_dump would make them."""
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


# The third type parameter of checks, specs and scenarios: the trace class they read.
TraceType = TypeVar("TraceType", bound=Trace)

register_computed(Trace, "last")
register_trace_classes(Trace, Interaction)


def infer_trace_type(target: object) -> Any:
    """The annotation of the target's second parameter if it is a Trace type, else None."""
    hints = parameter_hints(target)
    if len(hints) < 2:
        return None
    second = next(islice(hints.values(), 1, None))
    origin = get_origin(second) or second
    try:
        if isinstance(origin, type) and issubclass(origin, Trace):
            return second
    except TypeError:
        pass
    return None
