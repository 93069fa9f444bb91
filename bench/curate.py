"""Curation at scale: `checkspec list scenarios --query` and `checkspec tag add` over an
8,000-scenario suite (bench/workload.py's write_suite_yaml), through the real command.

    .venv/bin/python bench/curate.py                 # 8,000 scenarios, best of 3
    .venv/bin/python bench/curate.py --scenarios 2000 --rounds 1

Each figure is the wall time of one `checkspec` process, start-up included (best of the
rounds). Exit 1 when a figure is over its budget (issue 25: list <= 1 s, tag <= 2 s).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workload import write_suite_yaml

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]
BUDGETS = {"list --query": 1.0, "list --query (all match)": None, "tag add 1,000": 2.0}


def timed(args: list[str], cwd: Path) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, check=False)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"checkspec {' '.join(args[:3])}... failed: {done.stderr[-2000:]}")
    return took, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=8000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tagged", type=int, default=1000, help="scenarios to tag")
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="checkspec-curate-"))
    try:
        source = write_suite_yaml(folder / "big.suite.yaml", options.scenarios)
        size = source.stat().st_size
        step = max(1, options.scenarios // options.tagged)
        picked = [f"work.suite.yaml::#{i}" for i in range(0, options.scenarios, step)]
        picked = picked[: options.tagged]
        best: dict[str, float] = {}
        for _ in range(options.rounds):
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
            print(f"  {name:<26} {seconds:6.2f} s{shown}{verdict}")
        return 1 if over and options.scenarios >= 8000 else 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
