"""A stand-in model for generation peers (RAGET, DeepEval, Ragas): valid answers to any
prompt, after a fixed latency, with requests and the most in flight counted.

Each peer asks for its own shapes, so the stand-in answers from what the request says:
the JSON Schema of `response_format` (OpenAI structured output), else a JSON Schema
written in the prompt (Ragas' prompts carry one), else the last JSON object the prompt
shows as an example (RAGET's prompts do), refilled with words of the prompt; else a
sentence of the prompt. Embeddings are 64 numbers made from the text's words.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from typing import Any

_WORDS = re.compile(r"[A-Za-z][A-Za-z'-]{2,}")
_SCHEMA_MARKERS = ("JSON Schema", "json schema", "following schema", "schema:")


class PeerStandIn:
    """The chat and embedding scripts of an OpenAIStub (tests/support/openai_stub.py)."""

    def __init__(self, latency: float, answerer: Any = None) -> None:
        self.latency = latency
        self.answerer = answerer or answer  # body -> the answer's text
        self.requests = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()

    def _enter(self) -> None:
        with self._lock:
            self.requests += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def chat(self, body: dict[str, Any]) -> str:
        self._enter()
        try:
            time.sleep(self.latency)
            return str(self.answerer(body))
        finally:
            self._leave()

    def embed(self, text: str) -> list[float]:
        # Counted by the stub per request; a batch is one request, so not counted here.
        vector = [0.0] * 64
        for word in _WORDS.findall(text.lower()):
            digest = hashlib.blake2s(word.encode(), digest_size=2).digest()
            vector[digest[0] % 64] += 1.0 + digest[1] / 255
        return vector if any(vector) else [1.0] + [0.0] * 63


def _text_of(body: dict[str, Any]) -> str:
    parts = []
    for message in body.get("messages") or ():
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "\n".join(parts)


def _sentence(text: str, salt: int = 0) -> str:
    words = _WORDS.findall(text[-3000:])
    if not words:
        return "A short answer."
    start = (salt * 7) % max(1, len(words) - 12)
    return " ".join(words[start : start + 12]).capitalize() + "."


def answer(body: dict[str, Any]) -> str:
    text = _text_of(body)
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        schema = fmt.get("json_schema", {}).get("schema") or {}
        return json.dumps(fill(schema, schema, text))
    tools = body.get("tools")
    if tools:  # a function call answered as its arguments' schema filled
        function = tools[0].get("function", {})
        schema = function.get("parameters") or {}
        return json.dumps(fill(schema, schema, text))
    schema = schema_in(text)
    if schema is not None:
        return json.dumps(fill(schema, schema, text))
    example = last_example(text)
    if example is not None:
        if isinstance(example, dict) and re.search(r"\blist of\b[^.]*JSON", text):
            example = [example, example]  # asked for a list (its own example may be broken)
        return json.dumps(refill(example, text))
    if fmt.get("type") == "json_object" or "JSON" in text:
        return json.dumps({"answer": _sentence(text), "question": _sentence(text, 1) + "?"})
    return _sentence(text)


def _decode_at(text: str, at: int) -> Any:
    try:
        value, _ = json.JSONDecoder().raw_decode(text, at)
    except ValueError:
        return None
    return value


def schema_in(text: str) -> dict[str, Any] | None:
    """A JSON Schema written in the prompt after a marker ("... JSON Schema: {...}")."""
    for marker in _SCHEMA_MARKERS:
        at = text.find(marker)
        while at >= 0:
            brace = text.find("{", at)
            if brace < 0 or brace - at > 200:
                break
            value = _decode_at(text, brace)
            if isinstance(value, dict) and ("properties" in value or "$defs" in value):
                return value
            at = text.find(marker, at + 1)
    return None


def last_example(text: str) -> Any:
    """The last JSON object (or list of objects) the prompt shows."""
    found = None
    end = 0
    starts = [m.start() for m in re.finditer(r"[\[{]\s*\{?\s*\"", text)][-60:]
    for at in starts:
        if at < end:  # inside the example found last
            continue
        try:
            value, stop = json.JSONDecoder().raw_decode(text, at)
        except ValueError:
            continue
        if isinstance(value, dict) or (
            isinstance(value, list) and value and isinstance(value[0], dict)
        ):
            found, end = value, stop
    return found


def refill(value: Any, text: str, salt: int = 0) -> Any:
    if isinstance(value, dict):
        return {k: refill(v, text, salt + i) for i, (k, v) in enumerate(value.items())}
    if isinstance(value, list):
        return [refill(v, text, salt + i) for i, v in enumerate(value)]
    if isinstance(value, str):
        return _sentence(text, salt)
    return value


def fill(schema: Any, root: dict[str, Any], text: str, salt: int = 0, depth: int = 0) -> Any:
    """An instance of `schema` (refs into `root` resolved), strings taken from `text`."""
    if not isinstance(schema, dict) or depth > 12:
        return None
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        return fill(target, root, text, salt, depth + 1)
    for key in ("anyOf", "oneOf"):
        options = [o for o in schema.get(key) or () if o.get("type") != "null"]
        if options:
            return fill(options[0], root, text, salt, depth + 1)
    if schema.get("allOf"):
        return fill(schema["allOf"][0], root, text, salt, depth + 1)
    if schema.get("enum"):
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    extra = schema.get("additionalProperties")
    if kind == "object" and not schema.get("properties") and isinstance(extra, dict):
        # A mapping: keyed by the names the prompt gives (a persona's, say), else one key.
        # The input comes last (after the prompt's examples): its themes and names.
        listed = list(re.finditer(r'"themes":\s*(\[[^\]]*\])', text))
        after = text[listed[-1].start() :] if listed else text
        names = list(dict.fromkeys(re.findall(r'"name":\s*"([^"]+)"', after)))[:3] or ["key"]
        choices = _decode_at(listed[-1].group(1), 0) if listed else None
        if isinstance(choices, list) and choices and extra.get("type") == "array":
            return {name: [str(c) for c in choices[:2]] for name in names}
        return {name: fill(extra, root, text, salt + i, depth + 1) for i, name in enumerate(names)}
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties") or {}
        return {
            name: fill(sub, root, text, salt + i, depth + 1)
            for i, (name, sub) in enumerate(properties.items())
        }
    if kind == "array":
        low = int(schema.get("minItems", 1) or 1)
        high = int(schema.get("maxItems", max(low, 2)))
        count = max(low, min(high, 2))
        return [
            fill(schema.get("items") or {}, root, text, salt + i, depth + 1) for i in range(count)
        ]
    if kind == "integer":
        return int(schema.get("maximum", 5))  # scores: the best, so nothing is filtered out
    if kind == "number":
        return float(schema.get("minimum", 0.5))
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return _sentence(text, salt)
