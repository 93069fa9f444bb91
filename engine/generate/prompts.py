"""The generation prompts and the JSON Schemas their answers must follow.

Prompts are plain text made here from the agent's description, a passage or a persona,
and the scenario's place in the plan: the same command with the same seed makes the same
prompts, so a repeat is answered from the verdict cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .constants import QUESTION_TYPE_NAMES

QUESTION_TYPES: dict[str, str] = {
    "simple": "a simple question whose answer is a fact stated in the passage.",
    "complex": (
        "a complex question: paraphrase it so that it shares few words with the passage "
        "and needs the passage to be understood, not just matched word for word."
    ),
    "distracting": (
        "a question about the passage that also mentions an element of the distracting "
        "passage below; that element must not change the answer."
    ),
    "situational": (
        "a situational question: the user first describes their own circumstances in one "
        "or two sentences, then asks something the passage answers."
    ),
    "double": (
        "two distinct questions in one message, both answered by the passage; the reference "
        "answer answers both."
    ),
    "multi_context": (
        "one question whose answer needs every passage below: it links facts found in "
        "different passages, so that no passage alone answers it; the reference answer "
        "combines them."
    ),
    "out_of_scope": (
        "a question close to the passage's subject that neither the passage nor, likely, "
        "the rest of the knowledge base answers (the agent should say it does not know)."
    ),
}
assert tuple(QUESTION_TYPES) == QUESTION_TYPE_NAMES
DEFAULT_AGENT = "an AI assistant answering users' questions"
_PASSAGE_LIMIT = 6000


def _passage(text: str) -> str:
    return text if len(text) <= _PASSAGE_LIMIT else text[:_PASSAGE_LIMIT] + " [...]"


def _turns_instruction(turns: int) -> str:
    if turns <= 1:
        return 'Put the user\'s message as the only item of "turns".'
    return (
        f'"turns" holds the conversation\'s {turns} user messages in order: the first '
        f"{turns - 1} give context step by step (as a real user would, without waiting for "
        "the question), the last asks the question, which needs the earlier messages to be "
        "understood."
    )


def question_prompt(
    agent: str,
    passage: str,
    kind: str,
    turns: int,
    variant: int,
    *,
    title: str = "",
    distractor: str | None = None,
    seed: int = 0,
    related: Sequence[tuple[str, str]] = (),
    persona: str | None = None,
) -> str:
    source = "the passages together" if related else "the passage alone"
    lines = [
        "You write test questions for an AI agent, from its knowledge base.",
        f"The agent: {agent}",
        "",
        f"Write {QUESTION_TYPES[kind]}",
        f"A user of this agent would plausibly ask it. It must be answerable from {source}; "
        "the reference answer states the answer as the passages give it, in one to three "
        "sentences, without adding anything.",
        _turns_instruction(turns),
    ]
    if persona:
        lines.append(
            f"The user asking (persona): {persona} Write the user's messages as this user "
            "would (their tone, wording and mistakes); the question stays answerable."
        )
    if variant:
        lines.append(
            f"This is variant {variant + 1} for this passage: ask about a different fact than "
            "the earlier variants would (not the first thing the passage says)."
        )
    if seed:
        lines.append(f"(Variation {seed}: word the question your own way.)")
    if related:
        numbered = [(title, passage), *related]
        for number, (heading, text) in enumerate(numbered, 1):
            label = f"Passage {number} ({heading}):" if heading else f"Passage {number}:"
            lines += ["", label, _passage(text)]
    else:
        lines += ["", f"Passage ({title}):" if title else "Passage:", _passage(passage)]
    if distractor is not None:
        lines += ["", "Distracting passage:", _passage(distractor)]
    return "\n".join(lines)


def _turns_schema(turns: int) -> dict[str, Any]:
    """Exactly `turns` user messages, none empty."""
    return {
        "type": "array",
        "items": {"type": "string", "minLength": 1},
        "minItems": turns,
        "maxItems": turns,
    }


def question_schema(turns: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "turns": _turns_schema(turns),
            "reference_answer": {"type": "string", "minLength": 1},
        },
        "required": ["turns", "reference_answer"],
        "additionalProperties": False,
    }


def self_check_prompt(passage: str, turns: list[str], reference: str) -> str:
    conversation = "\n".join(f"User: {turn}" for turn in turns)
    return "\n".join(
        [
            "Check a test question before it is used.",
            "Can the last user message be answered from the passage alone (no outside "
            "knowledge), and is the reference answer what the passage says?",
            "",
            "Passage:",
            _passage(passage),
            "",
            "Conversation:",
            conversation,
            "",
            f"Reference answer: {reference}",
            "",
            'Answer "answerable": true only when both hold.',
        ]
    )


def out_of_scope_prompt(
    agent: str, passage: str, turns: int, variant: int, *, title: str = "", seed: int = 0
) -> str:
    lines = [
        "You write out-of-scope test questions for an AI agent: questions near its "
        "knowledge base that the knowledge base does not answer.",
        f"The agent: {agent}",
        "",
        f"Write {QUESTION_TYPES['out_of_scope']}",
        "A user of this agent would plausibly ask it, on the same subject as the passage, "
        'but about a fact the passage does not give. In "missing", say in one sentence what '
        "the passage leaves out that the question asks for.",
        _turns_instruction(turns),
    ]
    if variant:
        lines.append(f"This is variant {variant + 1} for this passage: ask about something else.")
    if seed:
        lines.append(f"(Variation {seed}: word the question your own way.)")
    lines += ["", f"Passage ({title}):" if title else "Passage:", _passage(passage)]
    return "\n".join(lines)


def out_of_scope_schema(turns: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "turns": _turns_schema(turns),
            "missing": {"type": "string", "minLength": 1},
        },
        "required": ["turns", "missing"],
        "additionalProperties": False,
    }


def out_of_scope_check_prompt(passages: Sequence[str], turns: list[str]) -> str:
    conversation = "\n".join(f"User: {turn}" for turn in turns)
    shown = "\n\n".join(f"Passage {i}:\n{_passage(p)}" for i, p in enumerate(passages, 1))
    return "\n".join(
        [
            "Check an out-of-scope test question: the agent's knowledge base must not answer it.",
            "Can the last user message be answered from these passages of the knowledge base "
            '(the ones closest to it)? Answer "answerable": true if they answer it, even '
            "in part; false if they do not.",
            "",
            shown,
            "",
            "Conversation:",
            conversation,
        ]
    )


SELF_CHECK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answerable": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["answerable"],
}


def topic_prompt(terms: list[str], excerpts: list[str]) -> str:
    shown = "\n".join(f"- {' '.join(e.split())[:300]}" for e in excerpts)
    return "\n".join(
        [
            "These passages of a knowledge base form one topic.",
            f"Their most telling words: {', '.join(terms)}.",
            "Excerpts:",
            shown,
            "",
            'Name the topic in one to four words (e.g. "Shipping and delivery").',
        ]
    )


TOPIC_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 60}},
    "required": ["name"],
}


def persona_prompt(
    agent: str, persona: str, rules: list[str], count: int, turns: int, batch: int, seed: int
) -> str:
    lines = [
        "You write test conversations for an AI agent: what a given kind of user sends it.",
        f"The agent: {agent}",
        f"The user (persona): {persona}",
    ]
    if rules:
        lines.append("The agent's answers must follow these rules:")
        lines += [f"- {rule}" for rule in rules]
    lines += [
        "",
        f"Write {count} different scenarios (batch {batch + 1}, seed {seed}: vary the requests, "
        "their wording and their situations; no two alike).",
        "Each: \"turns\", the user's messages in order, in the persona's voice; and "
        '"expected_behavior", one sentence saying what a good answer of the agent does for '
        "this scenario (a rule a judge can check).",
        _turns_instruction(turns).replace("the question", "the main request"),
    ]
    return "\n".join(lines)


def persona_schema(count: int, turns: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "scenarios": {
                "type": "array",
                "minItems": count,
                "maxItems": count,
                "items": {
                    "type": "object",
                    "properties": {
                        "turns": _turns_schema(turns),
                        "expected_behavior": {"type": "string", "minLength": 1},
                    },
                    "required": ["turns", "expected_behavior"],
                },
            }
        },
        "required": ["scenarios"],
    }


def preview_prompt(agent: str, persona: str) -> str:
    return "\n".join(
        [
            "You help write a test suite for an AI agent.",
            f"The agent: {agent}",
            f"A kind of user (persona): {persona}",
            "",
            'Give three sample messages this user would send the agent ("samples") and two to '
            'four rules the agent\'s answers to this user must follow ("rules"), each one '
            'checkable behaviour, e.g. "The agent stays polite."',
        ]
    )


PREVIEW_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "samples": {
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "minItems": 1,
            "maxItems": 5,
        },
        "rules": {
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "minItems": 1,
            "maxItems": 6,
        },
    },
    "required": ["samples", "rules"],
}
