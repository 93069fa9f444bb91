"""`checkspec run --dry-run`: the model calls a run would make, per model, with their
estimated tokens and cost; nothing is sent and no user code runs (scenarios/estimate.py).

The verdict cache is asked which calls it would answer (counted `cached`, at no cost).
With `--repeat K` the first run is planned as any run, and the K-1 repeats, which neither
read nor fill the cache (engine/llm/client.py's `in_repeat`), once more without it.

A check of the agent's live answer cannot be looked up: its prompt holds an answer only
the agent can give, so it counts as a call (an upper bound). The cache is asked again with
the answers the agent gave in the last run kept in the history: what it holds for those
is reported as `cached_if_unchanged`, the calls a run saves if the agent answers as it did.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.check import Check
from ..llm import dry_run, usage
from ..llm.client import price_map
from ..scenarios.estimate import plan_run
from ..scenarios.scenario import Scenario
from ..settings import Settings, use_settings
from ..spec.document import Document, ScenarioEntry
from ..spec.json_rows import fold
from ..spec.kinds import FileKind
from ..spec.tree import Node

if TYPE_CHECKING:
    from ..runs.project import Project


def estimate(
    todo: Sequence[tuple[Document, ScenarioEntry]],
    settings: Settings,
    repeat: int,
    project: Project,
) -> list[dict[str, Any]]:
    """One row per model: calls, cached answers, estimated tokens and dollars (None: no price)."""
    with use_settings(settings):  # the models, the cache and the prices of this run
        plan = asyncio.run(plan_run(planned(todo, project)))
    if repeat > 1:
        with use_settings(replace(settings, cache=False)):  # repeats ask the model again
            again = asyncio.run(plan_run(planned(todo, project)))
        for model, counted in again.models.items():
            mine = plan.of(model)
            mine.calls += (repeat - 1) * counted.calls
            mine.prompt_tokens += (repeat - 1) * counted.prompt_tokens
    with use_settings(settings):
        prices = price_map() if plan.calls else None
        costs = {
            model: usage.cost_of(model, counted.prompt_tokens, counted.answer_tokens, prices)
            for model, counted in plan.models.items()
        }
    rows = []
    for model, counted in sorted(plan.models.items()):
        cost = costs[model]
        rows.append(
            {
                "model": model,
                "calls": counted.calls,
                "cached": counted.cached,
                "prompt_tokens": counted.prompt_tokens,
                "answer_tokens": counted.answer_tokens,
                "cost_usd": 0.0 if not counted.calls else cost,
            }
        )
    return rows


def if_unchanged(
    todo: Sequence[tuple[Document, ScenarioEntry]], settings: Settings, project: Project
) -> tuple[int, str | None]:
    """How many of the first run's calls the verdict cache answers if the agent answers
    as in the last run kept in the history, and that run's id (0, None: no such run)."""
    if not settings.cache:
        return 0, None
    last = _last_run(project.root)
    if last is None:
        return 0, None
    answers = {
        str(s.get("id")): _outputs(s)
        for s in last.get("scenarios") or []
        if isinstance(s, dict) and not s.get("replayed")
    }
    replayed = []
    for document, entry in todo:
        outputs = answers.get(project.identity(document.path, entry))
        if not outputs:
            continue
        for scenario in planned([(document, entry)], project):
            copy = _answered(scenario, outputs)
            if copy is not None:
                replayed.append(copy)
    if not replayed:
        return 0, None
    with use_settings(settings):
        plan = asyncio.run(plan_run(replayed))
    run = last.get("run")
    run_id = str(run.get("id") or "") if isinstance(run, dict) else ""
    return sum(m.cached for m in plan.models.values()), run_id or None


def _last_run(root: Path | None) -> dict[str, Any] | None:
    """The last run kept in the workspace's history (never made here: a dry run writes
    nothing), or None."""
    from contextlib import closing

    from ..history.store import HistoryError, HistoryStore, history_path

    path = history_path(root)
    if not path.is_file():
        return None
    try:
        with closing(HistoryStore(path, stderr=sys.stderr)) as store:
            return store.resolve("last")
    except (HistoryError, OSError, ValueError):
        return None


def _outputs(scenario: dict[str, Any]) -> list[Any]:
    trace = scenario.get("final_trace")
    interactions = trace.get("interactions") if isinstance(trace, dict) else None
    return [i.get("outputs") for i in interactions or [] if isinstance(i, dict)]


def _answered(scenario: Scenario, outputs: list[Any]) -> Scenario | None:
    """`scenario` with the agent's answers written in as recorded outputs, one per
    exchange in order; None when its exchanges are not one fixed input each (a simulated
    user, inputs made by code: the last answers may not be theirs)."""
    from ..core.sentinel import MISSING
    from ..interactions import Interact

    specs = [s for step in scenario.steps for s in step.interacts if isinstance(s, Interact)]
    if len(specs) != len(outputs) or len(specs) != sum(len(t.interacts) for t in scenario.steps):
        return None
    if any(callable(s.inputs) for s in specs):
        return None
    if any(s.outputs is not MISSING and not callable(s.outputs) for s in specs):
        return None  # recorded already: the first plan looked it up
    answers = iter(outputs)
    steps = [
        step.model_copy(
            update={
                "interacts": [
                    s.model_copy(update={"outputs": next(answers)}) for s in step.interacts
                ]
            }
        )
        for step in scenario.steps
    ]
    return scenario.model_copy(update={"steps": steps})


