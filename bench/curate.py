"""Curation at scale: `checkspec list scenarios --query` and `checkspec tag add` over an
8,000-scenario suite (bench/workload.py's write_suite_yaml), through the real command;
and the language server's `workspace/symbol` over the same scenarios, asked by a real
LSP client over stdio.

    .venv/bin/python bench/curate.py                 # 8,000 scenarios, best of 3
    .venv/bin/python bench/curate.py --scenarios 2000 --rounds 1
    .venv/bin/python bench/curate.py --only symbols  # just workspace/symbol

Each CLI figure is the wall time of one `checkspec` process, start-up included (best of
the rounds). workspace/symbol: the server indexes the workspace on its first query
(timed apart), then each query is one request and its answer, JSON both ways (median and
worst over the queries). Exit 1 when a figure is over its budget (issue 25: list <= 1 s,
tag <= 2 s, workspace/symbol <= 50 ms after indexing).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workload import write_suite_yaml

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]
BUDGETS = {
    "list --query": 1.0,
    "list --query (all match)": None,
    "tag add 1,000": 2.0,
    "workspace/symbol index": None,
    "workspace/symbol median": 0.05,
    "workspace/symbol worst": 0.05,
}
# Queries as a user types them: a name, a fuzzy name, words of an input, a word every
# scenario has (the answer is capped at 500), none found.
QUERIES = ("scenario-04242", "scn0424", "where case 77", "case", "nothing-like-this")


def timed(args: list[str], cwd: Path) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, check=False)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"checkspec {' '.join(args[:3])}... failed: {done.stderr[-2000:]}")
    return took, done.stdout


class RawClient:
    """An LSP client over stdio that reads answers as plain JSON (no typed layer), so a
    figure is the server's work and the pipe, not a Python client's deserialising."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.ids = 0

    async def send(self, message: dict[str, object]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        await self.process.stdin.drain()

    async def request(self, method: str, params: object) -> object:
        self.ids += 1
        await self.send({"id": self.ids, "method": method, "params": params})
        while True:
            message = await self.read()
            if message.get("id") == self.ids and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result")
            if "method" in message and "id" in message:  # the server asks: answer null
                await self.send({"id": message["id"], "result": None})

    async def read(self) -> dict[str, object]:
        assert self.process.stdout is not None
        length = 0
        while (line := await self.process.stdout.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        found = json.loads(await self.process.stdout.readexactly(length))
        assert isinstance(found, dict)
        return found


async def symbol_figures(folder: Path, rounds: int) -> dict[str, float]:
    """workspace/symbol over every scenario under `folder`, from a client over stdio."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "checkspec.server",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        limit=2**26,
    )
    client = RawClient(process)
    figures: dict[str, float] = {}
    try:
        root = folder.as_uri()
        await client.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root,
                "capabilities": {},
                "workspaceFolders": [{"uri": root, "name": "bench"}],
            },
        )
        await client.send({"method": "initialized", "params": {}})

        async def ask(query: str) -> tuple[float, int]:
            started = time.perf_counter()
            found = await client.request("workspace/symbol", {"query": query})
            took = time.perf_counter() - started
            return took, len(found) if isinstance(found, list) else 0

        figures["workspace/symbol index"], _ = await ask("scenario-00001")
        took: dict[str, list[float]] = {query: [] for query in QUERIES}
        for _ in range(rounds):
            for query in QUERIES:
                seconds, count = await ask(query)
                assert count or query == "nothing-like-this", query
                took[query].append(seconds)
        every = [seconds for times in took.values() for seconds in times]
        figures["workspace/symbol median"] = statistics.median(every)
        figures["workspace/symbol worst"] = max(every)
        for query, times in took.items():
            shown = ", ".join(f"{t * 1000:.1f}" for t in times)
            print(f"  workspace/symbol {query!r}: {shown} ms")
        await client.request("shutdown", None)
        await client.send({"method": "exit"})
        await asyncio.wait_for(process.wait(), 10)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=8000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tagged", type=int, default=1000, help="scenarios to tag")
    parser.add_argument("--only", choices=("cli", "symbols"), help="one half of the bench")
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="checkspec-curate-"))
    try:
        source = write_suite_yaml(folder / "big.suite.yaml", options.scenarios)
        size = source.stat().st_size
        step = max(1, options.scenarios // options.tagged)
        picked = [f"work.suite.yaml::#{i}" for i in range(0, options.scenarios, step)]
        picked = picked[: options.tagged]
        best: dict[str, float] = {}
        if options.only != "cli":
            (folder / "checkspec.yaml").write_text("jobs: 1\n")
            best.update(asyncio.run(symbol_figures(folder, options.rounds)))
            (folder / "checkspec.yaml").unlink()
        for _ in range(options.rounds if options.only != "symbols" else 0):
            took, out = timed(
                ["list", "scenarios", "big.suite.yaml", "--query", "case 4242"], folder
            )
            assert out.count("\n") == (1 if options.scenarios > 4242 else 0), out
            best["list --query"] = min(best.get("list --query", took), took)
            took, _ = timed(
                ["list", "scenarios", "big.suite.yaml", "--query", "case", "--limit", "5"], folder
            )
            key = "list --query (all match)"
            best[key] = min(best.get(key, took), took)
            shutil.copyfile(source, folder / "work.suite.yaml")
            took, _ = timed(["tag", "add", "reviewed", *picked], folder)
            best["tag add 1,000"] = min(best.get("tag add 1,000", took), took)
            _, listed = timed(
                ["list", "scenarios", "work.suite.yaml", "--tag", "reviewed", "--format", "json"],
                folder,
            )
            assert json.loads(listed)["total"] == len(picked)
        print(f"{options.scenarios} scenarios, {size / 1e6:.1f} MB, best of {options.rounds}:")
        over = False
        for name, seconds in best.items():
            budget = BUDGETS.get(name)
            verdict = "" if budget is None else ("  ok" if seconds <= budget else "  OVER")
            over |= budget is not None and seconds > budget
            shown = "" if budget is None else f" (budget {budget:g} s)"
            if name.startswith("workspace/symbol"):
                shown = "" if budget is None else f" (budget {budget * 1000:g} ms)"
                print(f"  {name:<26} {seconds * 1000:6.1f} ms{shown}{verdict}")
                continue
            print(f"  {name:<26} {seconds:6.2f} s{shown}{verdict}")
        return 1 if over and options.scenarios >= 8000 else 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
