"""How long a run with one stuck scenario takes, and what its report says (issue 36).

Each case: `scenario_timeout: 5`, one worker (`--jobs 1`), a healthy scenario and a stuck
one, run by `checkspec run` as a user would. Prints the wall time (goal: under 1.5x the
timeout) and, for each scenario, its status, how it ended and any re-run mark.

    .venv/bin/python bench/stuck.py [--timeout 5] [--sleep 15] [--only async]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AGENT = """
import asyncio
import time

def ok(question):
    return "ok"

def slow_ok(question):
    time.sleep(0.5)  # still running when the stuck one starts
    return "ok"

def sleeps(question):
    time.sleep({sleep})
    return "ok"

async def slow_ok_async(question):
    await asyncio.sleep(0.5)  # needs the loop again once the stuck one lets it go
    await asyncio.sleep(0.5)
    return "ok"

async def blocks_loop(question):
    time.sleep({sleep})  # blocks the event loop itself
    return "ok"
"""

CHECKS = """
import time

def sleeps(trace):
    time.sleep({sleep})
    return True

async def blocks_loop(trace):
    time.sleep({sleep})  # blocks the event loop itself
    return True

async def spins(trace):
    until = time.monotonic() + {sleep}
    while time.monotonic() < until:  # a CPU loop on the event loop
        pass
    return True
"""

SLEEPY_MODULE = "import time\ntime.sleep({sleep})\n\ndef ok(question):\n    return 'ok'\n"

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]
OK_CHECK = "{kind: string_matching, keyword: ok}"


def scenario(name: str, target: str, check: str = OK_CHECK) -> str:
    return (
        f"  - name: {name}\n    target: python:{target}\n    steps:\n"
        f"      - interacts: [{{inputs: q}}]\n        checks: [{check}]\n"
    )


SLOW = "agent:slow_ok"  # the healthy scenario's target: sync, in a thread of its own
SLOW_ASYNC = "agent:slow_ok_async"  # async: it waits for the loop the stuck one holds
CASES = {
    "sync fn check sleeps": (
        SLOW,
        scenario("stuck", "agent:ok", '{kind: fn, fn: "checks_here:sleeps"}'),
    ),
    "sync target sleeps": (SLOW, scenario("stuck", "agent:sleeps")),
    "target module sleeps at import": (SLOW, scenario("stuck", "sleepy:ok")),
    "async check blocks the loop": (
        SLOW,
        scenario("stuck", "agent:ok", '{kind: fn, fn: "checks_here:blocks_loop"}'),
    ),
    "async check blocks the loop, healthy async": (
        SLOW_ASYNC,
        scenario("stuck", "agent:ok", '{kind: fn, fn: "checks_here:blocks_loop"}'),
    ),
    "async target blocks the loop, healthy async": (
        SLOW_ASYNC,
        scenario("stuck", "agent:blocks_loop"),
    ),
    "async check spins the CPU, healthy async": (
        SLOW_ASYNC,
        scenario("stuck", "agent:ok", '{kind: fn, fn: "checks_here:spins"}'),
    ),
}


def run_case(name: str, healthy: str, stuck: str, timeout: float, sleep: float) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "checkspec.yaml").write_text(f"scenario_timeout: {timeout}\n")
        (root / "agent.py").write_text(AGENT.format(sleep=sleep))
        (root / "checks_here.py").write_text(CHECKS.format(sleep=sleep))
        (root / "sleepy.py").write_text(SLEEPY_MODULE.format(sleep=sleep))
        (root / "s.suite.yaml").write_text(
            "name: s\nscenarios:\n" + scenario("healthy", healthy) + stuck
        )
        started = time.monotonic()
        done = subprocess.run(
            [*CLI, "run", "s.suite.yaml", "--jobs", "1", "--format", "json", "--no-history"],
            cwd=root,
            capture_output=True,
            text=True,
        )
        wall = time.monotonic() - started
    report = json.loads(done.stdout)
    print(f"{name}: {wall:.1f} s ({wall / timeout:.2f}x the timeout)")
    for s in report["scenarios"]:
        mark = f", {s['rerun']}" if s.get("rerun") else ""
        print(f"    {s['scenario_name']}: {s['status']} ({s.get('ending')}{mark})")
        for step in s["steps"]:
            if step.get("error"):
                print(f"        {step['error']['message']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=5)
    parser.add_argument("--sleep", type=float, default=15)
    parser.add_argument("--only", default="", help="only the cases whose name holds this")
    args = parser.parse_args()
    for name, (healthy, stuck) in CASES.items():
        if not args.only or args.only in name:
            run_case(name, healthy, stuck, args.timeout, args.sleep)


if __name__ == "__main__":
    main()
