"""Dataset specifics: the default chat-format schemas and scenario naming."""

from __future__ import annotations

from typing import Any

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
