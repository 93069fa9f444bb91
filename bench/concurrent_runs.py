"""Two runs from the editor at once: how late a short file's results come behind a long run.

    .venv/bin/python bench/concurrent_runs.py                  # 5 repeats
    .venv/bin/python bench/concurrent_runs.py --repeats 3 --slow 5 --fast 0.1

Over stdio with a bare pygls client, as Neovim or Helix would drive the server: the
server is started and warmed up (one run of the fast file, so its worker pool is up), then
`checkspec.runFile` of a file whose one scenario takes `--slow` seconds is sent, and right
after it `checkspec.runFile` of a file whose one scenario takes `--fast` seconds. Measured:
the time from sending the second request to its answer (its results), and to the first
one's. `jobs: 2` (two workers), as on a 2-core machine. Each repeat is a fresh server.
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

from bench.quiet_client import QuietClient as Client  # noqa: E402

TIMEOUT = 120.0

AGENT = """
import time

def slow(question):
    time.sleep({slow})
    return "ok"

def fast(question):
    time.sleep({fast})
    return "ok"
"""

SUITE = """name: {name}
target: python:bench_agent:{name}
scenarios:
  - name: {name} one
    steps:
      - interacts: [{{inputs: hello}}]
        checks:
          - {{kind: string_matching, keyword: ok}}
"""


async def run_file(client: Client, uri: str) -> Any:
    params = types.ExecuteCommandParams(command="checkspec.runFile", arguments=[uri])
    return await asyncio.wait_for(client.workspace_execute_command_async(params), TIMEOUT)


async def once(folder: Path, slow: float, fast: float) -> tuple[float, float]:
    client = Client()
    await client.start_io(sys.executable, "-m", "checkspec.server")
    try:
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(
                    window=types.WindowClientCapabilities(work_done_progress=True)
                ),
                root_uri=folder.as_uri(),
                initialization_options={"checkspec": {"jobs": 2}},
            )
        )
        client.initialized(types.InitializedParams())
        slow_uri = (folder / "slow.suite.yaml").as_uri()
        fast_uri = (folder / "fast.suite.yaml").as_uri()
        await run_file(client, fast_uri)  # the pool is up and warm
        await asyncio.sleep(1.0)  # its spare workers are started
        started = time.perf_counter()
        first = asyncio.ensure_future(run_file(client, slow_uri))
        await asyncio.sleep(0)  # sent first
        second = await run_file(client, fast_uri)
        fast_seconds = time.perf_counter() - started
        assert second["status"] == "pass", second
        assert (await first)["status"] == "pass"
        slow_seconds = time.perf_counter() - started
        await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
        client.exit(None)
    finally:
        await asyncio.wait_for(client.stop(), 10)
    return fast_seconds, slow_seconds


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--slow", type=float, default=5.0)
    parser.add_argument("--fast", type=float, default=0.1)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="concurrent-runs-"))
    (folder / "bench_agent.py").write_text(AGENT.format(slow=args.slow, fast=args.fast))
    for name in ("slow", "fast"):
        (folder / f"{name}.suite.yaml").write_text(SUITE.format(name=name))
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs", flush=True)
    fasts, slows = [], []
    for repeat in range(args.repeats):
        fast, slow = await once(folder, args.slow, args.fast)
        fasts.append(fast)
        slows.append(slow)
        print(f"  repeat {repeat + 1}: fast file {fast:.3f} s, slow file {slow:.3f} s", flush=True)
    print(
        f"fast file's results after {statistics.median(fasts):.3f} s (median; "
        f"{min(fasts):.3f}-{max(fasts):.3f}), the slow one's after "
        f"{statistics.median(slows):.3f} s; load average {os.getloadavg()[0]:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
