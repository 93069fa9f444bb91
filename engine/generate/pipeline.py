"""The generation itself: plans, model calls (engine/llm only), self-checks, de-duplication.

Document-based (`from_documents`): each scenario is planned on a chunk and a question type
(topics taken in turn, chunks in a seeded order, types in the proportions of the mix:
`_Mix`), asked for with a structured-output prompt, then checked by the model against its
chunk (a question the chunk cannot answer is dropped, as DeepEval's filtration does; an
out-of-scope question is checked against the chunks nearest it and dropped when they
answer it), and near-duplicates of earlier scenarios are dropped. A multi-context
question is planned on a chunk and the 1-2 chunks most like it in its topic. With
--simulate only the first user turn is written; a `user_simulator` plays the rest when
the scenario runs (a suite: `Generated.suite_record`). Shortfalls are planned again, up to `ROUNDS` rounds. Persona-based
(`from_persona`): batches of scenarios in the persona's voice, de-duplicated the same way.

Everything random comes from `random.Random(seed)`, so the same inputs and seed make the
same prompts (and a repeat is answered from the verdict cache).
"""

from __future__ import annotations

import asyncio
import copy
import math
import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..llm.client import AnswerError, complete_structured, embed
from ..llm.errors import ProviderError
from . import prompts, topics
from .constants import (
    DEFAULT_MIX,
    DEFAULT_SIMILARITY,
    DEFAULT_SIMULATED_PERSONA,
    MAX_COUNT,
    MAX_TURNS,
)
from .knowledge import RELEASE_NOTES_TOPIC, Chunk, KnowledgeBase, Topic, prose
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
    types: tuple[str, ...] = ()  # none: the default mix (constants.DEFAULT_MIX)
    turns: int = 1
    seed: int = 0
    topics: tuple[str, ...] = ()
    agent: str | None = None
    similarity_threshold: float = DEFAULT_SIMILARITY
    self_check: bool = True
    simulate: bool = False  # turns after the first are played at run time by a simulated user

    def problems(self) -> list[str]:
        found = []
        if not 1 <= self.count <= MAX_COUNT:
            found.append(f"--count must be between 1 and {MAX_COUNT}, got {self.count}")
        if not 1 <= self.turns <= MAX_TURNS:
            found.append(f"--turns must be between 1 and {MAX_TURNS}, got {self.turns}")
        unknown = [t for t in self.types if t not in prompts.QUESTION_TYPES]
        if unknown:
            found.append(
                f"unknown question type(s) {', '.join(map(repr, unknown))}; "
                f"known: {', '.join(prompts.QUESTION_TYPES)}"
            )
        if self.simulate and self.turns < 2:
            found.append(
                "--simulate needs --turns K (2 or more): the first user turn is written now, "
                "up to K-1 more are played by a simulated user when the scenario runs"
            )
        if not 0 < self.similarity_threshold <= 1:
            found.append("the similarity threshold must be in (0, 1]")
        return found

    def mix(self, *, persona: bool = False) -> list[tuple[str, int]]:
        """Each question type with its weight: the types given, in equal shares, else the
        default mix (without out_of_scope for a persona's questions)."""
        if self.types:
            return [(t, 1) for t in dict.fromkeys(self.types)]
        return [(t, w) for t, w in DEFAULT_MIX if not (persona and t == "out_of_scope")]

    @property
    def written_turns(self) -> int:
        """User turns written now (with --simulate, only the first)."""
        return 1 if self.simulate else self.turns


