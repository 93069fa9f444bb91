"""Dataset specifics: the default chat-format schemas and scenario naming."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..core.comments import ScenarioComment
from ..targets import TargetText

# hub-datasets-and-checks: without input_schema/output_schema a dataset is in the
# conversational format: {"messages": [...]} in, {"response": {...}, "metadata"} out.
_MESSAGE = {
    "type": "object",
    "required": ["role", "content"],
    "properties": {
        "role": {"enum": ["system", "user", "assistant", "tool", "developer"]},
        "content": {"type": ["string", "null"]},
    },
}
CHAT_INPUT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["messages"],
    "properties": {"messages": {"type": "array", "minItems": 1, "items": _MESSAGE}},
}
CHAT_OUTPUT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["response"],
    "properties": {
        "response": _MESSAGE,
        "metadata": {"type": "object"},
    },
}


def record_name(first_input: Any, fallback: str, limit: int = 60) -> str:
    """A readable scenario name: the first user message, shortened."""
    text: Any = None
    if isinstance(first_input, dict):
        messages = first_input.get("messages")
        if isinstance(messages, list) and messages and isinstance(messages[-1], dict):
            text = messages[-1].get("content")
    elif isinstance(first_input, str):
        text = first_input
    if not isinstance(text, str) or not text.strip():
        return fallback
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class DatasetCheck(BaseModel):
    """A check of a dataset interaction: a built-in or custom identifier and its params."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    identifier: str = Field(
        description="Check identifier (built-in, or custom_ from checkspec.yaml)."
    )
    params: dict[str, Any] = Field(default_factory=dict, description="The check's parameters.")
    name: str | None = Field(default=None, description="Optional name shown in results.")
    enabled: bool = Field(default=True, description="false: runs skip the check.")
    expect: Literal["pass", "fail"] | None = Field(
        default=None,
        description=(
            "A person's verdict on the recorded output (pass or fail), which "
            "`checkspec calibrate` compares with the judge's; only on checks that call a model."
        ),
    )


class DatasetInteraction(BaseModel):
    """One turn: the input sent to the agent, an optional recorded output, its checks."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    input: Any = Field(description="Input in the dataset's input_schema (chat: {messages: [...]}).")
    output: Any = Field(
        default=None,
        description="Recorded output (chat: {response: {...}, metadata}); replayed without a target.",
    )
    checks: list[DatasetCheck] = Field(default_factory=list, description="Checks of this turn.")


class DatasetScenario(BaseModel):
    """One scenario record (in .jsonl files, one per line)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    name: str | None = Field(default=None, description="Name; defaults to the first message.")
    description: str | None = Field(default=None, description="What the scenario tests.")
    tags: list[str] = Field(default_factory=list, description="Labels for filtering runs.")
    interactions: list[DatasetInteraction] = Field(
        min_length=1, description="The turns of the conversation, in order."
    )
    annotations: dict[str, Any] = Field(
        default_factory=dict, description="Values injected as trace.annotations."
    )
    status: Literal["active", "draft"] | None = Field(
        default=None,
        description="draft: not run by `checkspec run` unless --include-drafts (e.g. generated).",
    )
    comments: list[ScenarioComment] = Field(
        default_factory=list, description="Review comments (`checkspec comment`); never run."
    )


class DatasetFile(BaseModel):
    """A dataset: named scenarios in the hub format, with input/output schemas."""

    model_config = ConfigDict(defer_build=True, extra="forbid", populate_by_name=True)

    name: str = Field(description="Dataset name.")
    description: str | None = Field(default=None, description="What the dataset covers.")
    input_schema: dict[str, Any] | None = Field(
        default=None, description="JSON Schema of each interaction's input (default: chat)."
    )
    output_schema: dict[str, Any] | None = Field(
        default=None, description="JSON Schema of each recorded output (default: chat)."
    )
    target: TargetText = Field(
        default=None, description="The agent: python:module:function or an http(s) URL."
    )
    tags: list[str] = Field(default_factory=list, description="Tags added to every scenario.")
    scenarios: list[DatasetScenario] = Field(description="The scenarios.")
