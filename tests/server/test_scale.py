"""What keeps the language server fast on huge files, each shown to do its job.

Speed itself is measured in bench/lsp_vs_yaml_ls.py; here: big analyses are frozen out
of the collector's sight, runnable scenarios are rebuilt on demand and equal the ones
kept, line indexes are shared by text and not kept alive, a long list is searched by
bisection with the same answers as a scan, and diagnostics wait as long as analyses take.
"""

from __future__ import annotations

import asyncio
import gc
import random
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from checkspec.engine.core.gcpause import freeze_bulk, gc_paused
from checkspec.engine.spec import scenario_analysis
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.lines import LineIndex, LinesView, index_of, remember, split_lines
from checkspec.engine.spec.problems import Position
from checkspec.engine.spec.source import parse_source
from checkspec.engine.spec.tree import Node, _hit
from checkspec.server.lsp.diagnostics import MIN_DELAY, delay
from tests.support.spec_texts import suite


@pytest.fixture
def frozen_bulk() -> Iterator[None]:
    freeze_bulk(True)
    try:
        yield
    finally:
        freeze_bulk(False)
        gc.unfreeze()


def test_a_big_analysis_is_frozen_before_the_collector_runs_again(frozen_bulk: None) -> None:
    # A fresh analysis: scenarios another test analysed are cached (a few allocations).
    scenario_analysis._CACHE.clear()  # noqa: SLF001
    gc.unfreeze()
    before = gc.get_freeze_count()
    document = analyze(suite(300), "big.suite.yaml")
    assert gc.get_freeze_count() > before + 100_000  # the tree, out of the collector's sight
    assert gc.isenabled()
    del document


def test_a_small_analysis_is_left_to_the_young_collections(frozen_bulk: None) -> None:
    gc.unfreeze()
    gc.collect()
    analyze(suite(1), "small.suite.yaml")
    assert gc.get_freeze_count() == 0


def test_without_freeze_bulk_nothing_is_frozen() -> None:
    gc.unfreeze()
    analyze(suite(300), "big.suite.yaml")
    assert gc.get_freeze_count() == 0
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_scenarios_rebuilt_on_demand_equal_the_ones_kept() -> None:
    text = suite(12)
    kept = analyze(text, "kept.suite.yaml")
    scenario_analysis._CACHE.clear()  # noqa: SLF001
    try:
        lazy = analyze(text, "lazy.suite.yaml", keep=False)
    finally:
        scenario_analysis._CACHE.clear()  # noqa: SLF001
    assert all(entry.built is None for entry in lazy.scenarios)
    for a, b in zip(kept.scenarios, lazy.scenarios, strict=True):
        got = b.scenario
        assert (got is None) == (a.scenario is None)
        if got is not None and a.scenario is not None:
            assert got.model_dump(mode="json") == a.scenario.model_dump(mode="json")


def test_a_line_index_is_shared_by_text_and_dies_with_its_holders() -> None:
    text = "a\nb\n" * 10
    kept = remember(LineIndex(text))
    assert index_of(text) is kept
    other = "".join(["a\nb\n"] * 10)  # equal, but another object: another index
    assert other == text and index_of(other) is not kept
    del kept
    gc.collect()
    assert index_of(text).text is text  # made again: nothing held the first one


def test_lines_view_reads_like_the_split_text() -> None:
    text = "one\r\ntwo\rthree\n\nfive"
    view = LinesView(LineIndex(text))
    assert list(view) == split_lines(text)
    assert len(view) == 5 and view[-1] == "five" and view[1] == "two"
    assert list(view[1:4]) == split_lines(text)[1:4] and list(view[3:]) == ["", "five"]


def _scan(root: Node | None, pos: Position) -> Node | None:
    """The node at `pos` found the plain way, scanning every child."""
    node = root
    if node is None or not (_hit(node.range, pos, False) or _hit(node.range, pos, True)):
        return None
    while True:
        if node.kind == "mapping":
            children = [
                (c, k)
                for k, v in node.entries[node._merged :]  # noqa: SLF001
                for c in ((k, True), (v, False))
            ]
        elif node.kind == "sequence":
            children = [((item, False), None) for item in node.items]
        else:
            return node
        found = next(
            (
                c
                for touching in (False, True)
                for c, _ in children
                if _hit(c[0].range, pos, touching)
            ),
            None,
        )
        if found is None:
            return node
        child, is_key = found
        if is_key:
            return child
        node = child


@pytest.mark.parametrize("text", [suite(40), suite(30, indent="  "), "l: [" + "1, " * 60 + "]\n"])
def test_a_long_list_is_searched_by_bisection_with_the_answers_of_a_scan(text: str) -> None:
    source = parse_source(text)
    index = LineIndex(text)
    r = random.Random(3)
    for offset in [*range(0, len(text), 7), *(r.randrange(len(text)) for _ in range(50))]:
        pos = index.position(offset)
        assert source.node_at(*pos) is _scan(source.root, pos), pos


