"""`checkspec run --dry-run`: the model calls a run would make, per model, with their
estimated tokens and cost; nothing is sent and no user code runs (scenarios/estimate.py).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

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
from ..spec.workspace import load_workspace


def estimate(
    todo: Sequence[tuple[Document, ScenarioEntry]], settings: Settings
) -> list[dict[str, Any]]:
    """One row per model: calls, cached answers, estimated tokens and dollars (None: no price)."""
    with use_settings(settings):  # the models, the cache and the prices of this run
        plan = asyncio.run(plan_run(planned(todo)))
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


def planned(todo: Iterable[tuple[Document, ScenarioEntry]]) -> Iterator[Scenario]:
    """The scenarios a plan counts, one at a time: each made runnable when its turn comes
    (`_load` kept none, `keep_scenarios(False)`) and let go once counted, so a 100,000-row
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
            workspace = load_workspace(path)
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
) -> int:
    rows = estimate(todo, settings)
    known = [r["cost_usd"] for r in rows if r["cost_usd"] is not None]
    total = {
        "scenarios": len(todo),
        "calls": sum(r["calls"] for r in rows),
        "cached": sum(r["cached"] for r in rows),
        "prompt_tokens": sum(r["prompt_tokens"] for r in rows),
        "answer_tokens": sum(r["answer_tokens"] for r in rows),
        "cost_usd": sum(known) if len(known) == len(rows) else None,
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
    lines = [f"dry run: {total['scenarios']} scenarios, nothing sent"]
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
    lines.append(
        f"answer tokens estimated at {dry_run.ANSWER_TOKENS} a call; simulated users count "
        "max_steps turns; every step counted (none stops the conversation)"
    )
    return "\n".join(lines) + "\n"


def _dollars(cost: float | None) -> str:
    return "unknown (no price)" if cost is None else f"${cost:.4f}"
