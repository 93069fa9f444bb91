"""The labelled checks of selected scenarios, and the scenario that calibrates one.

A label is a check's `expect:` (core/check.py). Calibrating it runs the scenario's steps
up to the check's, replaying their recorded answers (the target is taken away), with
only that check: checks of earlier steps, and the step-stops they could cause, are left
out, so every labelled check is judged on the trace its recorded conversation makes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..core.check import Check, nested_check_fields
from ..scenarios.scenario import Scenario, Step
from ..spec.document import Document
from ..spec.scenario_analysis import ScenarioEntry


@dataclass(frozen=True)
class Label:
    """One labelled check: where it is written and what a person said of it."""

    path: str  # the file, as the document names it
    line: int  # 1-based, the check's `kind:` / `identifier:`
    column: int  # 1-based
    scenario: str  # the scenario's name
    identity: str  # FILE::NAME or FILE::#INDEX
    step: int
    index: int
    kind: str  # the check's kind
    name: str | None  # the check's name, if it has one
    expect: str  # pass | fail
    prompt: str  # which prompt judges it (prompt_of)

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.path,
            "line": self.line,
            "column": self.column,
            "scenario": self.scenario,
            "id": self.identity,
            "step": self.step,
            "index": self.index,
            "check": self.kind,
            "name": self.name,
            "expect": self.expect,
            "prompt": self.prompt,
        }


@dataclass(frozen=True)
class Planned:
    """A label and the scenario that calibrates it: one todo entry of the run session
    (`todo()`), in the document it was found in."""

    label: Label
    scenario: Scenario
    entry: ScenarioEntry  # the scenario's analysis it was found in
    document: Document

    def todo(self) -> tuple[Document, ScenarioEntry]:
        """(document, entry) as the run session plans it: a copy of the entry holding the
        scenario that calibrates the label (a scenario with two labels: two entries)."""
        return self.document, replace(self.entry, built=self.scenario, rebuild=None)


def labelled(
    todo: Iterable[tuple[Document, ScenarioEntry]], identity: Any = None
) -> tuple[list[Planned], int]:
    """The labelled, enabled checks of these scenarios (in file order) with the scenario
    calibrating each; and how many labelled checks were left out as disabled.
    `identity(path, entry)` names a scenario (default: its file and name)."""
    found: list[Planned] = []
    disabled = 0
    for document, entry in todo:
        scenario = entry.scenario
        if scenario is None:
            continue
        for place in entry.checks:
            check = _check_at(scenario, place.step, place.index)
            if check is None or check.expect is None:
                continue
            if not check.enabled:
                disabled += 1
                continue
            head = place.head.start
            label = Label(
                path=document.path,
                line=head.line + 1,
                column=head.character + 1,
                scenario=entry.name,
                identity=identity(document.path, entry)
                if identity is not None
                else f"{document.path}::{entry.name}",
                step=place.step,
                index=place.index,
                kind=check.kind,
                name=check.name,
                expect=check.expect,
                prompt=prompt_of(check),
            )
            made = calibration_scenario(scenario, place.step, place.index)
            found.append(Planned(label, made, entry, document))
    return found, disabled


def recorded_up_to(scenario: Scenario, step: int, *, outputs: bool = True) -> bool:
    """Whether every interaction of the scenario's steps up to `step` has a recorded answer
    and a fixed input: what a label there needs (engine/spec says so of a file). With
    `outputs=False`, only the inputs: a label is possible once a run's answers are recorded."""
    from ..core.input_generator import InputGenerator
    from ..core.sentinel import MISSING
    from ..interactions import Interact

    for each in scenario.steps[: step + 1]:
        for spec in each.interacts:
            if not isinstance(spec, Interact):
                return False
            if outputs and (spec.outputs is MISSING or callable(spec.outputs)):
                return False
            if isinstance(spec.inputs, InputGenerator) or callable(spec.inputs):
                return False
    return True


def _check_at(scenario: Scenario, step: int, index: int) -> Check | None:
    steps = scenario.steps
    if step >= len(steps) or index >= len(steps[step].checks):
        return None
    return steps[step].checks[index]


def calibration_scenario(scenario: Scenario, step: int, index: int) -> Scenario:
    """The scenario's steps up to `step`, replayed (no target), checking only the check
    at (`step`, `index`)."""
    steps: list[Step] = [
        Step.model_construct(
            interacts=list(each.interacts),
            checks=[each.checks[index]] if at == step else [],
        )
        for at, each in enumerate(scenario.steps[: step + 1])
    ]
    return scenario.model_copy(update={"steps": steps, "target": None, "multiple_runs": 1})


def prompt_of(check: Check) -> str:
    """Which prompt judges a check: its `prompt_path`, a digest of its inline `prompt`, or
    `built-in` (the check kind's bundled template); for a check holding checks, the
    first model-calling check's inside it."""
    for inner in _within(check):
        if not type(inner).declares_model_calls():
            continue
        path = getattr(inner, "prompt_path", None)
        if isinstance(path, str) and path:
            return path
        text = getattr(inner, "prompt", None)
        if isinstance(text, str):
            digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
            return f"inline:{digest}"
        return "built-in"
    return "built-in"


def _within(check: Check) -> Iterator[Check]:
    yield check
    for name in nested_check_fields(type(check)):
        value = getattr(check, name, None)
        for item in value if isinstance(value, list | tuple) else (value,):
            if isinstance(item, Check):
                yield from _within(item)


def with_prompt(planned: Sequence[Planned], prompt_path: str) -> list[Planned]:
    """The labels whose check takes a prompt (`llm_judge`), judged with the prompt of
    `prompt_path` instead: a second judge to compare with on the same labels."""
    found: list[Planned] = []
    for plan in planned:
        step = plan.scenario.steps[-1]
        check = step.checks[0]
        if "prompt_path" not in type(check).model_fields:
            continue
        other = check.model_copy(update={"prompt": None, "prompt_path": prompt_path})
        steps = [
            *plan.scenario.steps[:-1],
            Step.model_construct(interacts=step.interacts, checks=[other]),
        ]
        scenario = plan.scenario.model_copy(update={"steps": steps})
        label = replace(plan.label, prompt=prompt_path)
        found.append(Planned(label, scenario, plan.entry, plan.document))
    return found


def labels_of(planned: Sequence[Planned]) -> list[Label]:
    return [p.label for p in planned]