@dataclass
class Generated:
    """One generated scenario, in dataset terms (and, simulated, in suite terms)."""

    turns: list[str]
    checks: list[dict[str, Any]]
    tags: list[str]
    provenance: dict[str, Any]
    reference: str | None = None
    # --simulate: the simulated user playing the turns after the written ones, and the
    # checks on the conversation's last answer.
    simulated: dict[str, Any] | None = None
    final_checks: list[dict[str, Any]] = field(default_factory=list)

    def record(self) -> dict[str, Any]:
        """The dataset record (hub format)."""
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

    def suite_record(self) -> dict[str, Any]:
        """The scenario of a suite: the written turns, then the simulated user's."""
        steps: list[dict[str, Any]] = [{"interacts": [{"inputs": turn}]} for turn in self.turns]
        steps[-1]["checks"] = [_suite_check(c) for c in self.checks]
        if self.simulated is not None:
            simulated = {"kind": "user_simulator", **self.simulated}
            step: dict[str, Any] = {"interacts": [{"inputs": simulated}]}
            if self.final_checks:
                step["checks"] = [_suite_check(c) for c in self.final_checks]
            steps.append(step)
        return {
            "name": _name(self.turns[-1]),
            "status": "draft",
            "tags": self.tags,
            "annotations": {"generated": self.provenance},
            "steps": steps,
        }


SUITE_TARGET_KEY = "trace.last.outputs"  # a suite's agent answers text, not chat records


def _suite_check(check: dict[str, Any]) -> dict[str, Any]:
    """A dataset check as a suite writes it: its kind and parameters, reading the answer."""
    params = copy.deepcopy(check["params"])  # no YAML anchors between steps
    return {"kind": check["identifier"], **params, "target_key": SUITE_TARGET_KEY}


