"""Topics by meaning, questions by size (issue 49 item 4): files beside the subfolders are
clustered like the rest, no topic holds more than a third of a real documentation set,
questions go to topics in proportion to their size with one at least, and the
near-duplicate filter drops exactly what its threshold says."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from pathlib import Path

import pytest

from checkspec.engine.generate import pipeline, topics
from checkspec.engine.generate.constants import DEFAULT_SIMILARITY
from checkspec.engine.generate.knowledge import Chunk, load_knowledge_base
from tests.support.paths import REPO

CORPUS = REPO / "tests" / "data" / "real_docs"


def _topics(paths: list[Path]) -> tuple[list[Chunk], list[pipeline.Topic]]:
    kb = load_knowledge_base(paths)
    asyncio.run(pipeline.find_topics(kb, None, None, name=False))
    return kb.chunks, kb.topic_list


def test_files_beside_subfolders_are_clustered_not_put_in_one_general_topic(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    (docs / "billing").mkdir(parents=True)
    for i in range(4):
        (docs / "billing" / f"invoice{i}.md").write_text(
            f"# Invoice {i}\n\nInvoices list charges, taxes and the payment due {i}.\n"
        )
    for i in range(8):
        (docs / f"pets{i}.md").write_text(f"# Pets {i}\n\nDogs and cats need food and water {i}.\n")
        (docs / f"cars{i}.md").write_text(
            f"# Cars {i}\n\nEngines, tyres and brakes need care {i}.\n"
        )
    chunks, found = _topics([docs])
    assert "general" not in {t.name for t in found}
    by_file = {Path(c.source).name: c.topic_id for c in chunks}
    assert {by_file[f"invoice{i}.md"] for i in range(4)} == {"billing"}
    pets = {by_file[f"pets{i}.md"] for i in range(8)}
    cars = {by_file[f"cars{i}.md"] for i in range(8)}
    assert len(pets) == 1 and len(cars) == 1 and pets != cars  # by what they say
    assert [t.chunks for t in found] == [8, 8, 4]


@pytest.mark.parametrize("folder", sorted(p.name for p in CORPUS.iterdir() if p.is_dir()))
def test_no_topic_holds_more_than_a_third_of_a_real_documentation_set(folder: str) -> None:
    chunks, found = _topics([CORPUS / folder])
    assert len(chunks) >= topics.BALANCE_MIN_CHUNKS
    assert max(t.chunks for t in found) <= -(-len(chunks) // 3), [(t.id, t.chunks) for t in found]
    assert len({t.id for t in found}) == len(found)


def test_a_folder_split_in_parts_names_them_after_it() -> None:
    # mkdocs-material's three pages are all in reference/: one folder, split by meaning.
    _, found = _topics([CORPUS / "mkdocs-material"])
    assert len(found) >= 3
    assert all(t.id.startswith("reference-") and t.name.startswith("reference: ") for t in found)
    assert not any(t.fixed for t in found)  # the model may name the parts


def test_a_small_knowledge_base_keeps_its_folders_whole(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "big").mkdir(parents=True)
    (docs / "small").mkdir()
    for i in range(6):
        (docs / "big" / f"p{i}.md").write_text(f"# Part {i}\n\nText of part {i}.\n")
    (docs / "small" / "one.md").write_text("# One\n\nThe only page.\n")
    _, found = _topics([docs])
    assert [(t.id, t.chunks) for t in found] == [("big", 6), ("small", 1)]


@pytest.mark.parametrize(
    ("sizes", "need", "shares"),
    [
        ([232, 33, 33, 33], 40, [26, 5, 5, 4]),  # in proportion, not 10/10/10/10
        ([100, 1, 1], 3, [1, 1, 1]),  # the floor: a small topic still gets one
        ([100, 1, 1], 12, [10, 1, 1]),
        ([5, 9, 5], 2, [1, 1, 0]),  # fewer questions than topics: the largest first
        ([30, 3], 11, [9, 2]),
        ([7], 5, [5]),
        ([], 5, []),
    ],
)
def test_questions_are_allotted_by_size_with_a_floor_of_one(
    sizes: list[int], need: int, shares: list[int]
) -> None:
    assert topics.allot(sizes, need) == shares
    assert sum(shares) == (need if sizes else 0)


def test_plans_follow_the_allotment() -> None:
    chunks = [
        Chunk(f"text {i}", f"big{i}.md", 0, topic="big", topic_id="big") for i in range(30)
    ] + [Chunk(f"text {i}", f"small{i}.md", 0, topic="small", topic_id="small") for i in range(3)]
    mix = pipeline._Mix([("simple", 1)])  # noqa: SLF001 (the planner itself, no model)
    plans = pipeline._plans(chunks, mix, 11, random.Random(0), {}, None)  # noqa: SLF001
    assert Counter(p.chunk.topic_id for p in plans) == {"big": 9, "small": 2}
    assert {plans[0].chunk.topic_id, plans[1].chunk.topic_id} == {"big", "small"}


def test_near_duplicates_at_the_threshold_are_dropped_and_below_kept() -> None:
    first = {0: 1.0}
    # Exactly representable: cosine(first, other) == 0.8.
    other = {0: 0.8, 1: 0.6}
    assert topics.cosine(first, other) == 0.8
    assert topics.near_duplicates([first, other], 0.8) == {1}
    assert topics.near_duplicates([first, other], 0.8 + 1e-9) == set()
    assert topics.near_duplicates([first, other], 0.79) == {1}


def test_the_default_threshold_keeps_a_pair_just_below_it() -> None:
    def pair(similarity: float) -> list[topics.Vector]:
        return [{0: 1.0}, {0: similarity, 1: (1 - similarity**2) ** 0.5}]

    assert topics.near_duplicates(pair(DEFAULT_SIMILARITY + 0.02), DEFAULT_SIMILARITY) == {1}
    assert topics.near_duplicates(pair(DEFAULT_SIMILARITY - 0.02), DEFAULT_SIMILARITY) == set()
