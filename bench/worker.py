"""Timing worker: one engine, one process. Stdlib only, so any engine's venv can run it.

    python bench/worker.py --engine ours|reference --workload w.json [--repeats R]
        [--no-freeze]

Loads the serialized scenarios, then R times (fresh objects each time): build every
Scenario with `Scenario.model_validate`, run them all under one `asyncio.gather`.
Prints one line `BENCH_RESULT {json}` with the medians of the repeats (`gc_s`: the part
of build + run spent in the cyclic garbage collector), the pass count and the peak RSS.
The reference library is only ever imported here, in its own venv.

Garbage collection stays on, with Python's default thresholds. What exists before the
timed part (the interpreter, the engine's imports, the loaded workload) is frozen with
`gc.freeze()` first, as `checkspec run` does before it runs scenarios: the timings then
cover the objects each engine creates while building and running, not the collector
re-walking start-up state. `gc_s` says how much of the time the collector still took.
`--no-freeze` leaves start-up state to the collector (for comparison).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import resource
import statistics
import sys
import time
from typing import Any

RESULT_PREFIX = "BENCH_RESULT "

# Keep giskard-checks from phoning home or printing its banner (this machine is offline).
QUIET_ENV = ("DO_NOT_TRACK", "GISKARD_TELEMETRY_DISABLED", "GISKARD_QUIET")


def load_scenario_class(engine: str) -> Any:
    if engine == "ours":
        from checkspec.engine import Scenario

        return Scenario
    if engine == "reference":
        for var in QUIET_ENV:  # read when giskard is imported
            os.environ[var] = "1"
        from giskard.checks import Scenario

        try:  # belt and braces on top of the environment variables above
            from giskard.core import disable_telemetry

            disable_telemetry()
        except ImportError:
            pass
        return Scenario
    raise SystemExit(f"unknown engine {engine!r}")


def _passed(result: Any) -> bool:
    status = result.status
    return str(getattr(status, "value", status)) == "pass"


class GCTimer:
    """Seconds spent in the cyclic garbage collector (a share of the timed work)."""

    def __init__(self) -> None:
        self.total = 0.0
        self._started = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.total += time.perf_counter() - self._started


def run_once(scenario_cls: Any, data: list[dict[str, Any]]) -> tuple[float, float, int]:
    """Build and run every scenario once: (build seconds, run seconds, pass count)."""
    # The loop is made and closed outside the timed part: only the gather is timed.
    loop = asyncio.new_event_loop()
    try:
        started = time.perf_counter()
        scenarios = [scenario_cls.model_validate(d) for d in data]
        built = time.perf_counter()

        async def run_all() -> list[Any]:
            return await asyncio.gather(*(s.run() for s in scenarios))

        results = loop.run_until_complete(run_all())
        finished = time.perf_counter()
    finally:
        loop.close()
    return built - started, finished - built, sum(_passed(r) for r in results)


def measure(
    engine: str, data: list[dict[str, Any]], repeats: int, freeze: bool = True
) -> dict[str, Any]:
    scenario_cls = load_scenario_class(engine)
    gc.collect()
    if freeze:
        gc.freeze()  # start-up state: see the module docstring
    builds: list[float] = []
    runs: list[float] = []
    totals: list[float] = []
    gcs: list[float] = []
    pass_counts: set[int] = set()
    timer = GCTimer()
    for _ in range(repeats):
        gc.collect()  # start each repeat without the previous one's garbage
        timer.total = 0.0
        build_s, run_s, passed = run_once(scenario_cls, data)
        builds.append(build_s)
        runs.append(run_s)
        totals.append(build_s + run_s)
        gcs.append(timer.total)
        pass_counts.add(passed)
    if len(pass_counts) != 1:
        raise SystemExit(f"pass count changed between repeats: {sorted(pass_counts)}")
    # Linux reports ru_maxrss in KiB.
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "engine": engine,
        "python": sys.version.split()[0],
        "scenarios": len(data),
        "repeats": repeats,
        "frozen_start_up": freeze,
        "build_s": statistics.median(builds),
        "run_s": statistics.median(runs),
        "total_s": statistics.median(totals),
        "gc_s": statistics.median(gcs),
        "total_samples_s": totals,
        "pass_count": pass_counts.pop(),
        "peak_rss_mb": round(peak_kib / 1024, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=("ours", "reference"), required=True)
    parser.add_argument("--workload", required=True, help="JSON list of scenario dicts")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--no-freeze", action="store_true", help="leave start-up state to the collector"
    )
    args = parser.parse_args(argv)
    with open(args.workload, encoding="utf-8") as handle:
        data = json.load(handle)
    result = measure(args.engine, data, max(1, args.repeats), freeze=not args.no_freeze)
    print(RESULT_PREFIX + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
