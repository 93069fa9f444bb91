"""Trace and Interaction: the conversation a check looks at."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, computed_field

from .construct import construct
from .jsonpath import register_computed, register_trace_classes


class Interaction(BaseModel):
    """One exchange with the system under test."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    inputs: Any = Field(description="What was sent to the agent (a message, a request...).")
    outputs: Any = Field(description="What the agent answered.")
    metadata: dict[str, Any] = Field(
        default_factory=dict,
        description="Anything else recorded about the exchange (timing, tool calls, spies).",
    )

    def to_data(self) -> dict[str, Any]:
        return {"inputs": self.inputs, "outputs": self.outputs, "metadata": self.metadata}


class Trace(BaseModel):
    """The interactions of a conversation so far, oldest first."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    interactions: list[Interaction] = Field(default_factory=list)
    annotations: dict[str, Any] = Field(
        default_factory=dict, description="Scenario-level annotations injected at run start."
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def last(self) -> Interaction | None:
        """The most recent interaction (None before the first one)."""
        return self.interactions[-1] if self.interactions else None

    def with_interaction(self, interaction: Interaction) -> Trace:
        # Constructed, not validated: the interaction is already validated.
        return construct(
            Trace,
            {"interactions": [*self.interactions, interaction], "annotations": self.annotations},
        )

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


def _plain(value: Any) -> Any:
    """Pydantic models inside outputs become dicts, as a model_dump would make them."""
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


register_computed(Trace, "last")
register_trace_classes(Trace, Interaction)
