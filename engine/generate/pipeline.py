"""The generation itself: plans, model calls (engine/llm only), self-checks, de-duplication.

Document-based (`from_documents`): each scenario is planned on a chunk and a question type
(topics taken in turn, chunks in a seeded order), asked for with a structured-output
prompt, then checked by the model against its chunk (a question the chunk cannot answer
is dropped, as DeepEval's filtration does), and near-duplicates of earlier scenarios are
dropped. Shortfalls are planned again, up to `ROUNDS` rounds. Persona-based
(`from_persona`): batches of scenarios in the persona's voice, de-duplicated the same way.

Everything random comes from `random.Random(seed)`, so the same inputs and seed make the
same prompts (and a repeat is answered from the verdict cache).
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..llm.client import AnswerError, complete_structured, embed
from ..llm.errors import ProviderError
from . import prompts, topics
from .constants import DEFAULT_SIMILARITY, MAX_COUNT, MAX_TURNS
from .knowledge import Chunk, KnowledgeBase
from .presets import PresetSpec

ROUNDS = 3
OVERSHOOT = 0.1  # document-based rounds plan this much more than they need
PERSONA_BATCH = 5
GENERATOR_NAME = "checkspec generate"

ProgressFn = Callable[[int, int, str], None]


class GenerationError(RuntimeError):
    """Nothing usable came back (every answer invalid, say); the message says why."""


@dataclass
class Options:
    count: int = 10
    types: tuple[str, ...] = ("simple",)
    turns: int = 1
    seed: int = 0
    topics: tuple[str, ...] = ()
    agent: str | None = None
    similarity_threshold: float = DEFAULT_SIMILARITY
    self_check: bool = True

    def problems(self) -> list[str]:
        found = []
        if not 1 <= self.count <= MAX_COUNT:
            found.append(f"--count must be between 1 and {MAX_COUNT}, got {self.count}")
        if not 1 <= self.turns <= MAX_TURNS:
            found.append(f"--turns must be between 1 and {MAX_TURNS}, got {self.turns}")
        unknown = [t for t in self.types if t not in prompts.QUESTION_TYPES]
        if unknown or not self.types:
            found.append(
                f"unknown question type(s) {', '.join(map(repr, unknown)) or '(none given)'}; "
                f"known: {', '.join(prompts.QUESTION_TYPES)}"
            )
        if not 0 < self.similarity_threshold <= 1:
            found.append("the similarity threshold must be in (0, 1]")
        return found


@dataclass
class Generated:
    """One generated scenario, in dataset terms."""

    turns: list[str]
    checks: list[dict[str, Any]]
    tags: list[str]
    provenance: dict[str, Any]
    reference: str | None = None

    def record(self) -> dict[str, Any]:
        interactions: list[dict[str, Any]] = [
            {"input": {"messages": [{"role": "user", "content": turn}]}} for turn in self.turns
        ]
        interactions[-1]["checks"] = self.checks
        return {
            "name": _name(self.turns[-1]),
            "status": "draft",
            "tags": self.tags,
            "annotations": {"generated": self.provenance},
            "interactions": interactions,
        }


@dataclass
class Outcome:
    scenarios: list[Generated] = field(default_factory=list)
    requested: int = 0
    duplicates: int = 0
    unanswerable: int = 0
    invalid: int = 0
    warnings: list[str] = field(default_factory=list)
    first_invalid: str | None = None

    def summary(self) -> str:
        dropped = [
            f"{n} {what}"
            for n, what in (
                (self.duplicates, "near-duplicate(s)"),
                (self.unanswerable, "not answerable from their chunk"),
                (self.invalid, "invalid answer(s)"),
            )
            if n
        ]
        text = f"{len(self.scenarios)} of {self.requested} scenario(s) generated"
        return text + (f" (dropped: {', '.join(dropped)})" if dropped else "")


def _name(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _model_name(generator: Any) -> str:
    return str(getattr(generator, "model", None) or "unknown")


# -- topics ------------------------------------------------------------------------------


async def find_topics(
    kb: KnowledgeBase,
    generator: Any | None,
    embedding_model: Any | None = None,
    seed: int = 0,
) -> KnowledgeBase:
    """The knowledge base with a topic on every chunk: its folder's, else found by
    clustering (embeddings when a model is given, else TF-IDF) and named by the model
    (when one is given; else by the cluster's commonest words)."""
    if kb.folder_topics:
        return kb
    texts = [f"{c.title}\n{c.text}" for c in kb.chunks]
    lexical = topics.TfIdf(texts)
    vectors = lexical.vectors
    if embedding_model is not None and getattr(embedding_model, "model", None):
        vectors = [topics.dense_to_sparse(v) for v in await _embed_all(embedding_model, texts)]
    k = topics.topic_count(len(kb.chunks))
    labels = topics.cluster(vectors, k, seed)
    groups: dict[int, list[int]] = {}
    for index, label in enumerate(labels):
        groups.setdefault(label, []).append(index)
    names: dict[int, str] = {}
    for label, members in sorted(groups.items()):
        terms = topics.top_terms([lexical.vectors[i] for i in members], lexical.terms, 3)
        names[label] = ", ".join(terms) or f"topic {label + 1}"
    if generator is not None and getattr(generator, "model", None) and len(groups) > 1:
        rng = random.Random(seed)

        async def named(label: int, members: list[int]) -> tuple[int, str]:
            sample = sorted(rng.sample(members, min(3, len(members))))
            terms = names[label].split(", ")
            prompt = prompts.topic_prompt(terms, [kb.chunks[i].text for i in sample])
            answer = await complete_structured(
                generator, prompt, prompts.TOPIC_SCHEMA, name="topic"
            )
            return label, " ".join(str(answer["name"]).split())

        asked = [named(label, members) for label, members in sorted(groups.items())]
        for label, name in await asyncio.gather(*asked):
            names[label] = name
    seen: dict[str, int] = {}
    for label in sorted(names):
        base = names[label]
        seen[base] = seen.get(base, 0) + 1
        if seen[base] > 1:
            names[label] = f"{base} ({seen[base]})"
    kb.chunks = [replace(c, topic=names[label]) for c, label in zip(kb.chunks, labels, strict=True)]
    return kb


async def _embed_all(model: Any, texts: Sequence[str], batch: int = 64) -> list[list[float]]:
    parts = [list(texts[i : i + batch]) for i in range(0, len(texts), batch)]
    found = await asyncio.gather(*(embed(model, [t[:8000] for t in part]) for part in parts))
    return [vector for part in found for vector in part]


def select_topics(kb: KnowledgeBase, wanted: Sequence[str]) -> list[Chunk]:
    """The chunks of the wanted topics (all without any); ValueError names the known ones."""
    if not wanted:
        return list(kb.chunks)
    known = kb.topics()
    by_lower = {name.lower(): name for name in known}
    unknown = [w for w in wanted if w.lower() not in by_lower]
    if unknown:
        raise ValueError(
            f"unknown topic(s) {', '.join(map(repr, unknown))}; topics of this knowledge base: "
            + ", ".join(f"{name!r} ({count})" for name, count in known.items())
        )
    keep = {by_lower[w.lower()] for w in wanted}
    return [c for c in kb.chunks if c.topic in keep]


# -- document-based ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Plan:
    chunk: Chunk
    kind: str
    variant: int
    distractor: Chunk | None


def _plans(
    chunks: list[Chunk],
    options: Options,
    need: int,
    rng: random.Random,
    used: dict[tuple[str, str], int],
) -> list[_Plan]:
    by_topic: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_topic.setdefault(chunk.topic, []).append(chunk)
    orders = {t: rng.sample(cs, len(cs)) for t, cs in sorted(by_topic.items())}
    names = sorted(orders, key=lambda t: (-len(orders[t]), t))
    positions = dict.fromkeys(names, 0)
    kinds = list(options.types)
    offset = rng.randrange(len(kinds))  # the types in turn, from a seeded start
    plans = []
    for number in range(need):
        topic = names[number % len(names)]
        order = orders[topic]
        chunk = order[positions[topic] % len(order)]
        positions[topic] += 1
        kind = kinds[(number + offset) % len(kinds)]
        distractor = None
        if kind == "distracting":
            others = [c for c in chunks if c.topic != chunk.topic] or [
                c for c in chunks if c is not chunk
            ]
            distractor = rng.choice(others) if others else None
            if distractor is None:
                kind = "simple"
        key = (chunk.where, kind)
        variant = used.get(key, 0)
        used[key] = variant + 1
        plans.append(_Plan(chunk, kind, variant, distractor))
    return plans


async def from_documents(
    chunks: list[Chunk],
    generator: Any,
    options: Options,
    *,
    embedding_model: Any | None = None,
    on_progress: ProgressFn | None = None,
) -> Outcome:
    """`options.count` scenarios from the chunks. Raises ProviderError, GenerationError."""
    if not chunks:
        raise GenerationError("no chunk to generate from")
    agent = options.agent or prompts.DEFAULT_AGENT
    outcome = Outcome(requested=options.count)
    rng = random.Random(options.seed)
    used: dict[tuple[str, str], int] = {}
    done = 0
    total = options.count

    async def one(plan: _Plan) -> Generated | str | None:
        nonlocal done
        prompt = prompts.question_prompt(
            agent,
            plan.chunk.text,
            plan.kind,
            options.turns,
            plan.variant,
            title=plan.chunk.title,
            distractor=plan.distractor.text if plan.distractor else None,
            seed=options.seed,
        )
        try:
            answer = await complete_structured(
                generator, prompt, prompts.question_schema(options.turns), name="question"
            )
            turns = [str(t).strip() for t in answer["turns"]]
            reference = str(answer["reference_answer"]).strip()
            if options.self_check:
                verdict = await complete_structured(
                    generator,
                    prompts.self_check_prompt(plan.chunk.text, turns, reference),
                    prompts.SELF_CHECK_SCHEMA,
                    name="self_check",
                )
                if verdict.get("answerable") is not True:
                    return None
        except AnswerError as exc:
            return str(exc)
        finally:
            done += 1
            if on_progress is not None:
                on_progress(min(done, total), total, "generating")
        chunk = plan.chunk
        provenance = {
            "by": GENERATOR_NAME,
            "source": chunk.source,
            "chunk": chunk.index,
            "line": chunk.line,
            "model": _model_name(generator),
            "type": plan.kind,
            "seed": options.seed,
        }
        if chunk.title:
            provenance["section"] = chunk.title
        if chunk.topic:
            provenance["topic"] = chunk.topic
        if options.turns > 1:
            provenance["turns"] = options.turns
        checks = [
            {"identifier": "hub_correctness", "params": {"reference": reference}},
            {"identifier": "hub_groundedness", "params": {"context": chunk.text}},
        ]
        tags = ([f"topic:{chunk.topic}"] if chunk.topic else []) + [f"type:{plan.kind}"]
        if options.turns > 1:
            tags.append("type:conversational")
        return Generated(turns, checks, tags, provenance, reference)

    for _ in range(ROUNDS):
        need = options.count - len(outcome.scenarios)
        if need <= 0:
            break
        # A tenth more than needed: some are dropped, and another round costs a round trip.
        need += math.ceil(need * OVERSHOOT)
        results = await asyncio.gather(*(one(p) for p in _plans(chunks, options, need, rng, used)))
        fresh: list[Generated] = []
        for result in results:
            if result is None:
                outcome.unanswerable += 1
            elif isinstance(result, str):
                outcome.invalid += 1
                outcome.first_invalid = outcome.first_invalid or result
            else:
                fresh.append(result)
        await _add_distinct(outcome, fresh, options, embedding_model)
        total = max(total, done + options.count - len(outcome.scenarios))
    if not outcome.scenarios and outcome.first_invalid:
        raise GenerationError(outcome.first_invalid)
    return outcome


async def _add_distinct(
    outcome: Outcome, fresh: list[Generated], options: Options, embedding_model: Any | None
) -> None:
    """Add the fresh scenarios that are not near-duplicates of kept (or earlier fresh) ones."""
    everything = outcome.scenarios + fresh
    texts = [" ".join(g.turns) for g in everything]
    if embedding_model is not None and getattr(embedding_model, "model", None):
        vectors = [topics.dense_to_sparse(v) for v in await _embed_all(embedding_model, texts)]
    else:
        vectors = topics.TfIdf(texts, pairs=False, drop_common=False).vectors
    dropped = topics.near_duplicates(vectors, options.similarity_threshold)
    start = len(outcome.scenarios)
    for offset, generated in enumerate(fresh):
        if start + offset in dropped:
            outcome.duplicates += 1
        elif len(outcome.scenarios) < options.count:
            outcome.scenarios.append(generated)


# -- persona-based -------------------------------------------------------------------------


async def propose_rules(generator: Any, persona: str, agent: str | None) -> dict[str, Any]:
    """Sample messages and rules the model proposes for a persona (the Hub's preview)."""
    prompt = prompts.preview_prompt(agent or prompts.DEFAULT_AGENT, persona)
    return await complete_structured(generator, prompt, prompts.PREVIEW_SCHEMA, name="preview")


async def from_persona(
    preset: PresetSpec,
    generator: Any,
    options: Options,
    *,
    embedding_model: Any | None = None,
    on_progress: ProgressFn | None = None,
) -> Outcome:
    """`options.count` scenarios in the persona's voice. Raises ProviderError, GenerationError."""
    agent = options.agent or prompts.DEFAULT_AGENT
    rules = list(preset.rules)
    if not rules:  # a persona given as text: the model proposes its rules (once, cached)
        rules = [
            str(r) for r in (await propose_rules(generator, preset.description, agent))["rules"]
        ]
    outcome = Outcome(requested=options.count)
    done = 0
    batches_made = 0

    async def batch(number: int, size: int) -> list[Generated] | str:
        nonlocal done
        prompt = prompts.persona_prompt(
            agent, preset.description, rules, size, options.turns, number, options.seed
        )
        try:
            answer = await complete_structured(
                generator, prompt, prompts.persona_schema(size, options.turns), name="scenarios"
            )
        except AnswerError as exc:
            return str(exc)
        finally:
            done += size
            if on_progress is not None:
                on_progress(min(done, options.count), options.count, "generating")
        made = []
        for item in answer["scenarios"]:
            turns = [str(t).strip() for t in item["turns"]]
            behaviour = str(item["expected_behavior"]).strip()
            provenance = {
                "by": GENERATOR_NAME,
                "persona": preset.name or preset.description,
                "model": _model_name(generator),
                "type": "persona",
                "seed": options.seed,
                "batch": number,
            }
            if options.turns > 1:
                provenance["turns"] = options.turns
            checks = [{"identifier": "hub_conformity", "params": {"rules": [*rules, behaviour]}}]
            tags = [f"persona:{preset.name}" if preset.name else "persona", "type:persona"]
            made.append(Generated(turns, checks, tags, provenance))
        return made

    for _ in range(ROUNDS):
        need = options.count - len(outcome.scenarios)
        if need <= 0:
            break
        sizes = [PERSONA_BATCH] * (need // PERSONA_BATCH) + (
            [need % PERSONA_BATCH] if need % PERSONA_BATCH else []
        )
        numbers = range(batches_made, batches_made + len(sizes))
        batches_made += len(sizes)
        results = await asyncio.gather(*(batch(n, s) for n, s in zip(numbers, sizes, strict=True)))
        fresh: list[Generated] = []
        for result, size in zip(results, sizes, strict=True):
            if isinstance(result, str):
                outcome.invalid += size
                outcome.first_invalid = outcome.first_invalid or result
            else:
                fresh.extend(result)
        await _add_distinct(outcome, fresh, options, embedding_model)
    if not outcome.scenarios and outcome.first_invalid:
        raise GenerationError(outcome.first_invalid)
    return outcome


def batch_count(count: int) -> int:
    return math.ceil(count / PERSONA_BATCH)


__all__ = [
    "MAX_COUNT",
    "Generated",
    "GenerationError",
    "Options",
    "Outcome",
    "ProviderError",
    "find_topics",
    "from_documents",
    "from_persona",
    "propose_rules",
    "select_topics",
]
