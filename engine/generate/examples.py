""" "More like these": chosen scenarios as the examples of a new batch.

The scenarios come from the one selection language (`--like` takes what `run` takes:
files, folders, FILE::NAME, FILE::#INDEX, narrowed by --query/--tag/--status), chosen by
the front end; here they are plain parsed values, of a dataset (`interactions:`) or a
suite or scenario file (`steps: [{interacts: ...}]`). Their user messages describe the
kind of user (a persona made of examples); their conformity rules are kept as the new
scenarios' rules.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .presets import PresetSpec, tag_slug

MAX_EXAMPLES = 8
MAX_RULES = 6


def _text_of(value: Any) -> str | None:
    """The user's text of one turn: a string, or the last message of `{messages: [...]}`."""
    if isinstance(value, dict):
        messages = value.get("messages")
        if isinstance(messages, list) and messages and isinstance(messages[-1], dict):
            content = messages[-1].get("content")
            return content if isinstance(content, str) else None
        return None
    return value if isinstance(value, str) else None


def _turns(record: dict[str, Any]) -> Iterator[tuple[Any, list[Any]]]:
    """(user input, checks) of each turn, in either file format."""
    for interaction in _list(record.get("interactions")):  # a dataset's record
        if isinstance(interaction, dict):
            yield interaction.get("input"), _list(interaction.get("checks"))
    for step in _list(record.get("steps")):  # a suite's or scenario file's scenario
        if not isinstance(step, dict):
            continue
        checks = _list(step.get("checks"))
        for interact in _list(step.get("interacts")):
            if isinstance(interact, dict):
                yield interact.get("inputs"), checks
                checks = []  # a step's checks once


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _rules_of(check: Any) -> list[str]:
    if not isinstance(check, dict):
        return []
    kind = check.get("identifier") or check.get("kind")
    given = check.get("params")
    params: dict[str, Any] = given if isinstance(given, dict) else check
    if kind == "hub_conformity":
        return [r for r in _list(params.get("rules")) if isinstance(r, str)]
    if kind == "conformity" and isinstance(params.get("rule"), str):
        return [params["rule"]]
    return []


def preset_like(records: Sequence[Any], label: str) -> PresetSpec:
    """A preset whose persona is the scenarios' user messages. ValueError when none holds
    a user message to take as an example."""
    examples: list[str] = []
    rules: list[str] = []
    for record in records:
        if not isinstance(record, dict):
            continue
        texts: list[str] = []
        for given, checks in _turns(record):
            text = _text_of(given)
            if text and text.strip():
                texts.append(text)
            for rule in (r for check in checks for r in _rules_of(check)):
                if rule not in rules and len(rules) < MAX_RULES:
                    rules.append(rule)
        if texts and len(examples) < MAX_EXAMPLES:
            examples.append(" / ".join(" ".join(t.split()) for t in texts))
    if not examples:
        raise ValueError(f"{label}: holds no scenario with a user message to take as an example")
    description = "Users like those who sent these messages (one scenario per line):\n" + "\n".join(
        f"- {e[:400]}" for e in examples
    )
    return PresetSpec(f"like {label}", description, tuple(rules), like_tag(label))


def like_tag(label: str) -> str:
    """The scenarios' tag for `--like` selectors: `like:<file stem>` (`like:tone` for
    `suites/tone.suite.yaml::angry customer`), stems joined by `+`; words that name no
    file (a scenario name's) are left out."""
    stems: list[str] = []
    for token in label.split():
        given = token.split("::", 1)[0]
        if not given or not Path(given).exists():
            continue
        path = Path(given)
        stem = tag_slug(path.name.split(".")[0] or path.name)
        if stem not in stems:
            stems.append(stem)
    return "like:" + ("+".join(stems) if stems else tag_slug(label))
