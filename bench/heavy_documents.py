"""The language server under one heavy document (issue 48, item 3): how long a request on
another, small document waits while the server analyses a heavy one.

    .venv/bin/python bench/heavy_documents.py                       # every case, full size
    .venv/bin/python bench/heavy_documents.py --rows 20000 --cases open edits
    .venv/bin/python bench/heavy_documents.py --row-mb 10 --cases row

The server over stdio (`python -m checkspec.server`), a pygls client (bench/quiet_client.py)
that records the diagnostics pushed to it; a small scenario file is open beside the heavy
one and hovered every 50 ms (on a check's kind) while the heavy work runs. Cases (a fresh
server each):

- open: a JSON Lines dataset of --rows rows (100,000 by default: 45 MB), each nested
  --depth levels deep, opened; the hovers run until its diagnostics arrive ("diagnostics
  after").
- edits: the same dataset (--edit-rows rows, 20,000 by default) open and analysed, then
  --edits edits (300) sent back to back, each to another row; the hovers run until the
  last version's diagnostics arrive. "stale" counts diagnostics published for an older
  version after the last edit was sent (a superseded analysis that was not cancelled).
- row: a dataset of one row of --row-mb MB (50) opened; completion inside the row, at a
  check's `identifier` value, once its diagnostics came (timed alone), while the hovers
  run.
- workspace: the dataset of `open` on disk (not open), a pulling client, scope
  `workspace`: workspace/diagnostic (every file read and analysed), hovers meanwhile.

Goal (issue 48): a request on another document answered within 100 ms whatever else is
open or changing: the hovers' max is the figure. Exit 1 when a case misses it. The
machine is shared: the load average is printed first.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.quiet_client import OPEN_AT as SMALL_AT  # noqa: E402
from bench.quiet_client import OPEN_SCENARIO as SMALL  # noqa: E402
from bench.quiet_client import QuietClient  # noqa: E402

GOAL_MS = 100.0
HOVER_EVERY = 0.05


def nested(depth: int, n: int) -> Any:
    value: Any = {"leaf": n}
    for level in range(depth):
        value = {"k": value} if level % 2 else [value]
    return value


def deep_row(n: int, depth: int) -> str:
    """A Hub-format row (tests/support/hub_rows.py) whose input carries a value nested
    `depth` deep (~470 bytes at 40)."""
    turn = {
        "input": {
            "messages": [{"role": "user", "content": f"What is {n}?"}],
            "meta": nested(depth, n),
        },
        "output": {"response": {"role": "assistant", "content": f"It is {n + 1}."}},
        "checks": [{"identifier": "string_matching", "params": {"keyword": "It"}}],
    }
    return json.dumps({"name": f"row {n}", "interactions": [turn], "tags": ["hub"]})


def big_row(megabytes: float) -> str:
    """One row of about `megabytes` MB: a long list of answers in its output, then a check."""
    piece = "x" * 1000
    count = int(megabytes * 1e6 / (len(piece) + 4))
    turn = {
        "input": {"messages": [{"role": "user", "content": "Say it all."}]},
        "output": {"response": {"role": "assistant", "content": "ok"}, "all": [piece] * count},
        "checks": [{"identifier": "string_matching", "params": {"keyword": "ok"}}],
    }
    return json.dumps({"name": "big", "interactions": [turn]})


class Client(QuietClient):
    """Records each pushed diagnostics' (uri, version, time)."""

    def __init__(self) -> None:
        super().__init__(heard=(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,))
        self.published: list[tuple[str, int | None, float]] = []
        self.arrived = asyncio.Event()

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.published.append((params.uri, params.version, time.perf_counter()))
            self.arrived.set()

    async def diagnostics_for(self, uri: str, version: int, since: int = 0) -> float:
        while True:
            for found, at_version, at in self.published[since:]:
                if found == uri and at_version == version:
                    return at
            self.arrived.clear()
            await self.arrived.wait()


def capabilities(pull: bool) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
        ),
        text_document=types.TextDocumentClientCapabilities(
            diagnostic=types.DiagnosticClientCapabilities() if pull else None,
            completion=types.CompletionClientCapabilities(),
            hover=types.HoverClientCapabilities(),
        ),
    )


