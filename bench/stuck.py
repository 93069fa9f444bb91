"""How long a run with one stuck scenario takes, and what its report says (issue 36).

Each case: `scenario_timeout: 5`, one worker (`--jobs 1`), a healthy scenario and a stuck
one, run by `checkspec run` as a user would. Prints the wall time (goal: under 1.5x the
timeout) and, for each scenario, its status, how it ended and any re-run mark.

    .venv/bin/python bench/stuck.py [--timeout 5] [--sleep 15]
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
import time

def ok(question):
    return "ok"

def slow_ok(question):
    time.sleep(0.5)  # still running when the stuck one starts
    return "ok"

def sleeps(question):
    time.sleep({sleep})
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
"""

SLEEPY_MODULE = "import time\ntime.sleep({sleep})\n\ndef ok(question):\n    return 'ok'\n"

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]
OK_CHECK = "{kind: string_matching, keyword: ok}"


def scenario(name: str, target: str, check: str = OK_CHECK) -> str:
    return (
        f"  - name: {name}\n    target: python:{target}\n    steps:\n"
        f"      - interacts: [{{inputs: q}}]\n        checks: [{check}]\n"
    )


CASES = {
    "sync fn check sleeps": scenario("stuck", "agent:ok", '{kind: fn, fn: "checks_here:sleeps"}'),
    "sync target sleeps": scenario("stuck", "agent:sleeps"),
    "target module sleeps at import": scenario("stuck", "sleepy:ok"),
    "async check blocks the loop": scenario(
        "stuck", "agent:ok", '{kind: fn, fn: "checks_here:blocks_loop"}'
    ),
}


def run_case(name: str, stuck: str, timeout: float, sleep: float) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "checkspec.yaml").write_text(f"scenario_timeout: {timeout}\n")
        (root / "agent.py").write_text(AGENT.format(sleep=sleep))
        (root / "checks_here.py").write_text(CHECKS.format(sleep=sleep))
        (root / "sleepy.py").write_text(SLEEPY_MODULE.format(sleep=sleep))
        (root / "s.suite.yaml").write_text(
            "name: s\nscenarios:\n" + scenario("healthy", "agent:slow_ok") + stuck
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=5)
    parser.add_argument("--sleep", type=float, default=15)
    args = parser.parse_args()
    for name, stuck in CASES.items():
        run_case(name, stuck, args.timeout, args.sleep)


if __name__ == "__main__":
    main()
