"""`checkspec run --dry-run` on a big dataset makes each scenario when it is planned and
lets it go, and makes none for a row whose checks cannot ask a model (issue 41 item 3):
its plan is the one every scenario, made at once, gives (scenarios/estimate.plan_run over
the analysis that keeps them, as the dry run did before)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from checkspec.engine.curate.select import query_words, searchable
from checkspec.engine.scenarios.estimate import plan_run
from checkspec.engine.settings import run_settings, use_settings
from checkspec.engine.spec.status import is_draft
from checkspec.engine.spec.workspace import find_workspace
from tests.support.cli import run_main
from tests.support.hub_rows import varied_row
from tests.support.project_files import load_file

ROWS = 2_000


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "checkspec.yaml").write_text("model: openai/gpt-4o-mini\n")
    text = "".join(varied_row(n) + "\n" for n in range(ROWS))
    (tmp_path / "big.dataset.jsonl").write_text(text, encoding="utf-8")
    monkeypatch.setenv("CHECKSPEC_API_BASE", "http://127.0.0.1:9")  # nothing is sent
    monkeypatch.setenv("CHECKSPEC_API_KEY", "sk-test")
    return tmp_path


def _every_scenario_at_once(project: Path, drafts: bool) -> dict[str, tuple[int, int, int]]:
    document = load_file(project / "big.dataset.jsonl")  # keeps every runnable scenario
    scenarios = [
        e.scenario
        for e in document.scenarios
        if e.scenario is not None and (drafts or not is_draft(e))
    ]
    settings = run_settings(find_workspace([project]))
    with use_settings(settings):
        plan = asyncio.run(plan_run(scenarios))
    return {m: (c.calls, c.cached, c.prompt_tokens) for m, c in plan.models.items()}


@pytest.mark.parametrize("drafts", [False, True])
def test_the_plan_is_the_one_of_every_scenario_made_at_once(project: Path, drafts: bool) -> None:
    args = ["run", "--dry-run", "big.dataset.jsonl", "--format", "json"]
    done = run_main(project, *args, *(["--include-drafts"] if drafts else []))
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    shown = {r["model"]: (r["calls"], r["cached"], r["prompt_tokens"]) for r in plan["models"]}
    assert shown == _every_scenario_at_once(project, drafts)
    judged = [n for n in range(ROWS) if n % 29 == 0 and (drafts or n % 11 != 0)]
    assert shown["openai/gpt-4o-mini"][0] == len(judged)  # one conformity call each
    assert plan["total"]["scenarios"] == ROWS - (0 if drafts else len(range(0, ROWS, 11)))


def test_a_query_narrows_the_plan_as_the_rows_trees_do(project: Path) -> None:
    query = "plus one 58"
    done = run_main(
        project, "run", "--dry-run", "big.dataset.jsonl", "--query", query, "--format", "json"
    )
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    document = load_file(project / "big.dataset.jsonl")
    kept = [
        e
        for e in document.scenarios
        if e.scenario is not None
        and not is_draft(e)
        and all(w in searchable(e.node.value) for w in query_words(query))
    ]
    assert plan["total"]["scenarios"] == len(kept) > 10
    judged = sum(1 for e in kept if len(e.checks) > 1)  # the conformity rows
    assert plan["total"]["calls"] == judged >= 1
