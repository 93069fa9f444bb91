"""What masking secrets costs (engine/core/redact.py, issue 48 item 2).

    .venv/bin/python bench/redaction.py [--scenarios 10000] [--lines 20000] [--rounds 3]

Two costs, best of the rounds:

- a report: the JSON of a run of N synthetic scenarios (bench/html_report.py's), masked
  as text, as the history and `run -o` mask it, against dumping it to JSON at all; once
  clean, once with a held key and a URL password in 500 places;
- a command's printing: `print` of L short lines through the masked stdout (what `list`
  does), against plain `print`.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("OPENAI_API_KEY", "sk-bench-0123456789abcdef")

from html_report import report

from checkspec.engine.core.redact import redacted_streams
from checkspec.engine.llm.snapshot import redactor


def best(rounds: int, work: Callable[[], Any]) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def printing(lines: int, masked: bool) -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        if masked:
            with redacted_streams():
                for i in range(lines):
                    print(f"scenario {i}  suites/support.suite.yaml:12  tags: billing, vip")
        else:
            for i in range(lines):
                print(f"scenario {i}  suites/support.suite.yaml:12  tags: billing, vip")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenarios", type=int, default=10_000)
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    payload = report(args.scenarios, varied=True)
    text = json.dumps(payload, ensure_ascii=False)
    key = os.environ["OPENAI_API_KEY"]
    dirty = text.replace("Sorry", f"Sorry {key} http://u:hunter22@proxy/v1", 500)
    mask = redactor().text
    rows = {
        "json.dumps of the report": best(args.rounds, lambda: json.dumps(payload)),
        "mask the report (clean)": best(args.rounds, lambda: mask(text)),
        "mask the report (500 secrets)": best(args.rounds, lambda: mask(dirty)),
        f"print {args.lines} lines": best(args.rounds, lambda: printing(args.lines, False)),
        f"print {args.lines} lines, masked": best(args.rounds, lambda: printing(args.lines, True)),
    }
    print(f"report: {args.scenarios} scenarios, {len(text) / 1e6:.1f} MB of JSON")
    for name, seconds in rows.items():
        print(f"{name:<34} {seconds:8.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