async def started(root: Path, *, pull: bool = False) -> Client:
    client = Client()
    await client.start_io(sys.executable, "-m", "checkspec.server")
    await client.initialize_async(
        types.InitializeParams(
            capabilities=capabilities(pull),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(root.as_uri(), "bench")],
            initialization_options={"checkspec": {"diagnostics.scope": "workspace"}},
        )
    )
    client.initialized(types.InitializedParams())
    return client


async def stopped(client: Client) -> None:
    try:
        await asyncio.wait_for(client.shutdown_async(None), 60)
        client.exit(None)
    finally:
        await client.stop()


def open_doc(client: Client, path: Path, text: str, language: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, language, version, text))
    )
    return uri


async def open_small(client: Client, root: Path) -> Callable[[], Awaitable[float]]:
    """The small file open and hovered (warm); a function timing one hover on it, in ms."""
    small = root / "open.scenario.yaml"
    small.write_text(SMALL, encoding="utf-8")
    uri = open_doc(client, small, SMALL, "yaml")
    params = types.HoverParams(types.TextDocumentIdentifier(uri), SMALL_AT)

    async def hover() -> float:
        begun = time.perf_counter()
        answer = await client.text_document_hover_async(params)
        if answer is None:
            raise RuntimeError("the hover on the small file got no answer")
        return (time.perf_counter() - begun) * 1000

    for _ in range(3):
        await hover()
    return hover


async def hovers_until(
    done: asyncio.Future[Any], hover: Callable[[], Awaitable[float]]
) -> list[float]:
    taken: list[float] = []
    while not done.done():
        taken.append(await hover())
        await asyncio.sleep(HOVER_EVERY)
    return taken


async def case_open(root: Path, rows: int, depth: int) -> dict[str, Any]:
    path = root / "heavy.dataset.jsonl"
    text = "".join(deep_row(n, depth) + "\n" for n in range(rows))
    client = await started(root)
    try:
        hover = await open_small(client, root)
        begun = time.perf_counter()
        uri = open_doc(client, path, text, "jsonl")
        done = asyncio.ensure_future(client.diagnostics_for(uri, 1))
        taken = await hovers_until(done, hover)
        after = (await done) - begun
        await stopped(client)
    except BaseException:
        await client.stop()
        raise
    return {"size": len(text.encode()), "diagnostics": after, "hovers": taken}


async def case_edits(root: Path, rows: int, depth: int, edits: int) -> dict[str, Any]:
    path = root / "edited.dataset.jsonl"
    text = "".join(deep_row(n, depth) + "\n" for n in range(rows))
    client = await started(root)
    try:
        hover = await open_small(client, root)
        uri = open_doc(client, path, text, "jsonl")
        await client.diagnostics_for(uri, 1)
        column = deep_row(0, depth).index("What is") + len("What is")
        since = len(client.published)
        begun = time.perf_counter()
        version = 1
        for n in range(edits):
            version += 1
            line = (n * 7919) % rows
            at = types.Position(line, column)
            change = types.TextDocumentContentChangePartial(types.Range(at, at), "!")
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    types.VersionedTextDocumentIdentifier(version=version, uri=uri), [change]
                )
            )
        sent = time.perf_counter() - begun
        done = asyncio.ensure_future(client.diagnostics_for(uri, version, since))
        taken = await hovers_until(done, hover)
        after = (await done) - begun
        last_sent = begun + sent
        stale = sum(
            1
            for found, at_version, at in client.published[since:]
            if found == uri and at_version != version and at > last_sent
        )
        await stopped(client)
    except BaseException:
        await client.stop()
        raise
    return {
        "size": len(text.encode()),
        "sent": sent,
        "diagnostics": after,
        "stale": stale,
        "hovers": taken,
    }


