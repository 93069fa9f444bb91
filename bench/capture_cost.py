"""What `capture: otel` costs a run: N scenarios of a tool-calling agent, capture off vs on.

    .venv/bin/python bench/capture_cost.py                      # 200 scenarios, 3 rounds
    .venv/bin/python bench/capture_cost.py --scenarios 50 --rounds 1

The agent is tests/support/tool_agent.py's: a plain function on the real openai SDK that
calls one tool, then answers, against the local OpenAI-compatible stub
(tests/support/openai_stub.py) with `--latency` seconds per model answer. Each round runs
`checkspec run` (a fresh process, its worker pool, no history) once with `--capture off`
and once with `--capture otel`, in alternating order; the medians of the wall times and
the overhead are printed, and so are the CPU seconds of the run's processes (the CLI and
its workers, reaped: RUSAGE_CHILDREN), which other load on the machine disturbs less than
the wall time. Every scenario checks the captured `tools_called`, so the
otel runs must all pass (and the off runs all fail: nothing is captured there).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.openai_stub import ToolCallingAnswers, running_stub  # noqa: E402
from tests.support.tool_agent import AGENT  # noqa: E402

SCENARIO = """  - name: order {i}
    steps:
      - interacts: [{{inputs: A{i}}}]
        checks:
          - {{kind: tool_called, tool: lookup_order, arguments: {{order_id: A{i}}}}}
"""


class SlowAnswers(ToolCallingAnswers):
    def __init__(self, latency: float) -> None:
        super().__init__()
        self.latency = latency

    def __call__(self, body: dict) -> object:
        time.sleep(self.latency)
        return super().__call__(body)


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run_once(folder: Path, base_url: str, capture: str) -> tuple[float, float, int]:
    env = {**os.environ, "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "bench"}
    checkspec = str(Path(sys.executable).parent / "checkspec")
    command = [checkspec, "run", ".", "--no-history", "--capture", capture, "--format", "json"]
    started, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, check=False)
    elapsed, cpu = time.perf_counter() - started, _children_cpu() - cpu
    if done.returncode not in (0, 1):
        raise SystemExit(f"checkspec run --capture {capture} failed:\n{done.stderr}")
    import json

    return elapsed, cpu, json.loads(done.stdout)["run"]["counts"]["pass"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--scenarios", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per model answer")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, running_stub(keep_alive=True) as stub:
        folder = Path(tmp)
        (folder / "agent.py").write_text(AGENT, encoding="utf-8")
        scenarios = "".join(SCENARIO.format(i=i) for i in range(args.scenarios))
        suite = f"name: orders\ntarget: python:agent:answer\nscenarios:\n{scenarios}"
        (folder / "orders.suite.yaml").write_text(suite, encoding="utf-8")
        stub.chat = SlowAnswers(args.latency)
        times: dict[str, list[float]] = {"off": [], "otel": []}
        cpus: dict[str, list[float]] = {"off": [], "otel": []}
        for round_ in range(args.rounds):
            order = ("off", "otel") if round_ % 2 == 0 else ("otel", "off")
            for capture in order:
                elapsed, cpu, passed = run_once(folder, stub.base_url, capture)
                wanted = args.scenarios if capture == "otel" else 0
                if passed != wanted:
                    raise SystemExit(f"--capture {capture}: {passed} passed, expected {wanted}")
                times[capture].append(elapsed)
                cpus[capture].append(cpu)
                print(
                    f"round {round_ + 1} capture {capture:<4} {elapsed:6.2f} s, CPU {cpu:6.2f} s",
                    flush=True,
                )
    for what, values in (("wall", times), ("CPU", cpus)):
        off, on = statistics.median(values["off"]), statistics.median(values["otel"])
        print(
            f"{args.scenarios} scenarios, {os.cpu_count()} CPUs, {what}: capture off {off:.2f} s, "
            f"otel {on:.2f} s (median of {args.rounds}): {100 * (on - off) / off:+.1f}%"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
