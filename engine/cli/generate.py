"""`checkspec generate`: scenarios from a persona, a preset, a knowledge base or examples.

The options become a `GenerationRequest` (engine/generate/request.py), the value the
editor's checkspec.generate makes too, and the service's request through the same
function (`service_request`).

Exit codes: 0 written (or listed, previewed), 1 the provider failed or its answers were
unusable, 2 bad input or usage (nothing sent), 130 interrupted. Nothing is written unless
the whole generation succeeded and the text passed the project's own analysis.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from ..generate.constants import CONCURRENCY

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2


def terminal(text: str) -> str:
    """Text from files and models without control characters (core/safe_text.py)."""
    from ..core.safe_text import terminal as shown

    return shown(text)


def add_parser(commands: Any) -> None:
    from ..generate.constants import (
        DEFAULT_MIX,
        DEFAULT_SIMILARITY,
        MAX_COUNT,
        MAX_TURNS,
        QUESTION_TYPE_NAMES,
    )
    from .selection_options import add_selection_options

    mix = ", ".join(f"{kind} {share}%%" for kind, share in DEFAULT_MIX)  # %% for argparse

    gen = commands.add_parser(
        "generate",
        help="generate draft scenarios from a persona or a knowledge base of documents",
        description=(
            "Generate draft scenarios (status: draft) with their checks: from a persona or "
            "preset (hub_conformity rules), from documents (hub_correctness with a reference "
            "answer and hub_groundedness with the source chunk), or like a dataset's own."
        ),
    )
    source = gen.add_argument_group("what to generate from (one of)")
    source.add_argument("--persona", metavar="TEXT", help="a persona or behaviour, in words")
    source.add_argument(
        "--preset", metavar="NAME", help="a built-in preset or one of `presets:` in checkspec.yaml"
    )
    source.add_argument(
        "--from-docs",
        nargs="+",
        metavar="PATH",
        default=[],
        dest="docs",
        help="a knowledge base: .md, .mdx, .rst (Sphinx's too), .txt, .html, .ipynb, .jsonl (a "
        "text field), .pdf (with pypdf) files or folders (their subfolders are topics); "
        "with --persona or "
        "--preset, the questions are asked in that persona's voice",
    )
    gen.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out knowledge-base files or folders matching this glob, on their path "
        "inside the folder given or their name (repeatable; added to `generate: {exclude: "
        "[...]}` of checkspec.yaml)",
    )
    source.add_argument(
        "--like",
        action="append",
        default=[],
        metavar="SELECTOR",
        help="more scenarios like these: a file, a folder, FILE::NAME or FILE::#INDEX, as "
        "`run` takes them (repeatable; --query, --tag and --status narrow them)",
    )
    add_selection_options(gen)
    gen.add_argument("--list-presets", action="store_true", help="print the presets and exit")
    gen.add_argument(
        "--list-topics",
        action="store_true",
        help="print the knowledge base's topics (id, chunks, name) and exit; calls no model "
        "(topics are named by their words; --name-topics asks the model)",
    )
    gen.add_argument(
        "--name-topics",
        action="store_true",
        help="with --list-topics: the model names the topics (and the embedding model, if "
        "configured, clusters them, as generation does)",
    )
    gen.add_argument(
        "--list-chunks",
        action="store_true",
        help="print each chunk of the knowledge base (source:line, topic, title, its start) "
        "and exit; calls no model",
    )
    gen.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="--list-topics and --list-chunks output: text, or json (topics: id, name, words, "
        "files, chunks; chunks: source, line, index, title, topic, topic_id, text)",
    )
    gen.add_argument(
        "--preview",
        action="store_true",
        help="show sample inputs and the rules the model proposes for the persona; write nothing",
    )
    gen.add_argument(
        "--topic",
        action="append",
        default=[],
        metavar="ID|NAME",
        help="only this topic of the knowledge base, by its id or name (repeatable)",
    )
    gen.add_argument(
        "--types",
        default=None,
        metavar="T,...",
        help=f"question types, comma-separated: {', '.join(QUESTION_TYPE_NAMES)} "
        f"(default: a mix of all, {mix}; --types narrows it)",
    )
    gen.add_argument(
        "--turns",
        type=int,
        default=1,
        metavar="K",
        help=f"user turns per conversation (1 to {MAX_TURNS}; default 1)",
    )
    gen.add_argument(
        "--simulate",
        action="store_true",
        help="with --turns K: write the first user turn, and let a simulated user (with the "
        "persona's goal) write up to K-1 follow-ups from the agent's real answers when the "
        "scenario runs; writes a *.suite.yaml",
    )
    gen.add_argument(
        "--count",
        "-n",
        type=int,
        default=10,
        metavar="N",
        help=f"scenarios to generate (1 to {MAX_COUNT}; default 10)",
    )
    gen.add_argument("--seed", type=int, default=0, help="same seed, same prompts (default 0)")
    gen.add_argument("--agent-description", metavar="TEXT", help="what the agent under test does")
    gen.add_argument(
        "--output",
        "-o",
        metavar="FILE",
        help="a *.dataset.yaml or .jsonl to write (default: generated.dataset.yaml; with "
        "--simulate a *.suite.yaml, default generated.suite.yaml)",
    )
    gen.add_argument("--force", action="store_true", help="overwrite an existing output file")
    gen.add_argument("--append", action="store_true", help="add to an existing dataset")
    gen.add_argument(
        "--similarity-threshold",
        type=float,
        default=DEFAULT_SIMILARITY,
        metavar="X",
        help=f"near-duplicates at or above this similarity are dropped (default {DEFAULT_SIMILARITY})",
    )
    gen.add_argument(
        "--no-self-check",
        action="store_true",
        help="keep questions without asking the model whether their chunk answers them",
    )
    gen.add_argument("--model", help="the LLM to generate with (litellm name)")
    gen.add_argument(
        "--target",
        help="the agent the scenarios are for, written into the dataset "
        "(default: `target:` of checkspec.yaml)",
    )
    gen.add_argument("--embedding-model", help="embeddings for topics and de-duplication")
    gen.add_argument(
        "--concurrency",
        type=int,
        default=CONCURRENCY,
        metavar="N",
        help=f"requests in flight at once (default {CONCURRENCY}; provider limits of "
        "checkspec.yaml hold)",
    )
    gen.add_argument("--no-cache", action="store_true", help="neither read nor fill the cache")
    gen.add_argument(
        "--progress",
        choices=("auto", "json", "none"),
        default="auto",
        help="progress on stderr: a bar on a terminal (auto), JSON lines (json), none",
    )


def _error(message: str) -> int:
    print(terminal(f"error: {message}"), file=sys.stderr)
    return EXIT_INVALID


def run(args: argparse.Namespace) -> int:
    """`checkspec generate`: with the workspace's settings snapshot in force until it ends."""
    with ExitStack() as scope:
        return _run(args, scope)


