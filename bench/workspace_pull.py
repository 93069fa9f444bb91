"""Workspace (pull) diagnostics: time to every problem of a workspace, and what it costs a
request on an open file meanwhile.

    .venv/bin/python bench/workspace_pull.py [--files 200] [--scenarios 40] [--rounds 3]

A workspace of FILES suite files of SCENARIOS scenarios each (bench/workload.py's
scenario; one file in ten has a misspelt check kind), a fresh server per round over stdio
(a pulling client, `checkspec.diagnostics.scope: workspace`), one small file open. Each
round, alternately:

- idle: completion requests at a `kind:` value of the open file, nothing else running;
- during: the same requests sent every 20 ms while the first workspace/diagnostic (the
  cold scan: every file read and analysed from disk) is answered; its time is "all
  problems";
- then a second workspace/diagnostic naming the result ids (every file `unchanged`).

The machine is shared: the load average is printed first; run it twice and compare.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.quiet_client import OPEN_AT as AT  # noqa: E402
from bench.quiet_client import OPEN_SCENARIO as OPEN  # noqa: E402
from bench.quiet_client import QuietClient as Client  # noqa: E402
from bench.workload import write_suite_yaml  # noqa: E402


def capabilities() -> types.ClientCapabilities:
    return types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
        ),
        text_document=types.TextDocumentClientCapabilities(
            diagnostic=types.DiagnosticClientCapabilities(),
            completion=types.CompletionClientCapabilities(),
        ),
    )


def workspace(root: Path, files: int, scenarios: int) -> Path:
    (root / "checkspec.yaml").write_text("{}\n", encoding="utf-8")
    for n in range(files):
        path = write_suite_yaml(root / "suites" / f"s{n:03}.suite.yaml", scenarios, f"s{n}")
        if n % 10 == 0:
            text = path.read_text(encoding="utf-8")
            path.write_text(text.replace("kind: equals", "kind: equalz", 1), encoding="utf-8")
    open_path = root / "open.scenario.yaml"
    open_path.write_text(OPEN, encoding="utf-8")
    return open_path


async def completion_ms(client: Client, uri: str) -> float:
    started = time.perf_counter()
    await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri), position=AT)
    )
    return (time.perf_counter() - started) * 1000


async def one_round(root: Path, open_path: Path) -> dict[str, Any]:
    client = Client()
    await client.start_io(sys.executable, "-m", "checkspec.server")
    try:
        await client.initialize_async(
            types.InitializeParams(
                capabilities=capabilities(),
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(root.as_uri(), "bench")],
                initialization_options={"checkspec": {"diagnostics.scope": "workspace"}},
            )
        )
        client.initialized(types.InitializedParams())
        uri = open_path.as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, OPEN))
        )
        for _ in range(5):  # warm: the analysis and completion loaded
            await completion_ms(client, uri)
        idle = [await completion_ms(client, uri) for _ in range(20)]

        started = time.perf_counter()
        pull = asyncio.ensure_future(
            client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams([]))
        )
        during: list[float] = []
        while not pull.done():
            during.append(await completion_ms(client, uri))
            await asyncio.sleep(0.02)
        report = await pull
        cold = time.perf_counter() - started
        problems = sum(len(getattr(item, "items", [])) for item in report.items)

        ids = [types.PreviousResultId(i.uri, i.result_id) for i in report.items if i.result_id]
        started = time.perf_counter()
        again = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(ids))
        warm = time.perf_counter() - started
        unchanged = sum(item.kind == "unchanged" for item in again.items)
        await client.shutdown_async(None)
        client.exit(None)
        return {
            "files": len(report.items),
            "problems": problems,
            "cold_s": cold,
            "warm_s": warm,
            "unchanged": unchanged,
            "idle": idle,
            "during": during,
        }
    finally:
        await client.stop()


def ms(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"median {statistics.median(values):.1f} ms, p95 {p95:.1f}, max {max(values):.1f}"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--scenarios", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        open_path = workspace(root, args.files, args.scenarios)
        print(f"{args.files} files x {args.scenarios} scenarios")
        for n in range(args.rounds):
            got = await one_round(root, open_path)
            print(
                f"round {n + 1}: {got['files']} files, {got['problems']} problems: all in "
                f"{got['cold_s']:.2f} s (cold); again {got['warm_s'] * 1000:.0f} ms "
                f"({got['unchanged']} unchanged)"
            )
            print(f"  completion idle:   {ms(got['idle'])} ({len(got['idle'])} requests)")
            print(f"  completion during: {ms(got['during'])} ({len(got['during'])} requests)")


if __name__ == "__main__":
    asyncio.run(main())
