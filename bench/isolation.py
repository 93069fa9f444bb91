"""Worker-process isolation: what it costs and what it buys.

1. `checkspec run` of the N-scenario workload suite as a whole process, in-process
   executor vs worker processes (alternating rounds, medians).
2. The language server: time from the run command to the scenario's result
   (`checkspec/scenarioFinished`) for a one-scenario file with a Python target, the first
   run (cold: workers start) and later ones (warm pool).
3. The language server: hover latency when idle and while a run executes user code that
   blocks (a module sleeping at import, a hung target, a backtracking regex).

    .venv/bin/python bench/isolation.py [--scenarios 2000] [--rounds 5] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).parent))
from workload import write_suite_yaml

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]


def cli_rounds(suite: Path, rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"inprocess": [], "process": []}
    for _ in range(rounds):
        for executor in times:
            started = time.perf_counter()
            subprocess.run(
                [*CLI, "run", str(suite), "--format", "json", "--executor", executor],
                stdout=subprocess.DEVNULL,
                check=False,
            )
            times[executor].append(time.perf_counter() - started)
    return times


AGENT = """
import time
def answer(question):
    return "ok"
def hangs(question):
    time.sleep(3600)
"""
SLOW_IMPORT = "import time\ntime.sleep(3600)\ndef answer(q):\n    return 'ok'\n"


def scenario_file(
    folder: Path, name: str, target: str | None, checks: str, outputs: str = ""
) -> str:
    lines = [f"name: {name}"]
    if target:
        lines.append(f"target: {target}")
    lines += ["steps:", "  - interacts:", "      - inputs: hello"]
    if outputs:
        lines.append(f"        outputs: {outputs}")
    lines += ["    checks:", *(f"      - {c}" for c in checks.splitlines())]
    path = folder / f"{name}.scenario.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path.as_uri()


class Bench:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.client = LanguageClient("bench", "1")
        self.finished: asyncio.Queue[float] = asyncio.Queue()

        @self.client.feature("checkspec/scenarioFinished")
        def finished(params: Any) -> None:
            self.finished.put_nowait(time.perf_counter())

        for ignored in (types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, types.WINDOW_SHOW_MESSAGE):
            self.client.feature(ignored)(lambda params: None)

    async def start(self) -> None:
        await self.client.start_io(sys.executable, "-m", "checkspec.server")
        await self.client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                root_uri=self.folder.as_uri(),
                initialization_options={"checkspec": {"scenarioTimeout": 4}},
            )
        )
        self.client.initialized(types.InitializedParams())

    def open(self, uri: str) -> None:
        text = Path(uri.removeprefix("file://")).read_text(encoding="utf-8")
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, text))
        )

    async def first_result(self, uri: str) -> float:
        started = time.perf_counter()
        run = asyncio.ensure_future(
            self.client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="checkspec.runScenario", arguments=[uri, 0])
            )
        )
        at = await self.finished.get()
        await run
        return at - started

    async def hover(self, uri: str, line: int, character: int) -> float:
        started = time.perf_counter()
        await self.client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, character))
        )
        return time.perf_counter() - started

    async def hovers(self, uri: str, count: int = 20) -> list[float]:
        found = []
        for _ in range(count):
            found.append(await self.hover(uri, 5, 12))
            await asyncio.sleep(0.05)
        return found

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


async def editor(folder: Path) -> dict[str, Any]:
    (folder / "agent.py").write_text(AGENT, encoding="utf-8")
    (folder / "slow_agent.py").write_text(SLOW_IMPORT, encoding="utf-8")
    quick = scenario_file(
        folder, "quick", "python:agent:answer", "{kind: string_matching, keyword: ok}"
    )
    blockers = {
        "import sleeps": scenario_file(
            folder, "import", "python:slow_agent:answer", "{kind: string_matching, keyword: ok}"
        ),
        "hung target": scenario_file(
            folder, "hung", "python:agent:hangs", "{kind: string_matching, keyword: ok}"
        ),
        "backtracking regex": scenario_file(
            folder,
            "redos",
            None,
            "{kind: regex_matching, pattern: '^(a|aa)+$', match_timeout_seconds: 3}",
            outputs="a" * 40 + "b",
        ),
    }
    bench = Bench(folder)
    await bench.start()
    try:
        bench.open(quick)
        for uri in blockers.values():
            bench.open(uri)
        cold = await bench.first_result(quick)
        warm = []
        for _ in range(7):
            await asyncio.sleep(0.5)  # the pool refills between runs
            warm.append(await bench.first_result(quick))
        idle = await bench.hovers(quick)
        busy: dict[str, list[float]] = {}
        for what, uri in blockers.items():
            await asyncio.sleep(0.5)
            run = asyncio.ensure_future(
                bench.client.workspace_execute_command_async(
                    types.ExecuteCommandParams(command="checkspec.runScenario", arguments=[uri, 0])
                )
            )
            await asyncio.sleep(0.3)
            busy[what] = await bench.hovers(quick, 20)
            await run
            await bench.finished.get()
    finally:
        await bench.stop()
    return {"cold_s": cold, "warm_s": warm, "idle_hover_s": idle, "busy_hover_s": busy}


def ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:.1f} ms, max {max(values) * 1000:.1f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        suite = folder / f"workload-{args.scenarios}.suite.yaml"
        write_suite_yaml(suite, args.scenarios)
        cli = cli_rounds(suite, args.rounds)
        lsp_folder = folder / "lsp"
        lsp_folder.mkdir()
        lsp = asyncio.run(editor(lsp_folder))
    inproc, pooled = (statistics.median(cli[k]) for k in ("inprocess", "process"))
    print(f"checkspec run, {args.scenarios} scenarios, whole process ({args.rounds} rounds):")
    print(
        f"  in-process executor: {inproc:.2f} s   worker processes: {pooled:.2f} s"
        f"   ratio {pooled / inproc:.2f}x"
    )
    print("language server, run command -> the scenario's result:")
    print(f"  cold (workers start): {lsp['cold_s'] * 1000:.0f} ms   warm: {ms(lsp['warm_s'])}")
    print(f"hover: idle {ms(lsp['idle_hover_s'])}")
    for what, values in lsp["busy_hover_s"].items():
        print(f"hover while the run is blocked by a {what}: {ms(values)}")
    if args.json:
        args.json.write_text(json.dumps({"cli_s": cli, **lsp}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
