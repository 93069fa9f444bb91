""" "More like these": a dataset's own scenarios as the examples of a new batch.

The examples' user messages describe the kind of user (a persona made of examples); the
rules of their `hub_conformity` checks are kept as the new scenarios' rules.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .presets import PresetSpec

MAX_EXAMPLES = 8


def _user_text(interaction: Any) -> str | None:
    value = interaction.get("input") if isinstance(interaction, dict) else None
    if isinstance(value, dict):
        messages = value.get("messages")
        if isinstance(messages, list) and messages and isinstance(messages[-1], dict):
            content = messages[-1].get("content")
            return content if isinstance(content, str) else None
    return value if isinstance(value, str) else None


def _records(path: Path) -> list[Any]:
    import json

    import yaml

    text = path.read_text(encoding="utf-8")
    if path.name.lower().endswith(".jsonl"):
        found = []
        for line in text.splitlines():
            if line.strip():
                try:
                    found.append(json.loads(line))
                except (ValueError, RecursionError):  # not JSON, or nested past the stack
                    continue
        return found
    data = yaml.safe_load(text)
    scenarios = data.get("scenarios") if isinstance(data, dict) else None
    return scenarios if isinstance(scenarios, list) else []


def preset_like(path: Path) -> PresetSpec:
    """A preset whose persona is the dataset's example messages. ValueError when the file
    holds no usable example."""
    try:
        records = _records(path)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{path}: cannot be read as a dataset ({exc})") from None
    except RecursionError:
        raise ValueError(f"{path}: cannot be read as a dataset (nested too deeply)") from None
    examples: list[str] = []
    rules: list[str] = []
    for record in records:
        interactions = record.get("interactions") if isinstance(record, dict) else None
        if not isinstance(interactions, list) or not interactions:
            continue
        turns = [t for t in (_user_text(i) for i in interactions) if t]
        if turns and len(examples) < MAX_EXAMPLES:
            examples.append(" / ".join(" ".join(t.split()) for t in turns))
        for interaction in interactions:
            for check in (interaction.get("checks") or []) if isinstance(interaction, dict) else []:
                if isinstance(check, dict) and check.get("identifier") == "hub_conformity":
                    for rule in (check.get("params") or {}).get("rules") or []:
                        if isinstance(rule, str) and rule not in rules and len(rules) < 6:
                            rules.append(rule)
    if not examples:
        raise ValueError(f"{path}: holds no scenario with a user message to take as an example")
    description = "Users like those who sent these messages (one scenario per line):\n" + "\n".join(
        f"- {e[:400]}" for e in examples
    )
    return PresetSpec(f"like {path.name}", description, tuple(rules))
