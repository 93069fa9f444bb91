"""Scale-out: an LLM-judged suite against a local OpenAI-compatible stub that answers after
300 ms, with 1, 2 and 8 local workers and on a local Ray cluster; then the same run again
(verdict cache: no request), and sharding overhead on the deterministic workload.

    .venv/bin/python bench/scale_out.py [--scenarios 10000] [--latency 0.3]
        [--parallel 64] [--no-ray] [--shard-scenarios 2000]

The bound: with `max_parallel_requests: P` and latency L, at most P / L calls per second.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).parent))
from workload import write_suite_yaml  # noqa: E402

from tests.support.openai_stub import OpenAIStub, SlowVerdicts, judged_suite, running_stub  # noqa: E402

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(folder: Path, stub: OpenAIStub, *args: str) -> tuple[float, int]:
    env = {
        **os.environ,
        "CHECKSPEC_API_BASE": stub.base_url,
        "CHECKSPEC_API_KEY": "sk-bench",
        "CHECKSPEC_MODEL": "openai/judge",
        "RAY_AUTH_MODE": "disabled",
        "RAY_USAGE_STATS_ENABLED": "0",
    }
    env.pop("CHECKSPEC_CACHE_DIR", None)
    started = time.perf_counter()
    done = subprocess.run(
        [*CLI, "run", ".", "--format", "json", "-o", "report.json", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
    )
    took = time.perf_counter() - started
    report = json.loads((folder / "report.json").read_text())
    if report["summary"]["pass"] != len(report["scenarios"]):
        raise SystemExit(f"not all passed: {report['summary']} {done.stderr[-500:]}")
    return took, len(report["scenarios"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=10_000)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--parallel", type=int, default=64)
    parser.add_argument("--no-ray", action="store_true")
    parser.add_argument(
        "--close-connections",
        dest="keep_alive",
        action="store_false",
        help="the stub closes each connection after its answer (HTTP/1.0), as before",
    )
    parser.add_argument("--only-ray", action="store_true", help="skip the local worker runs")
    parser.add_argument("--shard-scenarios", type=int, default=2000)
    parser.add_argument(
        "--only",
        nargs="*",
        choices=("1", "2", "8", "ray"),
        help="run only these configurations (worker counts, ray); skip the cache and shards",
    )
    args = parser.parse_args()
    bound = args.parallel / args.latency
    print(
        f"{args.scenarios} LLM-judged scenarios, stub latency {args.latency * 1000:.0f} ms, "
        f"max_parallel_requests {args.parallel}: bound {bound:.0f} calls/s"
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "j.suite.yaml").write_text(judged_suite(args.scenarios))
        configs = [] if args.only_ray else [("1 worker", ["--jobs", "1"])]
        configs += [] if args.only_ray else [("2 workers", ["--jobs", "2"])]
        configs += [] if args.only_ray else [("8 workers", ["--jobs", "8"])]
        if not args.no_ray:
            configs.append(("Ray (local, 2 CPUs)", ["--executor", "ray"]))
        if args.only:
            keep = {"1": "1 worker", "2": "2 workers", "8": "8 workers", "ray": "Ray"}
            names = tuple(keep[k] for k in args.only)
            configs = [(n, e) for n, e in configs if n.startswith(names)]
        for name, extra in configs:
            (folder / "checkspec.yaml").write_text(
                f"concurrency: {min(256, args.parallel * 2)}\n"
                f"max_parallel_requests: {args.parallel}\n"
            )
            with running_stub(args.keep_alive) as stub:
                counter = SlowVerdicts(args.latency)
                stub.chat = counter
                cpu_before, stub_before = children_cpu(), time.process_time()
                took, count = timed(folder, stub, "--no-cache", *extra)
                ours = (children_cpu() - cpu_before) / count * 1000
                theirs = (time.process_time() - stub_before) / count * 1000
                rate = count / took
                print(
                    f"  {name:<22} {took:7.1f} s  {rate:6.1f} scenarios/s  "
                    f"{100 * rate / bound:5.1f}% of the bound  peak in flight {counter.peak}  "
                    f"CPU per scenario: checkspec {ours:.1f} ms, stub {theirs:.1f} ms",
                    flush=True,
                )
        if args.only:
            return 0
        # The verdict cache: fill it, then an unchanged run.
        (folder / "checkspec.yaml").write_text(
            f"concurrency: {min(256, args.parallel * 2)}\nmax_parallel_requests: {args.parallel}\n"
        )
        with running_stub() as stub:
            stub.chat = SlowVerdicts(args.latency)
            timed(folder, stub, "--jobs", "2")
            before = len(stub.chat_requests)
            took, _ = timed(folder, stub, "--jobs", "2")
            print(
                f"  second run (cache):    {took:7.1f} s  requests sent: "
                f"{len(stub.chat_requests) - before}"
            )
        # Sharding overhead on the deterministic workload.
        shards = folder / "shards"
        shards.mkdir()
        write_suite_yaml(shards / "w.suite.yaml", args.shard_scenarios)
        started = time.perf_counter()
        subprocess.run(
            [*CLI, "run", ".", "--format", "json", "-o", "full.json"],
            cwd=shards,
            capture_output=True,
        )
        whole = time.perf_counter() - started
        parts = []
        for n in (2, 4):
            started = time.perf_counter()
            for k in range(1, n + 1):
                subprocess.run(
                    [
                        *CLI,
                        "run",
                        ".",
                        "--shard",
                        f"{k}/{n}",
                        "--format",
                        "json",
                        "-o",
                        f"s{k}of{n}.json",
                    ],
                    cwd=shards,
                    capture_output=True,
                )
            subprocess.run(
                [
                    *CLI,
                    "merge",
                    *(f"s{k}of{n}.json" for k in range(1, n + 1)),
                    "--format",
                    "json",
                    "-o",
                    f"merged{n}.json",
                ],
                cwd=shards,
                capture_output=True,
            )
            parts.append((n, time.perf_counter() - started))
        print(
            f"  sharding, {args.shard_scenarios} deterministic scenarios: one run {whole:.2f} s; "
            + "; ".join(f"{n} shards one after another + merge {t:.2f} s" for n, t in parts)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
