"""One generation from start to records: what the CLI, the Python API and the editor share.

`prepare` checks the request before any model is called (bad input is reported with
nothing sent or written), `generate` makes the records, `render` makes the file's text
and checks it with the project's analysis.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import pipeline
from .knowledge import KnowledgeBase, Topic, load_knowledge_base
from .output import appended_text, new_dataset_text, output_format, problems_of
from .presets import PresetSpec, find_preset

if TYPE_CHECKING:
    from ..spec.workspace import Workspace


class RequestError(ValueError):
    """The request cannot be served as given (exit 2): the message says why."""


@dataclass
class Request:
    persona: str | None = None
    preset: str | None = None
    docs: Sequence[str] = ()
    like: str | None = None  # what the examples were chosen by (`--like` selectors), shown
    examples: Sequence[Any] = ()  # the chosen scenarios (parsed values) when `like` is set
    options: pipeline.Options = field(default_factory=pipeline.Options)
    target: str | None = None  # the agent the scenarios are for, written into a new dataset
    exclude: Sequence[str] = ()  # globs of knowledge-base files left out


@dataclass
class Prepared:
    request: Request
    preset: PresetSpec | None = None
    knowledge: KnowledgeBase | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def what(self) -> str:
        if self.knowledge is not None:
            voice = f", persona {self.preset.name or 'in words'}" if self.preset else ""
            return f"from {', '.join(self.request.docs)}{voice}"
        assert self.preset is not None
        return f"persona {self.preset.name}" if self.preset.name else "a persona"


def prepare(request: Request, configured_presets: dict[str, Any] | None = None) -> Prepared:
    """Check the request and read its knowledge base. Raises RequestError."""
    given = [x for x in (request.persona, request.preset, request.like) if x]
    if len(given) > 1 or not (given or request.docs) or (request.like and request.docs):
        raise RequestError(
            "give one of --persona TEXT, --preset NAME, --from-docs PATH... or --like SELECTOR "
            "(--persona or --preset may go with --from-docs: document questions in that "
            "persona's voice)"
        )
    problems = request.options.problems()
    if problems:
        raise RequestError("; ".join(problems))
    voiced = bool(request.persona or request.preset)
    if voiced and "out_of_scope" in request.options.types:
        raise RequestError(
            "out_of_scope questions cannot be asked in a persona's voice: leave out "
            "--persona/--preset, or the out_of_scope type"
        )
    if request.options.types and not request.docs:
        raise RequestError("--types applies to --from-docs only")
    prepared = Prepared(request)
    if request.preset:
        try:
            prepared.preset = find_preset(request.preset, configured_presets)
        except ValueError as exc:
            raise RequestError(str(exc)) from None
    elif request.persona:
        if not request.persona.strip():
            raise RequestError("--persona is empty: describe the user in a sentence")
        prepared.preset = PresetSpec("", " ".join(request.persona.split()))
    elif request.like:
        from .examples import preset_like

        try:
            prepared.preset = preset_like(request.examples, request.like)
        except ValueError as exc:
            raise RequestError(str(exc)) from None
    if request.docs:
        try:
            prepared.knowledge = load_knowledge_base(request.docs, exclude=request.exclude)
        except ValueError as exc:
            raise RequestError(str(exc)) from None
        prepared.warnings.extend(prepared.knowledge.warnings)
    return prepared


async def topics_of(
    prepared: Prepared, generator: Any = None, embedding_model: Any = None
) -> list[Topic]:
    """The knowledge base's topics, largest first: named by the model when one is given,
    else by their words (then no model is called: `--list-topics`, `--list-chunks`)."""
    kb = prepared.knowledge
    assert kb is not None
    await pipeline.find_topics(
        kb, generator, embedding_model, prepared.request.options.seed, name=generator is not None
    )
    return list(kb.topic_list)


async def generate(
    prepared: Prepared,
    generator: Any,
    embedding_model: Any | None = None,
    on_progress: pipeline.ProgressFn | None = None,
) -> pipeline.Outcome:
    """The generated scenarios. Raises RequestError (an unknown topic), ProviderError,
    GenerationError."""
    options = prepared.request.options
    kb = prepared.knowledge
    if kb is not None:
        # The topics' names are asked while generating (one round trip less), unless a
        # --topic names one by its name, or simulated users are told what it is about.
        await pipeline.find_topics(kb, generator, embedding_model, options.seed, name=False)
        ids = {t.id.lower() for t in kb.topic_list}
        later = not options.simulate and all(w.strip().lower() in ids for w in options.topics)
        if not later:
            await pipeline.name_topics(kb, generator)
        try:
            chunks = pipeline.select_topics(kb, options.topics)
        except ValueError as exc:
            raise RequestError(str(exc)) from None
        generating = pipeline.from_documents(
            chunks,
            generator,
            options,
            embedding_model=embedding_model,
            on_progress=on_progress,
            persona=prepared.preset,
            everything=kb.chunks,
            lexical=kb.lexical,
        )
        if not later:
            return await generating
        outcome, names = await asyncio.gather(generating, pipeline.name_topics(kb, generator))
        return pipeline.renamed(outcome, names)
    if options.topics:
        raise RequestError("--topic applies to --from-docs only")
    assert prepared.preset is not None
    return await pipeline.from_persona(
        prepared.preset,
        generator,
        options,
        embedding_model=embedding_model,
        on_progress=on_progress,
    )


def render(
    prepared: Prepared,
    outcome: pipeline.Outcome,
    path: Path,
    *,
    append: bool,
    workspace: Workspace | None = None,
) -> tuple[str, list[str]]:
    """The text to write at `path` and the problems the analysis finds in it (none
    expected), in the workspace it is written into (the caller's project's)."""
    fmt = output_format(path, simulate=prepared.request.options.simulate)
    records = [g.suite_record() if fmt == "suite" else g.record() for g in outcome.scenarios]
    if append and path.exists():
        existing = path.read_text(encoding="utf-8")
        text = appended_text(existing, records, fmt, path)
        # The file's own problems are not ours to refuse: only those the records add.
        before = Counter((p.code, p.message) for p in problems_of(existing, path, fmt, workspace))
        added = []
        for problem in problems_of(text, path, fmt, workspace):
            key = (problem.code, problem.message)
            if before[key] > 0:
                before[key] -= 1
            else:
                added.append(problem.format(str(path)))
        return text, added
    else:
        stem = path.name.split(".")[0] or "generated"
        text = new_dataset_text(
            records,
            name=stem.replace("_", " ").replace("-", " "),
            description=f"Generated by checkspec generate ({prepared.what}).",
            what=prepared.what,
            fmt=fmt,
            target=prepared.request.target,
        )
    return text, [p.format(str(path)) for p in problems_of(text, path, fmt, workspace)]


@dataclass
class Written:
    """What writing a generation's outcome came to: `error` (nothing written), or the
    problems its text would have (nothing written either), else written."""

    error: str | None = None
    problems: list[str] = field(default_factory=list)


def write_outcome(
    prepared: Prepared,
    outcome: pipeline.Outcome,
    output: Path,
    *,
    append: bool,
    workspace: Workspace | None,
    root: Path,
) -> Written:
    """The outcome rendered into `output` and written in one rename, unless its text would
    not pass the analysis (the editor and the command line alike)."""
    from .output import OutputError, write_atomically

    try:
        text, problems = render(prepared, outcome, output, append=append, workspace=workspace)
    except (OutputError, OSError, UnicodeDecodeError) as exc:
        return Written(error=str(exc))
    if problems:
        return Written(problems=problems)
    try:
        write_atomically(output, text, root)
    except OSError as exc:
        return Written(error=f"cannot write {output}: {exc.strerror or exc}")
    return Written()
