"""CPU time of our engine on the benchmark's workload, for A/B comparisons on a busy machine.

    .venv/bin/python bench/engine_cpu.py                 # this checkout
    PYTHONPATH=/tmp/other/root .venv/bin/python bench/engine_cpu.py   # another tree

Builds and runs the 2,000 scenarios of bench/workload.py as the timing worker does
(`Scenario.model_validate`, one `asyncio.gather`, start-up state frozen, collector on
with its default thresholds), five times after a warm-up, and prints the median CPU
milliseconds (`time.process_time`): less sensitive than wall time to other processes,
so two trees can be compared by running this alternately.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.workload import make_workload


def main() -> None:
    from checkspec.engine import Scenario

    data = make_workload(2000)
    gc.collect()
    gc.freeze()

    def once() -> None:
        scenarios = [Scenario.model_validate(d) for d in data]

        async def run_all() -> list[object]:
            return await asyncio.gather(*(s.run() for s in scenarios))

        loop = asyncio.new_event_loop()
        loop.run_until_complete(run_all())
        loop.close()

    once()
    times = []
    for _ in range(5):
        gc.collect()
        started = time.process_time()
        once()
        times.append(time.process_time() - started)
    print(
        f"build+run of 2,000 scenarios: {statistics.median(times) * 1000:.1f} ms CPU (median of 5)"
    )


if __name__ == "__main__":
    main()