def _run(args: argparse.Namespace, scope: ExitStack) -> int:
    import asyncio

    from ..curate.selectors import split_selector
    from ..generate import pipeline, service
    from ..generate.output import output_refusal
    from ..generate.presets import known_presets
    from ..generate.request import GenerationRequest, service_request
    from ..llm import limits
    from ..llm.endpoints import get_default_embedding_model, get_default_generator
    from ..llm.errors import ProviderError
    from ..llm.usage import Meter
    from ..settings import run_settings, use_settings
    from ..spec.workspace import WorkspaceConflict
    from .project import open_project

    # The one request value the editor's generation makes too (engine/generate/request.py).
    asked = GenerationRequest.from_args(args)
    assert asked.output is not None  # from_args gives the default output
    output = Path(asked.output)
    try:
        # The workspace the suite is written into (its model, api_base, agent, presets),
        # with the suites it imitates; the knowledge base may lie anywhere (issue 35).
        like = [split_selector(selector)[0] for selector in asked.like]
        workspace = open_project([output, *like]).workspace
    except WorkspaceConflict as exc:
        return _error(str(exc))
    config = workspace.config
    if args.list_presets:
        for name, preset in sorted(known_presets(config.presets).items()):
            print(terminal(f"{name}: {preset.description}"))
        return EXIT_OK
    try:
        request = service_request(asked, config)
    except service.RequestError as exc:
        return _error(str(exc))
    agent = request.options.agent
    listing = args.list_topics or args.list_chunks or args.preview
    if not listing and (
        refused := output_refusal(
            output,
            workspace.root or Path.cwd(),
            force=asked.force,
            append=asked.append,
            simulate=asked.simulate,
        )
    ):
        return _error(refused)
    for flag, given in (("--list-topics", args.list_topics), ("--list-chunks", args.list_chunks)):
        if given and not asked.docs:
            return _error(f"{flag} needs --from-docs PATH...")
    if args.name_topics and not args.list_topics:
        return _error("--name-topics goes with --list-topics")
    flags = asked.settings_flags()
    settings = run_settings(workspace, cache=False if args.no_cache else None, **flags)
    scope.enter_context(use_settings(settings))  # the model, key, cache and prices of this run
    generator = get_default_generator()
    if getattr(generator, "model", None):
        from ..llm.client import warm_up

        # The model's client (the openai SDK, or litellm) loads while the knowledge base
        # is read.
        warm_up(generator.model)
    try:
        prepared = service.prepare(request, config.presets)
    except service.RequestError as exc:
        return _error(str(exc))
    for warning in prepared.warnings:
        print(terminal(f"warning: {warning}"), file=sys.stderr)
    if prepared.knowledge is not None and not (args.list_topics or args.list_chunks):
        # What was read, before any model call: a surprise here costs nothing yet.
        read = prepared.knowledge
        print(
            f"read {read.files} file(s) of the knowledge base: {len(read.chunks)} chunk(s)"
            + (f", {len(prepared.warnings)} warning(s) above" if prepared.warnings else ""),
            file=sys.stderr,
        )

    if asked.concurrency:
        generator = generator.model_copy(update={"max_concurrency": asked.concurrency})
    embedding = get_default_embedding_model()
    embedding = embedding if getattr(embedding, "model", None) else None
    has_model = bool(getattr(generator, "model", None))
    if not has_model and not (args.list_chunks or (args.list_topics and not args.name_topics)):
        return _error(
            "no model configured to generate with: set CHECKSPEC_MODEL (e.g. "
            "openai/gpt-4o-mini), `model:` in checkspec.yaml, or --model"
        )
    if has_model:  # a model litellm cannot route: said before anything is sent
        from ..runs.models import setting_problems

        names = ["model", "embedding_model"] if embedding is not None else ["model"]
        if unroutable := setting_problems(settings, workspace, names, **flags):
            print(terminal("\n".join(unroutable)), file=sys.stderr)
            return EXIT_INVALID
    if not agent and not listing:
        print(
            "warning: the agent under test is not described (`agent: {description: ...}` in "
            "checkspec.yaml or --agent-description): prompts describe a generic assistant",
            file=sys.stderr,
        )
    if settings.limits:
        scope.enter_context(limits.gating(limits.RateLimiter(settings.limits)))
    # Every request of the generation, counted where it is made (engine/llm/usage.py): the
    # runner's context is copied from here, so its tasks add to this count.
    meter = scope.enter_context(Meter())

    reporter = _Reporter(args.progress)
    try:
        with asyncio.Runner() as runner:
            if args.list_topics or args.list_chunks:
                # No model unless --name-topics asks for one: listing is free.
                naming = args.list_topics and args.name_topics
                found = runner.run(
                    service.topics_of(
                        prepared, generator if naming else None, embedding if naming else None
                    )
                )
                if args.list_chunks:
                    _print_chunks(prepared.knowledge, args.format)
                elif args.format == "json":
                    print(json.dumps([t.record() for t in found], ensure_ascii=False, indent=2))
                else:
                    for topic in found:
                        print(terminal(f"{topic.chunks:6d}  {topic.name}  [{topic.id}]"))
                if meter.usage:  # naming the topics asked the model: said on stderr
                    print(meter.usage.describe(), file=sys.stderr)
                kb = prepared.knowledge
                assert kb is not None  # --from-docs was checked above
                print(
                    f"{kb.files} file(s), {len(kb.chunks)} chunk(s), {len(found)} topic(s)",
                    file=sys.stderr,
                )
                return EXIT_OK
            if args.preview:
                code = _preview(runner, prepared, generator, agent)
                if meter.usage:
                    print(meter.usage.describe(), file=sys.stderr)
                return code
            with reporter:
                outcome = runner.run(
                    service.generate(prepared, generator, embedding, reporter.update)
                )
    except service.RequestError as exc:
        return _error(str(exc))
    except ProviderError as exc:
        print(
            terminal(f"error: the provider failed, nothing was written: {exc}{_spent(meter)}"),
            file=sys.stderr,
        )
        return EXIT_FAILED
    except pipeline.GenerationError as exc:
        print(terminal(f"error: nothing was written: {exc}{_spent(meter)}"), file=sys.stderr)
        return EXIT_FAILED
    if not outcome.scenarios:
        print(
            terminal(f"error: {outcome.summary()}; nothing was written{_spent(meter)}"),
            file=sys.stderr,
        )
        return EXIT_FAILED
    written = service.write_outcome(
        prepared,
        outcome,
        output,
        append=asked.append,
        workspace=workspace,
        root=workspace.root or Path.cwd(),
    )
    if written.error is not None:
        return _error(written.error)
    if written.problems:
        print("error: the generated file would not validate; nothing was written:", file=sys.stderr)
        for problem in written.problems[:20]:
            print(terminal(f"  {problem}"), file=sys.stderr)
        return EXIT_FAILED
    verb = "added to" if asked.append else "written to"
    print(
        terminal(f"{outcome.summary()}, {verb} {output} (status: draft){_spent(meter)}"),
        file=sys.stderr,
    )
    if args.progress == "json":
        final = {
            "written": str(output),
            "count": len(outcome.scenarios),
            "summary": outcome.summary(),
            "usage": meter.usage.model_dump(),
        }
        print(json.dumps(final), file=sys.stderr, flush=True)
    return EXIT_OK


