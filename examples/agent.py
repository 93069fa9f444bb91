"""A tiny support agent for the example workspace (no model, deterministic)."""

from __future__ import annotations

from typing import Any

KEYWORDS = {
    "refund": ("refund", "return"),
    "shipping": ("ship", "deliver"),
    "hours": ("hour", "open"),
}
POLICY = {
    "refund": "We offer a 30-day refund on unused items. Start a return from your orders page.",
    "shipping": "We ship within the EU in 3-5 business days. We do not ship outside the EU.",
    "hours": "Support is open Monday to Friday, 9:00-18:00 CET.",
}


def answer(question: str) -> str:
    """Answer a plain-text question (used by the scenario and suite)."""
    text = question.lower()
    for topic, words in KEYWORDS.items():
        if any(word in text for word in words):
            return POLICY[topic]
    return "Sorry, I can only help with refunds, shipping and opening hours."


def chat(inputs: dict[str, Any]) -> dict[str, Any]:
    """The same agent in the chat format of datasets: messages in, response + metadata out."""
    question = inputs["messages"][-1]["content"]
    reply = answer(question)
    topic = next((t for t in POLICY if POLICY[t] == reply), "other")
    return {
        "response": {"role": "assistant", "content": reply},
        "metadata": {"category": topic, "score": 0.9 if topic != "other" else 0.2},
    }
