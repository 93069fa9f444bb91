"""The Python API: the same generation as `checkspec generate`, as engine Scenario objects.

```python
from checkspec.engine.generate import generate_from_documents

scenarios = generate_from_documents(["docs/"], count=20, types=["simple", "multi_context"])
```

Each returned `Scenario` is a draft (`status="draft"`) carrying its checks, tags and
provenance (`annotations["generated"]`); `records` gives the dataset records instead.
The model is the engine's default generator (`set_default_generator`, else the
CHECKSPEC_MODEL / CHECKSPEC_API_BASE / CHECKSPEC_API_KEY variables), or `model=`; the
verdict cache is used when the run's settings snapshot has one (`use_settings`), as for judges.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import pipeline, service
from .output import new_dataset_text


def _generator(model: str | None) -> Any:
    from ..llm.endpoints import Generator, get_default_generator

    generator = get_default_generator()
    if model:
        generator = (
            Generator(model=model).merged_over(generator)
            if isinstance(generator, Generator)
            else Generator(model=model)
        )
    if not getattr(generator, "model", None):
        raise service.RequestError(
            "no model configured to generate with: set CHECKSPEC_MODEL, `model:` in "
            "checkspec.yaml, or pass model="
        )
    return generator


def _options(**given: Any) -> pipeline.Options:
    types = given.pop("types", None) or ()  # none: the default mix
    topics = given.pop("topics", None) or ()
    return pipeline.Options(types=tuple(types), topics=tuple(topics), **given)


def scenarios_of(outcome: pipeline.Outcome, *, simulate: bool = False) -> list[Any]:
    """The engine's Scenario of each generated record (checked by the project's analysis);
    `simulate`: suite scenarios whose last step is a simulated user (as --simulate writes)."""
    from ..spec.document import analyze

    if simulate:
        records = [g.suite_record() for g in outcome.scenarios]
        text = new_dataset_text(records, name="generated", description="", what="", fmt="suite")
        document = analyze(text, "generated.suite.yaml")
    else:
        records = [g.record() for g in outcome.scenarios]
        text = new_dataset_text(records, name="generated", description="", what="", fmt="jsonl")
        document = analyze(text, "generated.dataset.jsonl")
    problems = document.every_problem()
    if problems:
        raise pipeline.GenerationError(
            "the generated scenarios do not validate: " + problems[0].format("generated")
        )
    found = []
    for entry, record in zip(document.scenarios, records, strict=True):
        scenario = entry.scenario
        assert scenario is not None
        found.append(
            scenario.model_copy(
                update={"status": "draft", "annotations": dict(record["annotations"])}
            )
        )
    return found


async def agenerate_from_documents(
    paths: Sequence[str | Path],
    *,
    count: int = 10,
    types: Sequence[str] = (),
    topics: Sequence[str] = (),
    turns: int = 1,
    seed: int = 0,
    agent_description: str | None = None,
    model: str | None = None,
    similarity_threshold: float = pipeline.DEFAULT_SIMILARITY,
    self_check: bool = True,
    persona: str | None = None,
    preset: str | None = None,
    exclude: Sequence[str] = (),
    simulate: bool = False,
) -> list[Any]:
    """Draft scenarios grounded in the documents (no `types`: the default mix; `persona`
    or `preset`: asked in that persona's voice; `exclude`: globs of files left out;
    `simulate` with `turns` K: the first user turn written, a simulated user playing up to
    K-1 more from the agent's real answers when the scenario runs).
    Raises RequestError (bad input), ProviderError, GenerationError."""
    options = _options(
        count=count,
        types=types,
        topics=topics,
        turns=turns,
        seed=seed,
        agent=agent_description,
        similarity_threshold=similarity_threshold,
        self_check=self_check,
        simulate=simulate,
    )
    request = service.Request(
        docs=[str(p) for p in paths],
        options=options,
        persona=persona,
        preset=preset,
        exclude=list(exclude),
    )
    prepared = service.prepare(request)
    outcome = await service.generate(prepared, _generator(model))
    return scenarios_of(outcome, simulate=simulate)


async def agenerate_from_persona(
    persona: str | None = None,
    *,
    preset: str | None = None,
    presets: dict[str, Any] | None = None,
    count: int = 10,
    turns: int = 1,
    seed: int = 0,
    agent_description: str | None = None,
    model: str | None = None,
    similarity_threshold: float = pipeline.DEFAULT_SIMILARITY,
    simulate: bool = False,
) -> list[Any]:
    """Draft scenarios in a persona's voice (`persona` text, or a `preset` name: built-in
    or from `presets`; `simulate` as for documents). Raises RequestError, ProviderError,
    GenerationError."""
    options = _options(
        count=count,
        turns=turns,
        seed=seed,
        agent=agent_description,
        similarity_threshold=similarity_threshold,
        simulate=simulate,
    )
    request = service.Request(persona=persona, preset=preset, options=options)
    prepared = service.prepare(request, presets)
    outcome = await service.generate(prepared, _generator(model))
    return scenarios_of(outcome, simulate=simulate)


async def alist_topics(
    paths: Sequence[str | Path], *, model: str | None = None, seed: int = 0
) -> dict[str, int]:
    request = service.Request(docs=[str(p) for p in paths])
    prepared = service.prepare(request)
    try:
        generator = _generator(model)
    except service.RequestError:
        generator = None  # topics are named by their words
    found = await service.topics_of(prepared, generator, None)
    return {topic.name: topic.chunks for topic in found}


def generate_from_documents(paths: Sequence[str | Path], **options: Any) -> list[Any]:
    """agenerate_from_documents, run to completion (not from inside an event loop)."""
    return asyncio.run(agenerate_from_documents(paths, **options))


def generate_from_persona(persona: str | None = None, **options: Any) -> list[Any]:
    """agenerate_from_persona, run to completion (not from inside an event loop)."""
    return asyncio.run(agenerate_from_persona(persona, **options))


def list_topics(paths: Sequence[str | Path], **options: Any) -> dict[str, int]:
    """Each topic of the knowledge base with its chunk count."""
    return asyncio.run(alist_topics(paths, **options))