def planned(todo: Iterable[tuple[Document, ScenarioEntry]], project: Project) -> Iterator[Scenario]:
    """The scenarios a plan counts, one at a time: each made runnable when its turn comes
    (loaded without `keep`, placed in its file's workspace) and let go once counted, so a 100,000-row
    dataset never holds 100,000 scenarios. A dataset row none of whose checks may call a
    model (`Check.may_call_model`: a judge, an embedding, a composition of checks) is
    not made at all: a dataset's inputs are values, never a generator, so such a row asks
    nothing of any model (scenarios/estimate.py would count nothing for it)."""
    places: dict[str, tuple[tuple[str, ...], float | None]] = {}
    for document, entry in todo:
        if document.kind is FileKind.DATASET and not _may_call_models(entry):
            continue
        if entry.built is not None:  # kept by the analysis: placed already (load_file)
            yield entry.built
            continue
        folded = type(entry.node) is not Node  # a row whose nodes were let go (json_rows)
        scenario = entry.rebuild() if entry.rebuild is not None else None
        if folded:
            fold(entry.node)  # read again to be built: its nodes go again
        if scenario is None:
            continue
        if document.path not in places:
            path = Path(document.path)
            workspace = project.workspace_for(path)
            bases = (path.resolve().parent, workspace.root)
            places[document.path] = (
                tuple(str(d) for d in bases if d is not None),
                workspace.config.target_timeout,
            )
        yield scenario.placed(*places[document.path])


def _may_call_models(entry: ScenarioEntry) -> bool:
    for check in entry.checks:
        found: type[Check] | None = Check.kind_class(check.kind)
        if found is None or found.may_call_model():  # unknown (custom): counted as may
            return True
    return False


def print_plan(
    todo: Sequence[tuple[Document, ScenarioEntry]],
    settings: Settings,
    form: str,
    output: str | None,
    repeat: int,
    project: Project,
) -> int:
    rows = estimate(todo, settings, repeat, project)
    unchanged, last_run = if_unchanged(todo, settings, project)
    known = [r["cost_usd"] for r in rows if r["cost_usd"] is not None]
    total = {
        "scenarios": len(todo),
        "repeat": repeat,
        "calls": sum(r["calls"] for r in rows),
        "cached": sum(r["cached"] for r in rows),
        "prompt_tokens": sum(r["prompt_tokens"] for r in rows),
        "answer_tokens": sum(r["answer_tokens"] for r in rows),
        "cost_usd": sum(known) if len(known) == len(rows) else None,
        # Of `calls`: answered by the cache if the agent answers as in run `last_run`.
        "cached_if_unchanged": unchanged,
        "last_run": last_run,
    }
    if form == "json":
        text = json.dumps({"dry_run": True, "models": rows, "total": total}, indent=2) + "\n"
    else:
        text = _table(rows, total)
    if output:
        from .selection import write_output

        if problem := write_output(Path(output), text):
            print(f"error: {problem}", file=sys.stderr)
            return 2
    else:
        sys.stdout.write(text)
    return 0


def _table(rows: list[dict[str, Any]], total: dict[str, Any]) -> str:
    each = f", each run {total['repeat']} times" if total["repeat"] > 1 else ""
    lines = [f"dry run: {total['scenarios']} scenarios{each}, nothing sent"]
    if not rows:
        return "\n".join([*lines, "no model calls"]) + "\n"
    head = ("model", "calls", "cached", "est. prompt tokens", "est. answer tokens", "est. cost")
    body = [
        (
            r["model"],
            str(r["calls"]),
            str(r["cached"]),
            f"{r['prompt_tokens']:,}",
            f"{r['answer_tokens']:,}",
            _dollars(r["cost_usd"]),
        )
        for r in rows
    ]
    body.append(
        (
            "total",
            str(total["calls"]),
            str(total["cached"]),
            f"{total['prompt_tokens']:,}",
            f"{total['answer_tokens']:,}",
            _dollars(total["cost_usd"]),
        )
    )
    widths = [max(len(row[i]) for row in (head, *body)) for i in range(len(head))]
    for row in (head, *body):
        lines.append(
            "  ".join(
                cell.ljust(w) if i == 0 else cell.rjust(w)
                for i, (cell, w) in enumerate(zip(row, widths, strict=True))
            )
        )
    if total["cached_if_unchanged"]:
        lines.append(
            f"{total['cached_if_unchanged']} of the calls judge the agent's live answers: the "
            f"verdict cache holds them for its answers in run {total['last_run']}, so they "
            "are not sent if it answers the same"
        )
    lines.append(
        f"answer tokens estimated at {dry_run.ANSWER_TOKENS} a call; simulated users count "
        "max_steps turns; every step counted (none stops the conversation)"
    )
    return "\n".join(lines) + "\n"


def _dollars(cost: float | None) -> str:
    return "unknown (no price)" if cost is None else f"${cost:.4f}"
