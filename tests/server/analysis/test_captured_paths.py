"""Completion of `trace.` paths offers what `capture: otel` records, in a workspace that
captures: the keys under an interaction's metadata, and those of each tool and model
call; a workspace that does not capture is offered only what the scenario recorded."""

from __future__ import annotations

import pytest

from checkspec.engine.catalog import CAPTURED_METADATA
from checkspec.engine.spec.workspace import Workspace
from checkspec.engine.spec.workspace_config import WorkspaceConfig
from tests.support.analysis import SCENARIO, items, labels

CAPTURING = Workspace(config=WorkspaceConfig(capture="otel"))
CAPTURED = [key.name for key in CAPTURED_METADATA]


def offered(typed: str, workspace: Workspace) -> list[str]:
    text = SCENARIO.replace("trace.last.outputs.nope", typed)
    return labels(items(text, f"{typed}\n", offset=len(typed), workspace=workspace))


def test_metadata_offers_the_recorded_keys_then_the_captured_ones() -> None:
    found = offered("trace.last.metadata.", CAPTURING)
    # The scenario recorded latency_ms: offered once, first, as recorded.
    assert found == ["latency_ms", *[name for name in CAPTURED if name != "latency_ms"]]
    assert "tools_called" in found and "tool_calls" in found and "token_count" in found


ITEM_KEYS = {key.name: list(key.item_keys) for key in CAPTURED_METADATA}


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("trace.interactions[0].metadata.", ["latency_ms", *CAPTURED[:5], *CAPTURED[6:]]),
        ("trace.last.metadata.tool_calls[0].", ["name", "arguments", "result", "error"]),
        ("trace.interactions[-1].metadata.model_calls[0].", ITEM_KEYS["model_calls"]),
        ("trace.last.metadata.retrieved_docs[0].", ["content", "id", "score", "metadata"]),
        ("trace.last.metadata.tools_called[0].", []),
    ],
)
def test_captured_records_offer_their_keys(typed: str, expected: list[str]) -> None:
    assert offered(typed, CAPTURING) == expected


def test_a_workspace_without_capture_is_offered_only_what_was_recorded() -> None:
    assert offered("trace.last.metadata.", Workspace()) == ["latency_ms"]
    assert offered("trace.last.metadata.tool_calls[0].", Workspace()) == []
    assert offered("trace.last.outputs.", CAPTURING) == ["answer", "score", "details"]