def test_diagnostics_wait_as_long_as_the_last_analysis_took() -> None:
    assert delay(0.0, 0.15) == MIN_DELAY
    assert delay(0.03, 0.15) == 0.03
    assert delay(2.5, 0.15) == 0.15


def test_an_analysis_holds_no_reference_cycles() -> None:
    """Frozen analyses are freed by reference counting alone: a cycle would stay forever."""
    from checkspec.engine.spec.incremental import Editing

    text = suite(20) + "\n".join(f"# padding {i}" for i in range(3))
    rows = '{"interactions": [{"input": "hi #1", "output": "a"}]}\n' * 5
    try:
        gc.collect()
        editing = Editing(text, "a.suite.yaml", keep=False)
        jsonl = Editing(rows, "a.dataset.jsonl", keep=False)
        first = editing.analysis()  # comment-cut values (`#1?`) in every scenario: hints
        jsonl.analysis()
        at = text.index("kind: string_matching", 2000) + len("kind: ")
        editing.replace(at, at, "x")
        editing.analysis()
        jsonl.replace(0, 0, "\n")
        jsonl.analysis()
        assert first.layout is not None and first.layout.cuts  # the case that made cycles
        gc.collect()
        del editing, jsonl, first
        scenario_analysis._CACHE.clear()  # noqa: SLF001
        assert gc.collect() == 0
    finally:
        pass


def _recording_scenario(seen: list[tuple[int, ...]]) -> Any:
    from checkspec.engine import Scenario

    # Async: read in the event loop's turn the batch started in. A plain function runs
    # in a worker thread, which may read after the loop restored the thresholds.
    async def target(inputs: Any) -> str:
        seen.append(gc.get_threshold())
        return "hello"

    return Scenario.model_validate(
        {
            "name": "a",
            "target": target,
            "steps": [
                {
                    "interacts": [{"inputs": "hi"}],
                    "checks": [{"kind": "string_matching", "keyword": "hello"}],
                }
            ],
        }
    )


def test_scenarios_run_together_with_fewer_collections_then_the_thresholds_return() -> None:
    from checkspec.engine.core.gcpause import RUN_THRESHOLD

    seen: list[tuple[int, ...]] = []
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:

        async def batch() -> tuple[int, ...]:
            results = await asyncio.gather(*(_recording_scenario(seen).run() for _ in range(3)))
            assert all(r.passed for r in results)
            await asyncio.sleep(0)
            return gc.get_threshold()

        after = asyncio.run(batch())
        assert seen == [(RUN_THRESHOLD, 10, 10)] * 3
        assert after == gc.get_threshold() == (700, 10, 10)
        # a threshold someone set during the batch is theirs: left as it is
        gc.set_threshold(700, 10, 10)

        async def changed() -> tuple[int, ...]:
            await _recording_scenario(seen).run()
            gc.set_threshold(5_000, 10, 10)
            await asyncio.sleep(0)
            return gc.get_threshold()

        assert asyncio.run(changed()) == (5_000, 10, 10)
        # with the collector off nothing changes
        gc.set_threshold(700, 10, 10)
        gc.disable()
        try:
            asyncio.run(_recording_scenario(seen).run())
        finally:
            gc.enable()
        assert seen[-1] == (700, 10, 10)
    finally:
        gc.set_threshold(*before)


@pytest.mark.parametrize(
    ("argv", "frozen"),
    [(["validate"], True), (["run"], True), (["run", "--watch"], False)],
    ids=["validate", "run", "watch"],
)
def test_the_cli_freezes_a_big_analysis_except_in_watch_mode(
    tmp_path: Path, argv: list[str], frozen: bool
) -> None:
    # validate and a single run hold their analysis until they exit; a watch session
    # would keep each round's garbage cycles frozen for good.
    spec = tmp_path / "big.suite.yaml"
    spec.write_text(suite(300), encoding="utf-8")
    script = textwrap.dedent(
        f"""
        import gc, sys
        from checkspec.engine.core import gcpause
        from checkspec.engine.spec import document
        analyze = document.analyze
        seen = []
        def spy(*args, **kwargs):  # the freeze count once the file's analysis is made
            result = analyze(*args, **kwargs)
            seen.append(gc.get_freeze_count())
            raise KeyboardInterrupt  # nothing to run: the analysis is what is looked at
        document.analyze = spy
        from checkspec.engine.cli.main import main
        main({[*argv, str(spec)]!r})
        print("FROZEN", seen[0] if seen else "none")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    line = [x for x in done.stdout.splitlines() if x.startswith("FROZEN")]
    assert line, done.stdout + done.stderr
    count = line[-1].split()[1]
    assert count != "none", done.stderr
    assert (int(count) > 50_000) is frozen  # the tree: ~80,000 objects
