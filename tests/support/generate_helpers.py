"""Shared by the generation tests: a small knowledge base and the stub as the model."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.openai_stub import GenerationAnswers, OpenAIStub, running_stub

SHIPPING = """# Shipping

## International

We ship to every country of the European Union within five business days.
Parcels to Switzerland and Norway need a customs form, which we fill in for you.

## Costs

Delivery is free for orders over fifty euros. Below that, delivery costs 4.90 euros,
and express delivery costs 12 euros whatever the amount.
"""
RETURNS = """Returns are accepted within thirty days of delivery for unused items in their box.

Refunds go back to the original payment method within ten days of the return's arrival.

Opened software and gift cards cannot be returned.
"""
WARRANTY = """<html><head><title>Warranty</title><style>p {color: red}</style></head>
<body><h1>Warranty</h1><p>Every appliance has a two-year warranty covering manufacturing
defects.</p><script>var x = 1;</script><h2>Claims</h2><p>Claims are filed online with the
order number and a photo of the defect.</p></body></html>
"""


def knowledge_base(root: Path) -> Path:
    """A folder with three topics (subfolders): shipping, returns, warranty."""
    kb = root / "kb"
    for folder, name, text in (
        ("shipping", "shipping.md", SHIPPING),
        ("returns", "returns.txt", RETURNS),
        ("warranty", "warranty.html", WARRANTY),
    ):
        (kb / folder).mkdir(parents=True, exist_ok=True)
        (kb / folder / name).write_text(text, encoding="utf-8")
    return kb


@pytest.fixture(name="model")
def model_fixture(
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[tuple[OpenAIStub, GenerationAnswers]]:
    """The stub answering generation prompts, configured as the model (environment)."""
    from checkspec.engine.llm import limits
    from checkspec.engine.llm.client import clear_cache
    from checkspec.engine.llm.endpoints import (
        set_default_embedding_model,
        set_default_generator,
    )

    with running_stub() as stub:
        answers = GenerationAnswers()
        stub.chat = answers
        monkeypatch.setenv("CHECKSPEC_MODEL", "openai/stub-model")
        monkeypatch.setenv("CHECKSPEC_API_BASE", stub.base_url)
        monkeypatch.setenv("CHECKSPEC_API_KEY", "sk-test")
        monkeypatch.delenv("CHECKSPEC_EMBEDDING_MODEL", raising=False)
        try:
            yield stub, answers
        finally:
            set_default_generator(None)
            set_default_embedding_model(None)
            limits.set_gate(None)
            clear_cache()


def generator_and_passing_judges(answers: GenerationAnswers) -> Callable[[dict[str, Any]], str]:
    """A stub chat that answers generation prompts as a model would (`answers`) and every
    judge's prompt with a pass: a generated suite then runs green against any agent."""

    def chat(body: dict[str, Any]) -> str:
        kind, answer = answers._answer(body["messages"][-1]["content"])  # noqa: SLF001
        if kind == "unknown":  # a judge's prompt
            return json.dumps({"passed": True, "reason": "the answer is fine"})
        return json.dumps(answer)

    return chat
