"""Benchmark: checkspec's engine against the original giskard-checks 1.0.6.

    .venv/bin/python bench/engine_vs_reference.py [--scenarios N] [--rounds R]
        [--repeats K] [--quick] [--json out.json] [--no-reference] [--no-cli]

Each engine runs in its own worker process (bench/worker.py): ours with this venv's
Python, the reference with Python 3.13 from bench/.ref-venv, which is created (and
giskard-checks 1.0.6 installed into it) on first use. The reference library is never
imported into this process. Workers alternate A B A B for R rounds; the table shows
the median per engine and the speed ratio (reference total / ours total). The run
fails (exit 1) when the engines' pass counts differ from each other or from the count
the workload was built to give. `checkspec run` on the same workload as a suite file
is timed end to end as a whole process when that CLI is available.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import workload

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
OUT = BENCH / "out"
REF_VENV = BENCH / ".ref-venv"
REF_REQUIREMENT = "giskard-checks==1.0.6"
WORKER = BENCH / "worker.py"
RESULT_PREFIX = "BENCH_RESULT "
CLI_NA = "n/a (CLI not available)"
# The reference phones home unless told not to; this machine is offline anyway.
QUIET_ENV = {"DO_NOT_TRACK": "1", "GISKARD_TELEMETRY_DISABLED": "1", "GISKARD_QUIET": "1"}


class BenchError(RuntimeError):
    """A set-up or worker failure, reported as one clear line."""


def _is_python313(candidate: str) -> bool:
    # A pyenv shim is on PATH even when its version is not selected: ask the binary.
    try:
        probe = _run([candidate, "-c", "import sys; print(sys.version_info[:2] == (3, 13))"])
    except OSError:
        return False
    return probe.returncode == 0 and probe.stdout.strip() == "True"


def find_python313() -> str:
    """A working `python3.13` on PATH, else the newest ~/.pyenv/versions/3.13*/bin/python."""
    candidates = [shutil.which("python3.13")]
    pyenv_root = os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))
    candidates += sorted(
        glob.glob(os.path.join(pyenv_root, "versions", "3.13*", "bin", "python")), reverse=True
    )
    for candidate in candidates:
        if candidate and _is_python313(candidate):
            return candidate
    raise BenchError(
        "Python 3.13 not found (giskard-checks 1.0.6 needs it): put python3.13 on PATH or "
        "install it under ~/.pyenv/versions/3.13.x; or pass --no-reference to time ours only."
    )


def _run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=False, **kwargs)


def ensure_reference_venv() -> Path:
    """bench/.ref-venv with giskard-checks 1.0.6, created and installed if missing."""
    python = REF_VENV / "bin" / "python"
    if not python.exists():
        interpreter = find_python313()
        print(f"creating {REF_VENV.relative_to(REPO)} with {interpreter} ...", flush=True)
        made = _run([interpreter, "-m", "venv", str(REF_VENV)])
        if made.returncode != 0:
            raise BenchError(f"could not create {REF_VENV}: {made.stderr.strip()}")
    probe = _run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('giskard-checks'))"]
    )
    if probe.returncode != 0 or probe.stdout.strip() != REF_REQUIREMENT.split("==")[1]:
        print(f"installing {REF_REQUIREMENT} into {REF_VENV.relative_to(REPO)} ...", flush=True)
        pip = _run([str(python), "-m", "pip", "install", "--quiet", REF_REQUIREMENT])
        if pip.returncode != 0:
            raise BenchError(f"pip install {REF_REQUIREMENT} failed:\n{pip.stderr.strip()}")
    return python


def run_worker(python: Path | str, engine: str, workload_path: Path, repeats: int) -> dict:
    """One worker process; its BENCH_RESULT line as a dict."""
    env = {**os.environ, **QUIET_ENV}
    cmd = [str(python), str(WORKER), "--engine", engine]
    cmd += ["--workload", str(workload_path), "--repeats", str(repeats)]
    done = _run(cmd, env=env, cwd=str(OUT))
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(RESULT_PREFIX):
            return json.loads(line[len(RESULT_PREFIX) :])
    tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-15:])
    raise BenchError(f"{engine} worker failed (exit {done.returncode}):\n{tail}")


def time_cli(suite: Path) -> dict[str, Any]:
    """`checkspec run <suite>` end to end, or why it could not be timed."""
    cli = Path(sys.executable).parent / "checkspec"
    if not cli.exists():
        return {"status": CLI_NA, "why": "no checkspec executable next to this Python"}
    try:
        probe = _run([str(cli), "run", "--help"], timeout=120)
    except subprocess.TimeoutExpired:
        return {"status": CLI_NA, "why": "`checkspec run --help` timed out"}
    if probe.returncode != 0:
        return {"status": CLI_NA, "why": "`checkspec run` is not a command yet"}
    report = OUT / "cli-report.json"
    cmd = [str(cli), "run", str(suite), "--format", "json", "--output", str(report)]
    started = time.perf_counter()
    try:
        done = _run(cmd, timeout=600, env={**os.environ, **QUIET_ENV})
    except subprocess.TimeoutExpired:
        return {"status": CLI_NA, "why": "timed out after 600 s"}
    wall = time.perf_counter() - started
    # Exit 1 only says some scenarios failed, which this workload does on purpose.
    if done.returncode not in (0, 1) or "Traceback" in done.stderr:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        return {"status": CLI_NA, "why": f"exit {done.returncode}: {tail}"}
    timed: dict[str, Any] = {"status": "ok", "wall_s": wall, "exit_code": done.returncode}
    # Best effort: the report format belongs to the CLI.
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        timed["pass_count"] = int(json.loads(report.read_text())["summary"]["pass"])
    return timed


def summarize(results: list[dict]) -> dict[str, Any]:
    """Median of the rounds for each timing; the other fields from the first round."""
    first = results[0]
    summary = {
        key: first[key] for key in ("engine", "python", "scenarios", "repeats", "pass_count")
    }
    for key in ("build_s", "run_s", "total_s", "gc_s"):
        summary[key] = statistics.median(r[key] for r in results)
    summary["peak_rss_mb"] = max(r["peak_rss_mb"] for r in results)
    summary["rounds_total_s"] = [r["total_s"] for r in results]
    return summary


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:9.1f}"


def print_table(report: dict[str, Any]) -> None:
    count = report["scenarios"]
    print()
    print(f"{count} scenarios, {report['rounds']} rounds x {report['repeats']} repeats (medians)")
    print(
        f"{'engine':<12}{'python':<9}{'build ms':>9}{'run ms':>9}{'total ms':>9}"
        f"{'gc ms':>9}{'us/scen':>9}{'passed':>8}{'RSS MB':>8}"
    )
    for name in ("ours", "reference"):
        row = report["engines"].get(name)
        if row is None:
            continue
        per = row["total_s"] / count * 1e6
        print(
            f"{name:<12}{row['python']:<9}{_ms(row['build_s'])}{_ms(row['run_s'])}"
            f"{_ms(row['total_s'])}{_ms(row['gc_s'])}{per:9.1f}{row['pass_count']:8d}"
            f"{row['peak_rss_mb']:8.1f}"
        )
    if report.get("speedup") is not None:
        print(f"speed ratio (reference total / ours total): {report['speedup']:.1f}x")
    cli = report["cli"]
    if cli.get("status") == "ok":
        passed = f", {cli['pass_count']} passed" if "pass_count" in cli else ""
        print(f"checkspec run <suite> (whole process): {cli['wall_s'] * 1000:.0f} ms wall{passed}")
    else:
        print(f"checkspec run <suite> (whole process): {cli.get('status', CLI_NA)}")
    print(f"expected pass count: {report['expected_pass_count']}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="checkspec engine vs giskard-checks 1.0.6")
    parser.add_argument("--scenarios", type=int, default=2000, help="workload size")
    parser.add_argument("--rounds", type=int, default=3, help="A B rounds of workers")
    parser.add_argument("--repeats", type=int, default=3, help="build+run repeats per worker")
    parser.add_argument("--quick", action="store_true", help="tiny run: 100 scenarios, 1 round")
    parser.add_argument("--json", type=Path, help="also write the report as JSON here")
    parser.add_argument("--no-reference", action="store_true", help="time our engine only")
    parser.add_argument("--no-cli", action="store_true", help="skip the `checkspec run` timing")
    args = parser.parse_args(argv)
    if args.quick:
        args.scenarios, args.rounds, args.repeats = 100, 1, 1
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    count = args.scenarios
    expected = workload.expected_pass_count(count)
    OUT.mkdir(parents=True, exist_ok=True)
    workload_path = workload.write_json(OUT / f"workload-{count}.json", count)
    try:
        ref_python = None if args.no_reference else ensure_reference_venv()
        engines: dict[str, list[dict]] = {"ours": []}
        if ref_python is not None:
            engines["reference"] = []
        for round_no in range(1, args.rounds + 1):
            print(f"round {round_no}/{args.rounds}: ours", end="", flush=True)
            engines["ours"].append(run_worker(sys.executable, "ours", workload_path, args.repeats))
            if ref_python is not None:
                print(", reference", end="", flush=True)
                engines["reference"].append(
                    run_worker(ref_python, "reference", workload_path, args.repeats)
                )
            print(flush=True)
    except BenchError as exc:
        print(f"\nbench: {exc}", file=sys.stderr)
        return 2

    summaries = {name: summarize(results) for name, results in engines.items()}
    cli: dict[str, Any] = {"status": "skipped"}
    if not args.no_cli:
        suite = workload.write_suite_yaml(OUT / f"workload-{count}.suite.yaml", count)
        cli = time_cli(suite)
    ours, ref = summaries["ours"], summaries.get("reference")
    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "arch": platform.machine(),
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
        },
        "scenarios": count,
        "rounds": args.rounds,
        "repeats": args.repeats,
        "expected_pass_count": expected,
        "engines": summaries,
        "speedup": ref["total_s"] / ours["total_s"] if ref else None,
        "cli": cli,
    }
    print_table(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    counts = {name: {r["pass_count"] for r in results} for name, results in engines.items()}
    if any(found != {expected} for found in counts.values()):
        print(f"bench: pass counts differ: {counts} (expected {expected})", file=sys.stderr)
        return 1
    if cli.get("pass_count", expected) != expected:
        print(f"bench: warning: checkspec run passed {cli['pass_count']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