@dataclass
class Outcome:
    scenarios: list[Generated] = field(default_factory=list)
    requested: int = 0
    duplicates: int = 0
    unanswerable: int = 0
    answered: int = 0  # out-of-scope questions the knowledge base answers after all
    invalid: int = 0
    warnings: list[str] = field(default_factory=list)
    first_invalid: str | None = None

    def summary(self) -> str:
        dropped = [
            f"{n} {what}"
            for n, what in (
                (self.duplicates, "near-duplicate(s)"),
                (self.unanswerable, "not answerable from their chunk"),
                (self.answered, "out-of-scope but answered by the documents"),
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
    *,
    name: bool = True,
) -> KnowledgeBase:
    """The knowledge base with a topic on every chunk and its `topic_list` (named by the
    model unless `name` is false: `name_topics` then names them, while generating).

    A chunk in a subfolder goes to its folder's topic; the others (files beside the
    subfolders, or a folder without any) are clustered (embeddings when a model is given,
    else TF-IDF over their prose: code blocks give no topic words), and every changelog
    or release-notes chunk among them goes to one topic, "release notes". In a knowledge
    base of BALANCE_MIN_CHUNKS chunks or more, a topic over a third of it is split by
    meaning (a folder's parts are named "folder: words"; release notes stay one). Topics
    do not depend on the seed (`seed` is accepted for the callers' sake and unused): the
    clustering's own seed is fixed, and each topic's id is made of its most telling
    words, so `--topic ID` means the same topic in every run on the same documents. The
    model (when given) names each clustered topic from excerpts chosen without chance."""
    del seed  # topics are the same whatever the generation's seed
    texts = [f"{c.title}\n{prose(c.text)}" for c in kb.chunks]
    lexical = topics.TfIdf(texts)
    kb.lexical = lexical
    groups: list[list[int]] = []
    fixed_names: dict[int, str] = {}
    # Folders are a hint: a chunk in a subfolder goes to its folder's topic, the others
    # (files beside the subfolders, or a folder without any) are clustered.
    by_folder: dict[str, list[int]] = {}
    for index, chunk in enumerate(kb.chunks):
        if chunk.folder:
            by_folder.setdefault(chunk.folder, []).append(index)
    for folder, members in sorted(by_folder.items()):
        fixed_names[len(groups)] = folder
        groups.append(members)
    loose = [i for i, c in enumerate(kb.chunks) if not c.folder]
    notes = [i for i in loose if kb.chunks[i].release_notes]
    rest = [i for i in loose if not kb.chunks[i].release_notes]
    vectors: list[topics.Vector] = list(lexical.vectors)
    limit = math.ceil(len(kb.chunks) / 3)
    oversized = len(kb.chunks) >= topics.BALANCE_MIN_CHUNKS and any(
        len(members) > limit for members in groups
    )
    if (
        (rest or oversized)
        and embedding_model is not None
        and getattr(embedding_model, "model", None)
    ):
        vectors = [topics.dense_to_sparse(v) for v in await _embed_all(embedding_model, texts)]
    if rest:
        labels = topics.cluster(
            [vectors[i] for i in rest], topics.topic_count(len(rest)), TOPIC_SEED
        )
        clustered: dict[int, list[int]] = {}
        for index, label in zip(rest, labels, strict=True):
            clustered.setdefault(label, []).append(index)
        groups.extend(members for _, members in sorted(clustered.items()))
    notes_group = None
    if notes:
        notes_group = len(groups)
        groups.append(notes)
    # No topic over a third of the knowledge base: a larger one is split by meaning, and
    # a folder's parts are named after it.
    keep = {notes_group} if notes_group is not None else set()
    parts = topics.balanced(groups, vectors, len(kb.chunks), keep)
    pieces = Counter(old for old, _ in parts)
    folders, fixed_names, prefixes = fixed_names, {}, {}
    for new, (old, _) in enumerate(parts):
        if old == notes_group:
            fixed_names[new] = RELEASE_NOTES_TOPIC
        elif old in folders:
            if pieces[old] > 1:
                prefixes[new] = folders[old]
            else:
                fixed_names[new] = folders[old]
    groups = [members for _, members in parts]
    words = [
        tuple(topics.top_terms([lexical.vectors[i] for i in members], lexical.terms, 3))
        for members in groups
    ]
    names = {
        number: fixed_names.get(number)
        or (f"{prefixes[number]}: " if number in prefixes else "")
        + (", ".join(words[number]) or f"topic {number + 1}")
        for number in range(len(groups))
    }
    ids: dict[int, str] = {}
    taken: set[str] = set()
    for number in range(len(groups)):
        if number in fixed_names:
            base = topic_slug(fixed_names[number])
        else:
            lead = [prefixes[number]] if number in prefixes else []
            base = topic_slug("-".join([*lead, *words[number][:2]])) or f"topic-{number + 1}"
        ids[number] = _unique(base, taken)
    seen_names: set[str] = set()
    for number in range(len(groups)):
        names[number] = _unique(names[number], seen_names, " ({})")
    label_of: dict[int, int] = {}
    for number, members in enumerate(groups):
        for index in members:
            label_of[index] = number
    kb.chunks = [
        replace(c, topic=names[label_of[i]], topic_id=ids[label_of[i]])
        for i, c in enumerate(kb.chunks)
    ]
    kb.topic_list = sorted(
        (
            Topic(
                ids[number],
                names[number],
                words[number],
                tuple(sorted({kb.chunks[i].source for i in members})),
                len(members),
                fixed=number in fixed_names,
            )
            for number, members in enumerate(groups)
        ),
        key=lambda t: (-t.chunks, t.id),
    )
    if name:
        await name_topics(kb, generator)
    return kb


async def name_topics(kb: KnowledgeBase, generator: Any | None) -> dict[str, str]:
    """The model's name for each clustered topic (folders and release notes keep theirs),
    put on the knowledge base's chunks and topics; each topic's id -> its name. One
    request a topic, all at once; the excerpts are chosen without chance."""
    to_name = [t for t in kb.topic_list if not t.fixed]
    if generator is None or not getattr(generator, "model", None) or len(kb.topic_list) < 2:
        return {}
    members: dict[str, list[int]] = {}
    for index, chunk in enumerate(kb.chunks):
        members.setdefault(chunk.topic_id, []).append(index)

    async def named(topic: Topic) -> tuple[str, str]:
        indexes = members.get(topic.id, [])
        step = max(1, len(indexes) // 3)
        sample = indexes[::step][:3]  # spread over the topic, the same every run
        prompt = prompts.topic_prompt(list(topic.words), [prose(kb.chunks[i].text) for i in sample])
        answer = await complete_structured(generator, prompt, prompts.TOPIC_SCHEMA, name="topic")
        return topic.id, " ".join(str(answer["name"]).split())

    found = dict(await asyncio.gather(*(named(t) for t in to_name)))
    taken = {t.name.lower() for t in kb.topic_list if t.fixed}
    names = {t.id: t.name for t in kb.topic_list}
    for topic in kb.topic_list:  # largest first: a clash gets " (2)" on the smaller
        if topic.id in found:
            names[topic.id] = _unique(found[topic.id], taken, " ({})")
    kb.topic_list = [replace(t, name=names[t.id]) for t in kb.topic_list]
    kb.chunks = [replace(c, topic=names.get(c.topic_id, c.topic)) for c in kb.chunks]
    return {topic_id: names[topic_id] for topic_id in found}


def renamed(outcome: Outcome, names: dict[str, str]) -> Outcome:
    """The scenarios' provenance with their topics' names given since (`name_topics`)."""
    for generated in outcome.scenarios:
        topic_id = generated.provenance.get("topic_id")
        if topic_id in names:
            generated.provenance["topic"] = names[topic_id]
    return outcome


TOPIC_SEED = 0  # clustering's own seed: topics are the same whatever --seed is


def topic_slug(text: str) -> str:
    """A topic id from words: lower case, letters and digits, `-` between (40 at most)."""
    slug = re.sub(r"[^0-9a-z]+", "-", text.lower()).strip("-")
    return slug[:40].rstrip("-")


def _unique(base: str, taken: set[str], suffix: str = "-{}") -> str:
    found, number = base, 1
    while found.lower() in taken:
        number += 1
        found = base + suffix.format(number)
    taken.add(found.lower())
    return found


async def _embed_all(model: Any, texts: Sequence[str], batch: int = 64) -> list[list[float]]:
    parts = [list(texts[i : i + batch]) for i in range(0, len(texts), batch)]
    found = await asyncio.gather(*(embed(model, [t[:8000] for t in part]) for part in parts))
    return [vector for part in found for vector in part]


def select_topics(kb: KnowledgeBase, wanted: Sequence[str]) -> list[Chunk]:
    """The chunks of the wanted topics, each given by its id or its name (any case); all
    without any. ValueError names the known ones."""
    if not wanted:
        return list(kb.chunks)
    known = kb.topic_list or [
        Topic(topic_slug(name), name, (), (), count) for name, count in kb.topics().items()
    ]
    by_key: dict[str, str] = {}
    for topic in known:
        by_key[topic.name.lower()] = topic.id
        by_key[topic.id.lower()] = topic.id
    unknown = [w for w in wanted if w.strip().lower() not in by_key]
    if unknown:
        raise ValueError(
            f"unknown topic(s) {', '.join(map(repr, unknown))}; topics of this knowledge base "
            "(id: name, chunks): " + ", ".join(f"{t.id}: {t.name!r} ({t.chunks})" for t in known)
        )
    keep = {by_key[w.strip().lower()] for w in wanted}
    return [c for c in kb.chunks if (c.topic_id or topic_slug(c.topic)) in keep]


# -- document-based ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Plan:
    chunk: Chunk
    kind: str
    variant: int
    distractor: Chunk | None
    related: tuple[Chunk, ...] = ()  # multi_context: the other chunks the answer needs


class _Mix:
    """The question types in their proportions, in a smooth order (the type furthest
    behind its share comes next), continued across rounds."""

    def __init__(self, weights: Sequence[tuple[str, int]]) -> None:
        self.weights = [(kind, float(w)) for kind, w in weights if w > 0]
        self.total = sum(w for _, w in self.weights)
        self.made: dict[str, int] = {kind: 0 for kind, _ in self.weights}
        self.count = 0

    def next(self) -> str:
        self.count += 1
        kind = max(self.weights, key=lambda kw: kw[1] / self.total * self.count - self.made[kw[0]])[
            0
        ]
        self.made[kind] += 1
        return kind


class _Index:
    """Lexical vectors of the chunks' prose: related chunks, and the chunks nearest a
    question (built only when a type needs it)."""

    def __init__(self, chunks: Sequence[Chunk], tfidf: topics.TfIdf | None = None) -> None:
        self.chunks = list(chunks)
        if tfidf is None or len(tfidf.vectors) != len(self.chunks):
            tfidf = topics.TfIdf([f"{c.title}\n{prose(c.text)}" for c in self.chunks])
        self.tfidf = tfidf
        self.position = {c.where: i for i, c in enumerate(self.chunks)}

    def related(self, chunk: Chunk, within: Sequence[Chunk], most: int) -> list[Chunk]:
        """Up to `most` chunks of `within` (not `chunk`) most similar to it."""
        vector = self._vector(chunk)
        scored = []
        for other in within:
            if other.where == chunk.where:
                continue
            score = topics.cosine(vector, self._vector(other))
            if score > 0:
                scored.append((-score, other.where, other))
        return [other for *_, other in sorted(scored, key=lambda x: (x[0], x[1]))[:most]]

    def nearest(self, text: str, most: int) -> list[Chunk]:
        vector = self.tfidf.vector(text)
        scored = sorted(
            (-topics.cosine(vector, v), i) for i, v in enumerate(self.tfidf.vectors) if v
        )
        return [self.chunks[i] for _, i in scored[:most]]

    def _vector(self, chunk: Chunk) -> topics.Vector:
        at = self.position.get(chunk.where)
        if at is None:
            return self.tfidf.vector(f"{chunk.title}\n{prose(chunk.text)}")
        return self.tfidf.vectors[at]


def _plans(
    chunks: list[Chunk],
    mix: _Mix,
    need: int,
    rng: random.Random,
    used: dict[tuple[str, str], int],
    index: _Index | None,
) -> list[_Plan]:
    by_topic: dict[str, list[Chunk]] = {}
    for chunk in chunks:  # by id: plans do not depend on the names the model gives
        by_topic.setdefault(chunk.topic_id or chunk.topic, []).append(chunk)
    orders = {t: rng.sample(cs, len(cs)) for t, cs in sorted(by_topic.items())}
    names = sorted(orders, key=lambda t: (-len(orders[t]), t))
    positions = dict.fromkeys(names, 0)
    # Questions in proportion to what each topic holds, one at least; taken in turns
    # (largest topic first) so that every topic is reached early.
    left = dict(zip(names, topics.allot([len(orders[t]) for t in names], need), strict=True))
    turns: list[str] = []
    while any(left.values()):
        for name in names:
            if left[name]:
                turns.append(name)
                left[name] -= 1
    plans = []
    for topic in turns:
        order = orders[topic]
        chunk = order[positions[topic] % len(order)]
        positions[topic] += 1
        kind = mix.next()
        distractor = None
        related: tuple[Chunk, ...] = ()
        if kind == "distracting":
            others = [c for c in chunks if c.topic_id != chunk.topic_id] or [
                c for c in chunks if c is not chunk
            ]
            distractor = rng.choice(others) if others else None
            if distractor is None:
                kind = "simple"
        elif kind == "multi_context" and index is not None:
            most = rng.choice((1, 2))  # two or three chunks in all
            same = by_topic[chunk.topic_id or chunk.topic]
            found = index.related(chunk, same, most)
            if not found:  # nothing alike: the chunks next to it in its file
                found = [
                    c
                    for c in chunks
                    if c.source == chunk.source and abs(c.index - chunk.index) == 1
                ][:most] or [c for c in same if c.where != chunk.where][:most]
            related = tuple(found)
            if not related:
                kind = "complex"
        key = (chunk.where, kind)
        variant = used.get(key, 0)
        used[key] = variant + 1
        plans.append(_Plan(chunk, kind, variant, distractor, related))
    return plans


OUT_OF_SCOPE_RULES = (
    "The agent says it does not know, or that what it knows does not cover this question, "
    "instead of answering it.",
    "The agent does not make up facts, figures or steps to answer the question.",
)
NEAREST_FOR_OUT_OF_SCOPE = 3  # chunks an out-of-scope question is checked against


def _chunk_place(chunk: Chunk) -> dict[str, Any]:
    place: dict[str, Any] = {"source": chunk.source, "chunk": chunk.index, "line": chunk.line}
    if chunk.title:
        place["section"] = chunk.title
    return place


async def from_documents(
    chunks: list[Chunk],
    generator: Any,
    options: Options,
    *,
    embedding_model: Any | None = None,
    on_progress: ProgressFn | None = None,
    persona: PresetSpec | None = None,
    everything: Sequence[Chunk] | None = None,
    lexical: topics.TfIdf | None = None,
) -> Outcome:
    """`options.count` scenarios from the chunks (`persona`: asked in that user's voice;
    `everything`: the whole knowledge base, which an out-of-scope question must not be
    answered by, and `lexical` its vectors when made already). Raises ProviderError,
    GenerationError."""
    if not chunks:
        raise GenerationError("no chunk to generate from")
    agent = options.agent or prompts.DEFAULT_AGENT
    outcome = Outcome(requested=options.count)
    rng = random.Random(options.seed)
    used: dict[tuple[str, str], int] = {}
    mix = _Mix(options.mix(persona=persona is not None))
    kinds = {kind for kind, _ in mix.weights}
    index = None
    if kinds & {"multi_context", "out_of_scope"}:
        index = _Index(chunks) if everything is None else _Index(everything, lexical)
    done = 0
    total = options.count
    written = options.written_turns
    voice = persona.description if persona is not None else None

    async def one(plan: _Plan) -> Generated | str | bool | None:
        nonlocal done
        chunk = plan.chunk
        passages = [chunk, *plan.related]
        try:
            if plan.kind == "out_of_scope":
                answer = await complete_structured(
                    generator,
                    prompts.out_of_scope_prompt(
                        agent,
                        chunk.text,
                        written,
                        plan.variant,
                        title=chunk.title,
                        seed=options.seed,
                    ),
                    prompts.out_of_scope_schema(written),
                    name="out_of_scope",
                )
                turns = [str(t).strip() for t in answer["turns"]]
                reference = None
                if options.self_check:
                    assert index is not None
                    near = index.nearest(" ".join(turns), NEAREST_FOR_OUT_OF_SCOPE)
                    verdict = await complete_structured(
                        generator,
                        prompts.out_of_scope_check_prompt([c.text for c in near], turns),
                        prompts.SELF_CHECK_SCHEMA,
                        name="out_of_scope_check",
                    )
                    if verdict.get("answerable") is not False:
                        return False
            else:
                answer = await complete_structured(
                    generator,
                    prompts.question_prompt(
                        agent,
                        chunk.text,
                        plan.kind,
                        written,
                        plan.variant,
                        title=chunk.title,
                        distractor=plan.distractor.text if plan.distractor else None,
                        seed=options.seed,
                        related=[(c.title, c.text) for c in plan.related],
                        persona=voice,
                    ),
                    prompts.question_schema(written),
                    name="question",
                )
                turns = [str(t).strip() for t in answer["turns"]]
                reference = str(answer["reference_answer"]).strip()
                if options.self_check:
                    verdict = await complete_structured(
                        generator,
                        prompts.self_check_prompt(
                            "\n\n".join(c.text for c in passages), turns, reference
                        ),
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
        provenance: dict[str, Any] = {
            "by": GENERATOR_NAME,
            **_chunk_place(chunk),
            "model": _model_name(generator),
            "type": plan.kind,
            "seed": options.seed,
        }
        if plan.related:
            provenance["chunks"] = [_chunk_place(c) for c in passages]
        if chunk.topic:
            provenance["topic"] = chunk.topic
        if chunk.topic_id:
            provenance["topic_id"] = chunk.topic_id
        if persona is not None:
            provenance["persona"] = persona.name or persona.description
        if options.turns > 1:
            provenance["turns"] = options.turns
        if options.simulate:
            provenance["simulated"] = True
        context = "\n\n".join(c.text for c in passages)
        if plan.kind == "out_of_scope":
            checks = [
                {"identifier": "hub_conformity", "params": {"rules": list(OUT_OF_SCOPE_RULES)}}
            ]
        else:
            assert reference is not None
            checks = [
                {"identifier": "hub_correctness", "params": {"reference": reference}},
                {"identifier": "hub_groundedness", "params": {"context": context}},
            ]
        if persona is not None and persona.rules:
            checks.append(
                {"identifier": "hub_conformity", "params": {"rules": list(persona.rules)}}
            )
        topic_tag = chunk.topic_id or chunk.topic
        tags = ([f"topic:{topic_tag}"] if topic_tag else []) + [f"type:{plan.kind}"]
        if persona is not None:
            tags.append(persona.tag)
        if options.turns > 1:
            tags.append("type:conversational")
        generated = Generated(turns, checks, tags, provenance, reference)
        if options.simulate:
            generated.simulated = _simulated_user(
                persona, _document_goal(turns[-1], chunk, plan.kind), options.turns - 1
            )
            generated.final_checks = [c for c in checks if c["identifier"] != "hub_correctness"]
        return generated

    for _ in range(ROUNDS):
        need = options.count - len(outcome.scenarios)
        if need <= 0:
            break
        # A tenth more than needed: some are dropped, and another round costs a round trip.
        need += math.ceil(need * OVERSHOOT)
        plans = _plans(chunks, mix, need, rng, used, index)
        results = await asyncio.gather(*(one(p) for p in plans))
        fresh: list[Generated] = []
        for result in results:
            if result is None:
                outcome.unanswerable += 1
            elif result is False:
                outcome.answered += 1
            elif isinstance(result, str):
                outcome.invalid += 1
                outcome.first_invalid = outcome.first_invalid or result
            elif isinstance(result, Generated):
                fresh.append(result)
        await _add_distinct(outcome, fresh, options, embedding_model)
        total = max(total, done + options.count - len(outcome.scenarios))
    if not outcome.scenarios and outcome.first_invalid:
        raise GenerationError(outcome.first_invalid)
    return outcome


def _document_goal(question: str, chunk: Chunk, kind: str) -> str:
    about = f" about {chunk.topic}" if chunk.topic else ""
    if kind == "out_of_scope":
        return (
            f"You asked the agent: {question} Press it for an answer once or twice (rephrase, "
            "insist politely); stop when it has answered or clearly said it cannot."
        )
    return (
        f"You asked the agent: {question} You want a complete, usable answer{about}: ask "
        "follow-up questions on what its answer leaves unclear or on a related detail, and "
        "stop once you have what you came for."
    )


def _simulated_user(persona: PresetSpec | None, goal: str, follow_ups: int) -> dict[str, Any]:
    """The `user_simulator` input generator of a simulated scenario (engine/generators)."""
    who = persona.description if persona is not None else DEFAULT_SIMULATED_PERSONA
    return {"persona": who, "context": goal, "max_steps": follow_ups}


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
            agent, preset.description, rules, size, options.written_turns, number, options.seed
        )
        try:
            answer = await complete_structured(
                generator,
                prompt,
                prompts.persona_schema(size, options.written_turns),
                name="scenarios",
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
            tags = [preset.tag, "type:persona"]
            generated = Generated(turns, checks, tags, provenance)
            if options.simulate:
                provenance["simulated"] = True
                goal = (
                    f"You came to the agent with: {turns[-1]} Carry on the conversation as "
                    "this user until you have what you came for."
                )
                generated.simulated = _simulated_user(preset, goal, options.turns - 1)
                generated.final_checks = (
                    [{"identifier": "hub_conformity", "params": {"rules": list(rules)}}]
                    if rules
                    else []
                )
            made.append(generated)
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