async def case_row(root: Path, megabytes: float) -> dict[str, Any]:
    path = root / "one-row.dataset.jsonl"
    line = big_row(megabytes)
    text = line + "\n"
    at = types.Position(0, line.rindex("string_matching") + 3)
    client = await started(root)
    try:
        hover = await open_small(client, root)
        begun = time.perf_counter()
        uri = open_doc(client, path, text, "jsonl")
        done = asyncio.ensure_future(client.diagnostics_for(uri, 1))
        taken = await hovers_until(done, hover)
        after = (await done) - begun
        params = types.CompletionParams(types.TextDocumentIdentifier(uri), at)
        completions: list[float] = []
        items = 0
        for _ in range(3):
            started_at = time.perf_counter()
            asked = asyncio.ensure_future(client.text_document_completion_async(params))
            taken.extend(await hovers_until(asked, hover))
            answer = await asked
            completions.append((time.perf_counter() - started_at) * 1000)
            items = len(getattr(answer, "items", None) or answer or [])
        await stopped(client)
    except BaseException:
        await client.stop()
        raise
    return {
        "size": len(text.encode()),
        "diagnostics": after,
        "completion": completions,
        "items": items,
        "hovers": taken,
    }


async def case_workspace(root: Path, rows: int, depth: int) -> dict[str, Any]:
    path = root / "on-disk.dataset.jsonl"
    text = "".join(deep_row(n, depth) + "\n" for n in range(rows))
    path.write_text(text, encoding="utf-8")
    client = await started(root, pull=True)
    try:
        hover = await open_small(client, root)
        begun = time.perf_counter()
        pull = asyncio.ensure_future(
            client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams([]))
        )
        taken = await hovers_until(pull, hover)
        report = await pull
        after = time.perf_counter() - begun
        await stopped(client)
    except BaseException:
        await client.stop()
        raise
    finally:
        path.unlink()
    return {
        "size": len(text.encode()),
        "diagnostics": after,
        "files": len(report.items),
        "hovers": taken,
    }


def spread(values: list[float]) -> str:
    if not values:
        return "no hover"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return (
        f"median {statistics.median(values):.1f} ms, p95 {p95:.1f}, max {max(values):.1f} "
        f"({len(values)} hovers)"
    )


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=["open", "edits", "row", "workspace"])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--edit-rows", type=int, default=20_000)
    parser.add_argument("--depth", type=int, default=40)
    parser.add_argument("--edits", type=int, default=300)
    parser.add_argument("--row-mb", type=float, default=50.0)
    args = parser.parse_args()
    print(f"load average: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    missed: list[str] = []
    for case in args.cases:
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            (root / "checkspec.yaml").write_text("{}\n", encoding="utf-8")
            if case == "open":
                got = await case_open(root, args.rows, args.depth)
                head = f"open: {args.rows:,} rows ({got['size'] / 1e6:.1f} MB)"
                tail = f"diagnostics after {got['diagnostics']:.2f} s"
            elif case == "edits":
                got = await case_edits(root, args.edit_rows, args.depth, args.edits)
                head = f"edits: {args.edits} edits to {args.edit_rows:,} rows ({got['size'] / 1e6:.1f} MB)"
                tail = (
                    f"sent in {got['sent']:.2f} s, last version's diagnostics after "
                    f"{got['diagnostics']:.2f} s, {got['stale']} stale published after"
                )
            elif case == "row":
                got = await case_row(root, args.row_mb)
                head = f"row: one row of {got['size'] / 1e6:.1f} MB"
                shown = ", ".join(f"{ms:.0f}" for ms in got["completion"])
                tail = (
                    f"diagnostics after {got['diagnostics']:.2f} s; completion in the row "
                    f"{shown} ms ({got['items']} items)"
                )
            elif case == "workspace":
                got = await case_workspace(root, args.rows, args.depth)
                head = f"workspace: {args.rows:,} rows on disk ({got['size'] / 1e6:.1f} MB)"
                tail = f"workspace/diagnostic {got['diagnostics']:.2f} s ({got['files']} files)"
            else:
                parser.error(f"no case {case!r}")
        hovers = got["hovers"]
        verdict = ""
        if hovers and max(hovers) > GOAL_MS:
            missed.append(case)
            verdict = " MISSED"
        print(f"{head}: {tail}")
        print(f"  hover on the small file: {spread(hovers)} (goal max <= {GOAL_MS:g} ms){verdict}")
    if missed:
        print("missed: " + ", ".join(missed))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
