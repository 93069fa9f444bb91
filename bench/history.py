"""The run history at scale (issue 27): saving a 10,000-scenario run, and `compare` of two.

    .venv/bin/python bench/history.py                  # 10,000 scenarios, best of 3
    .venv/bin/python bench/history.py --scenarios 2000 --rounds 1

The run is real: bench/workload.py's suite (recorded outputs, six checks a scenario) run
once by `checkspec run --format json` into a report file; the head run is that report
with every 10th scenario's status and output changed. Then, in this process, best of the
rounds: `HistoryStore.save` of the payload into a fresh database (JSON + zlib + SQLite
insert of the run, its payload and 10,000 index rows), `load` back, `compare`, and its
text and markdown renderings. Last, `checkspec run` with and without `--no-history`,
alternately (A/B, wall time of the process): what keeping the run adds to a run.
"""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workload import write_suite_yaml

from checkspec.engine.history.compare import compare
from checkspec.engine.history.payload import load_report_file
from checkspec.engine.history.render import compare_markdown, compare_text
from checkspec.engine.history.store import HistoryStore

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]


def best(rounds: int, work: Callable[[], Any]) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def changed(report: dict[str, Any]) -> dict[str, Any]:
    head = copy.deepcopy(report)
    head["run"]["id"] = report["run"]["id"] + "-head"
    for n, scenario in enumerate(head["scenarios"]):
        if n % 10 == 0:
            scenario["status"] = "fail" if scenario["status"] == "pass" else "pass"
            for interaction in scenario["final_trace"]["interactions"]:
                interaction["outputs"] = {"answer": f"changed {n}"}
    return head


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenarios", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "checkspec.yaml").write_text("history_max_runs: 1000\n")
        write_suite_yaml(root / "bench.suite.yaml", args.scenarios)
        subprocess.run(
            [*CLI, "run", ".", "--format", "json", "-o", "base.json", "--no-history"],
            cwd=root,
            capture_output=True,
            check=False,
        )
        size = (root / "base.json").stat().st_size
        base = load_report_file(root / "base.json")
        head = changed(base)
        figures: dict[str, float] = {}
        figures["load_report_file"] = best(
            args.rounds, lambda: load_report_file(root / "base.json")
        )

        def save() -> None:
            db = root / f"h-{time.monotonic_ns()}.db"
            with HistoryStore(db) as store:
                store.save(base, max_runs=200)

        figures["save (fresh db)"] = best(args.rounds, save)
        with HistoryStore(root / "kept.db") as store:
            for n in range(5):
                store.save({**base, "run": {**base["run"], "id": f"r{n}"}}, max_runs=200)
            figures["save (6th run)"] = best(
                1, lambda: store.save({**base, "run": {**base["run"], "id": "r6"}})
            )
            figures["load"] = best(args.rounds, lambda: store.load("r3"))
            figures["runs(20)"] = best(args.rounds, lambda: store.runs(20))
        db_size = (root / "kept.db").stat().st_size
        result = compare(base, head)
        figures["compare"] = best(args.rounds, lambda: compare(base, head))
        figures["render text"] = best(args.rounds, lambda: compare_text(result))
        figures["render markdown"] = best(args.rounds, lambda: compare_markdown(result))

        walls: dict[str, list[float]] = {"run": [], "run --no-history": []}
        for _ in range(args.rounds):
            for label, extra in (("run", []), ("run --no-history", ["--no-history"])):
                started = time.perf_counter()
                subprocess.run(
                    [*CLI, "run", ".", "--format", "json", "-o", "r.json", *extra],
                    cwd=root,
                    capture_output=True,
                    check=False,
                )
                walls[label].append(time.perf_counter() - started)
        print(
            f"{args.scenarios} scenarios; report {size / 1e6:.1f} MB; 6 runs in a {db_size / 1e6:.1f} MB db"
        )
        for name, seconds in figures.items():
            print(f"  {name:<20} {seconds * 1000:8.1f} ms")
        print(
            f"  newly failing {len(result.newly_failing)}, fixed {len(result.fixed)}, "
            f"changed outputs {len(result.changed_outputs)}"
        )
        for label, times in walls.items():
            shown = ", ".join(f"{t:.2f}" for t in times)
            print(f"  checkspec {label:<18} best {min(times):.2f} s  ({shown})")
        print(json.dumps({k: round(v, 4) for k, v in figures.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
