"""Measure the bounds of issue 11: hostile files, big files, regex timeouts.

    .venv/bin/python bench/hardening.py            # everything (about a minute)
    .venv/bin/python bench/hardening.py --only validate|server|regex

- validate: `checkspec validate` on each hostile file of tests/cli/test_hostile_files.py (a
  real process each): exit code, wall time, peak memory (ru_maxrss of that process);
- server: a real language server over stdio (as the tests drive it): time from didOpen to
  diagnostics and the server's peak memory (VmHWM) for a 1,600,000-item list (over twice
  the node limit) and a 740,000-item one (just under it); then the time of each request on
  a 50 MB file over the size limit;
- regex: wall time of regex_matching with match_timeout_seconds 0.5 / 1 / 2 on a
  catastrophic pattern, idle and with every core kept busy by other processes.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHECKSPEC = str(Path(sys.executable).parent / "checkspec")


def _validate() -> None:
    from tests.cli.test_hostile_files import HOSTILE

    print("checkspec validate on hostile files")
    print(f"  {'file':<28} {'exit':>4} {'wall s':>7} {'peak MB':>8}")
    with tempfile.TemporaryDirectory() as folder:
        for name, (text, _needle, _message) in HOSTILE.items():
            path = Path(folder) / name
            path.write_text(text, encoding="utf-8")
            started = time.perf_counter()
            process = subprocess.Popen(
                [CHECKSPEC, "validate", str(path)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            _, status, usage = os.wait4(process.pid, 0)
            wall = time.perf_counter() - started
            code = os.waitstatus_to_exitcode(status)
            print(f"  {name:<28} {code:>4} {wall:>7.2f} {usage.ru_maxrss / 1024:>8.0f}")


def _peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _server() -> None:
    from lsprotocol import types
    from pytest_lsp import ClientServerConfig, client_capabilities

    config = ClientServerConfig(server_command=[sys.executable, "-m", "checkspec.server"])
    print("language server")
    for count in (1_600_000, 740_000):
        client = await config.start()
        try:
            await client.initialize_session(
                types.InitializeParams(capabilities=client_capabilities("visual-studio-code"))
            )
            await asyncio.sleep(1)  # let the start-up settings pull settle first
            uri = f"file:///bench/list{count}.scenario.yaml"
            text = "name: big\nsteps: [" + ", ".join(["1"] * count) + "]\n"
            started = time.perf_counter()
            client.text_document_did_open(
                types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, text))
            )
            while uri not in client.diagnostics:
                await asyncio.sleep(0.005)
            opened = time.perf_counter() - started
            found = client.diagnostics[uri]
            started = time.perf_counter()
            await client.text_document_document_symbol_async(
                types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
            )
            outline = time.perf_counter() - started
            peak = _peak_mb(client._server.pid)  # type: ignore[union-attr]  # noqa: SLF001
            print(
                f"  {count:,}-item list: diagnostics after {opened:.2f} s ({len(found)}: "
                f"{found[0].code}...), documentSymbol {outline:.2f} s, server peak {peak:.0f} MB"
            )
        finally:
            await client.shutdown_session()

    client = await config.start()
    try:
        await client.initialize_session(
            types.InitializeParams(capabilities=client_capabilities("visual-studio-code"))
        )
        await asyncio.sleep(1)
        uri = "file:///bench/huge.scenario.yaml"
        text = "name: x\nsteps:\n  - checks:\n      - kind: \n" + "# padding\n" * 5_000_000
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, text))
        )
        while uri not in client.diagnostics:
            await asyncio.sleep(0.005)
        doc = types.TextDocumentIdentifier(uri)
        pos = types.Position(3, 14)
        requests = {
            "completion": lambda: client.text_document_completion_async(
                types.CompletionParams(doc, pos)
            ),
            "hover": lambda: client.text_document_hover_async(types.HoverParams(doc, pos)),
            "documentSymbol": lambda: client.text_document_document_symbol_async(
                types.DocumentSymbolParams(doc)
            ),
            "codeLens": lambda: client.text_document_code_lens_async(types.CodeLensParams(doc)),
            "codeAction": lambda: client.text_document_code_action_async(
                types.CodeActionParams(
                    doc, types.Range(pos, pos), types.CodeActionContext(diagnostics=[])
                )
            ),
        }
        slowest: dict[str, float] = dict.fromkeys(requests, 0.0)
        for _ in range(5):
            for name, request in requests.items():
                started = time.perf_counter()
                await request()
                slowest[name] = max(slowest[name], time.perf_counter() - started)
        timings = ", ".join(f"{name} {1000 * t:.1f} ms" for name, t in slowest.items())
        print(f"  {len(text) / 1e6:.0f} MB file over the limit, slowest of 5: {timings}")
    finally:
        await client.shutdown_session()


async def _regex() -> None:
    from checkspec.engine import Interaction, RegexMatching, Trace

    trace = Trace(interactions=[Interaction(inputs="q", outputs="a" * 60 + "b")])

    async def measure(label: str) -> None:
        cells = []
        for seconds in (0.5, 1.0, 2.0):
            check = RegexMatching(pattern="^(a|aa)+$", match_timeout_seconds=seconds)
            started = time.perf_counter()
            result = await check.run(trace)
            wall = time.perf_counter() - started
            assert result.errored
            cells.append(f"{seconds:g} s -> {wall:.3f} s ({100 * (wall / seconds - 1):+.1f}%)")
        print(f"  {label}: " + ", ".join(cells))

    print("regex_matching timeout (wall time until ERROR)")
    await measure("idle")
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(2 * (os.cpu_count() or 1))
    ]
    try:
        await measure(f"{len(burners)} busy processes")
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("validate", "server", "regex"))
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    if args.only in (None, "validate"):
        _validate()
    if args.only in (None, "server"):
        asyncio.run(_server())
    if args.only in (None, "regex"):
        asyncio.run(_regex())


if __name__ == "__main__":
    main()