def _spent(meter: Any) -> str:
    """`; 12 LLM requests (1 failed), 3,456 tokens, $0.0123`: what the generation sent so far."""
    spent = meter.usage
    return f"; {spent.describe()}" if spent else ""


def _print_chunks(kb: Any, fmt: str) -> None:
    """Each chunk as read: where it comes from, its topic and title, and its text (json)
    or its first words (text)."""
    if fmt == "json":
        records = [
            {
                "source": c.source,
                "line": c.line,
                "index": c.index,
                "title": c.title,
                "topic": c.topic,
                "topic_id": c.topic_id,
                "text": c.text,
            }
            for c in kb.chunks
        ]
        print(json.dumps(records, ensure_ascii=False, indent=2))
        return
    for chunk in kb.chunks:
        start = " ".join(chunk.text.split())[:72]
        title = f"  {chunk.title}" if chunk.title else ""
        print(terminal(f"{chunk.source}:{chunk.line}  [{chunk.topic_id}]{title}"))
        print(terminal(f"    {start}"))


def _preview(runner: Any, prepared: Any, generator: Any, agent: str | None) -> int:
    from ..generate.pipeline import propose_rules

    preset = prepared.preset
    if preset is None:
        return _error("--preview needs --persona or --preset")
    proposed = runner.run(propose_rules(generator, preset.description, agent))
    print(terminal(f"persona: {preset.description}"))
    print("sample inputs:")
    for sample in proposed["samples"]:
        print(terminal(f"  - {sample}"))
    print("rules" + (" (the preset's)" if preset.rules else " (proposed)") + ":")
    for rule in preset.rules or proposed["rules"]:
        print(terminal(f"  - {rule}"))
    return EXIT_OK


class _Reporter:
    """Progress on stderr: a bar on a terminal, JSON lines when asked, else nothing."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> _Reporter:
        if self.mode == "auto" and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

            self._bar = Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                transient=True,
                console=Console(stderr=True),
            )
            self._task = self._bar.add_task("generating", total=None)
            self._bar.start()
        return self

    def update(self, done: int, total: int, what: str) -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=done, total=total, description=what)
        elif self.mode == "json":
            print(json.dumps({"done": done, "total": total}), file=sys.stderr, flush=True)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()
