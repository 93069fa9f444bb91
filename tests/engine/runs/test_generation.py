"""The editor's generation jobs (engine/runs/generation.py), run here as a worker runs
them: they read the knowledge base as `checkspec generate` reads it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from checkspec.engine.generate.request import GenerationRequest
from checkspec.engine.runs.generation import GenerationTask, generate, list_topics
from checkspec.engine.settings import Resolved, resolve
from checkspec.engine.spec.workspace import read_workspace
from tests.support.cli import run_main
from tests.support.generate_helpers import knowledge_base


def test_the_editors_topics_are_the_command_lines_with_the_workspaces_exclude_globs(
    tmp_path: Path,
) -> None:
    (tmp_path / "checkspec.yaml").write_text("generate:\n  exclude: [warranty]\n")
    kb = knowledge_base(tmp_path)
    workspace = read_workspace(tmp_path / "checkspec.yaml")
    found = resolve(workspace)
    task = GenerationTask(
        GenerationRequest(docs=(str(kb),)),
        str(tmp_path / "generated.dataset.yaml"),
        workspace,
        Resolved(found.settings, found.origins),
    )
    listed = asyncio.run(list_topics(task, lambda _: None))
    editor = sorted(t["name"] for t in listed["topics"])

    done = run_main(
        tmp_path, "generate", "--from-docs", str(kb), "--list-topics", "--format", "json"
    )
    assert done.returncode == 0, done.stderr
    cli = sorted(t["name"] for t in json.loads(done.stdout))

    assert editor == cli == ["returns", "shipping"]  # warranty left out by checkspec.yaml


def test_an_editor_request_is_answered_in_the_editors_keys(tmp_path: Path) -> None:
    # The selection and the service word their refusals in the command line's flags; the
    # editor sent keys, and its answer names those.
    (tmp_path / "a.scenario.yaml").write_text(
        "name: one\ntags: [billing]\nsteps:\n  - interacts: [{inputs: hi, outputs: hello}]\n"
    )
    (tmp_path / "checkspec.yaml").write_text("jobs: 1\n")
    workspace = read_workspace(tmp_path / "checkspec.yaml")
    found = resolve(workspace)
    request = GenerationRequest.from_editor(
        {"like": str(tmp_path / "a.scenario.yaml"), "query": "refunds", "output": "o.dataset.yaml"}
    )
    assert isinstance(request, GenerationRequest)
    task = GenerationTask(
        request,
        str(tmp_path / "o.dataset.yaml"),
        workspace,
        Resolved(found.settings, found.origins),
    )
    answer = asyncio.run(generate(task, lambda _: None))
    assert answer["status"] == "error"
    assert "query 'refunds'" in answer["error"] and "--" not in answer["error"], answer["error"]
    done = run_main(tmp_path, "generate", "--like", "a.scenario.yaml", "--query", "refunds")
    assert done.returncode == 2 and "--query" in done.stderr, done.stderr  # the CLI's own words
    assert answer["error"] in done.stderr.replace("--query", "query")
