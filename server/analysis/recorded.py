"""The recorded conversation of a scenario, read from the file (nothing is run).

Scenario files record answers as `outputs` of `interacts`, datasets as `output` of
`interactions`. Completion offers the keys found there after `trace.last.outputs.`, and
hover resolves a JSONPath on them when replaying would use exactly these values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from checkspec.engine.core.sentinel import MISSING
from checkspec.engine.core.trace import Interaction, Trace
from checkspec.engine.spec.document import Document
from checkspec.engine.spec.kinds import FileKind
from checkspec.engine.spec.tree import Key, Node
from checkspec.engine.spec.workspace import Workspace


@dataclass(frozen=True)
class RecordedInteraction:
    step: int
    inputs: Any
    outputs: Any  # MISSING when nothing is recorded
    metadata: dict[str, Any]
    spied: bool = False  # `with_spy` adds call records at run time

    def as_data(self) -> dict[str, Any]:
        """What `trace.interactions[i]` shows of it."""
        outputs = None if self.outputs is MISSING else self.outputs
        return {"inputs": self.inputs, "outputs": outputs, "metadata": self.metadata}


@dataclass(frozen=True)
class RecordedScenario:
    """The interactions a check at some step sees, and whether a run would replay them."""

    interactions: tuple[RecordedInteraction, ...]  # up to and including the step
    annotations: dict[str, Any]
    target: str | None  # the target a run would call instead of replaying
    step: int | None  # the step the position is in (None: anywhere in the scenario)

    def why_not_replayable(self) -> str | None:
        """Why resolving on recorded data would not show what a run sees (None: it would)."""
        if self.target:
            return f"this scenario calls its target `{self.target}` when it runs"
        for interaction in self.interactions:
            if interaction.spied:
                return "a `with_spy` interaction records its calls only when it runs"
            if interaction.outputs is MISSING:
                return f"an interaction of step {interaction.step + 1} has no recorded outputs"
        if not self.interactions:
            return "no interaction comes before this point"
        return None

    def trace(self) -> Trace:
        """The trace a check at this step would see on replay."""
        interactions = [
            Interaction.model_construct(
                inputs=i.inputs,
                outputs=None if i.outputs is MISSING else i.outputs,
                metadata=i.metadata,
            )
            for i in self.interactions
        ]
        return Trace.model_construct(interactions=interactions, annotations=self.annotations)


def recorded_at(
    document: Document, path: Sequence[Key], workspace: Workspace | None = None
) -> RecordedScenario | None:
    """The recorded data of the scenario holding `path` (None outside any scenario)."""
    root = document.source.root
    if root is None or root.kind != "mapping" or document.kind is None:
        return None
    scenario: Node | None
    if document.kind is FileKind.SCENARIO:
        scenario, inner = root, list(path)
    elif document.kind in (FileKind.SUITE, FileKind.DATASET):
        if len(path) < 2 or path[0] != "scenarios" or not isinstance(path[1], int):
            return None
        scenario, inner = root.find(path[:2]), list(path[2:])
    else:
        return None
    if scenario is None or scenario.kind != "mapping":
        return None
    dataset = document.kind is FileKind.DATASET
    steps_key = "interactions" if dataset else "steps"
    step = inner[1] if len(inner) >= 2 and inner[0] == steps_key else None
    step = step if isinstance(step, int) else None
    interactions = _dataset_turns(scenario) if dataset else _scenario_turns(scenario)
    if step is not None:
        interactions = [i for i in interactions if i.step <= step]
    annotations = scenario.value.get("annotations")
    return RecordedScenario(
        interactions=tuple(interactions),
        annotations=annotations if isinstance(annotations, dict) else {},
        target=_target(scenario, root, workspace),
        step=step,
    )


def _scenario_turns(scenario: Node) -> list[RecordedInteraction]:
    found: list[RecordedInteraction] = []
    for step, node in enumerate(_items(scenario.get("steps"))):
        interacts = node.get("interacts") if node.kind == "mapping" else None
        for item in _items(interacts):
            if not isinstance(item.value, dict):
                continue
            spec, spied = item.value, False
            if spec.get("kind") == "with_spy":
                inner = spec.get("interaction_generator")
                spec, spied = (inner if isinstance(inner, dict) else {}), True
            found.append(
                RecordedInteraction(
                    step=step,
                    inputs=spec.get("inputs"),
                    outputs=spec.get("outputs", MISSING),
                    metadata=_mapping(spec.get("metadata")),
                    spied=spied,
                )
            )
    return found


def _dataset_turns(scenario: Node) -> list[RecordedInteraction]:
    found: list[RecordedInteraction] = []
    for step, node in enumerate(_items(scenario.get("interactions"))):
        if isinstance(node.value, dict):
            value = node.value
            found.append(
                RecordedInteraction(
                    step=step,
                    inputs=value.get("input"),
                    outputs=value.get("output", MISSING),
                    metadata={},
                )
            )
    return found


def _target(scenario: Node, root: Node, workspace: Workspace | None) -> str | None:
    # A scenario's own target wins over its suite's or dataset's, then the workspace's.
    for node in (scenario, root):
        target = node.value.get("target") if isinstance(node.value, dict) else None
        if isinstance(target, str) and target:
            return target
    return workspace.config.target if workspace is not None else None


def _items(node: Node | None) -> Sequence[Node]:
    return node.items if node is not None and node.kind == "sequence" else []


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
