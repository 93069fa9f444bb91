"""Where the test suite's CPU goes: each test's CPU time in the pytest process and in the
processes it started and reaped (language servers, the CLI, the pool's workers, pytest
runs), summed by test file.

`make test` is CPU-bound on a 2-core machine: its wall time follows the CPU seconds all
its processes spend, not any one test's duration (`--durations` shows the waits). This
plugin reads `getrusage` around each test (RUSAGE_SELF and RUSAGE_CHILDREN: a child's
time counts once it has been reaped; a module's server is reaped by its last test).

    PYTHONPATH=bench .venv/bin/python -m coverage run -m pytest -n 3 --dist loadfile \\
        -p suite_cpu                      # as `make test` runs the suite
    .venv/bin/python bench/suite_cpu.py   # the table, by file (--top N, --tests)
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

OUT = Path(os.environ.get("SUITE_CPU_OUT", "build/suite-cpu"))
_file: IO[str] | None = None


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def _out() -> IO[str]:
    global _file
    if _file is None:
        OUT.mkdir(parents=True, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        _file = (OUT / f"{worker}-{os.getpid()}.jsonl").open("a", encoding="utf-8")
    return _file


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    own, children, wall = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN), time.time()
    yield
    row = {
        "test": item.nodeid,
        "self": _cpu(resource.RUSAGE_SELF) - own,
        "children": _cpu(resource.RUSAGE_CHILDREN) - children,
        "wall": time.time() - wall,
    }
    out = _out()
    out.write(json.dumps(row) + "\n")
    out.flush()


def rows(folder: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for path in sorted(folder.glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def table(found: list[dict[str, Any]], top: int, by_test: bool) -> str:
    sums: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0.0, 0])
    for row in found:
        key = row["test"] if by_test else row["test"].split("::")[0]
        total = sums[key]
        total[0] += row["self"]
        total[1] += row["children"]
        total[2] += row["wall"]
        total[3] += 1
    own = sum(s[0] for s in sums.values())
    children = sum(s[1] for s in sums.values())
    lines = [
        f"{len(found)} tests: {own + children:.0f} CPU-s "
        f"({own:.0f} in pytest's processes, {children:.0f} in the processes they started)",
        f"{'CPU-s':>7} {'self':>7} {'children':>8} {'wall-s':>7} {'tests':>5}  "
        + ("test" if by_test else "file"),
    ]
    ranked = sorted(sums.items(), key=lambda item: -(item[1][0] + item[1][1]))
    for key, (mine, theirs, wall, count) in ranked[:top]:
        lines.append(
            f"{mine + theirs:7.1f} {mine:7.1f} {theirs:8.1f} {wall:7.1f} {int(count):5d}  {key}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=30, help="rows shown (default 30)")
    parser.add_argument("--tests", action="store_true", help="by test, not by file")
    parser.add_argument("folder", nargs="?", type=Path, default=OUT)
    args = parser.parse_args(argv)
    found = rows(args.folder)
    if not found:
        print(f"no measurements in {args.folder}: run the suite with -p suite_cpu first")
        return 1
    print(table(found, args.top, args.tests))
    return 0


if __name__ == "__main__":
    sys.exit(main())
