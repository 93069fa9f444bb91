"""The HTML run report at scale: page size and first paint in Chromium.

    .venv/bin/python bench/html_report.py [--scenarios 10000] [--rounds 3] [--keep FILE]

Builds a JSON run report of N synthetic scenarios (two turns each, three checks, every
7th failing with an expected-vs-actual pair, every 13th erroring, tags and files spread),
renders it with `checkspec.engine.html.render_report`, and opens the page from file:// in
headless Chromium (playwright-core from vscode-extension/node_modules, /usr/bin/chromium):
first contentful paint and the time until the script has rendered the first rows
(`body[data-ready]`), from the navigation's start (performance timing). Medians of the
rounds, each in a fresh browser page. Needs `npm ci` in vscode-extension/ and chromium.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EXTENSION = REPO / "vscode-extension"

PAINT = r"""
import { chromium } from "playwright-core";
const [file, rounds] = process.argv.slice(1);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox"] });
const out = [];
for (let i = 0; i < Number(rounds); i++) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  await page.goto("file://" + file);
  await page.waitForSelector("body[data-ready] details.row");
  out.push(await page.evaluate(() => {
    const nav = performance.getEntriesByType("navigation")[0];
    const fcp = performance.getEntriesByName("first-contentful-paint")[0];
    return { fcp_ms: fcp ? fcp.startTime : null, ready_ms: performance.now(), dom_ms: nav.domContentLoadedEventEnd,
             rows: document.querySelectorAll("details.row").length };
  }));
  await page.close();
}
await browser.close();
console.log(JSON.stringify(out));
"""


WORDS = [
    "refund",
    "order",
    "shipping",
    "days",
    "within",
    "policy",
    "return",
    "item",
    "parcel",
    "invoice",
    "account",
    "support",
]


def scenario(i: int, varied: bool = False) -> dict[str, Any]:
    status = "error" if i % 13 == 0 else "fail" if i % 7 == 0 else "pass"
    answer = f"Refunds within 30 days for order {i}; shipping in the EU takes 3-5 days."
    if varied:  # a different answer each time, as real agents give: compresses far less
        pick = random.Random(i)
        answer = " ".join(pick.choice(WORDS) + str(pick.randrange(1000)) for _ in range(40))
    results = [
        {"status": "pass", "message": "The answer contains the keyword 'refund'.",
         "details": {"text": answer, "keyword": "refund"}, "check": "string_matching", "line": 6},
        {"status": "pass", "message": "Text matches the regex pattern '\\d+ days'.",
         "details": {"text": answer, "pattern": "\\d+ days"}, "check": "regex_matching", "line": 8},
        {"status": "fail" if status == "fail" else "pass",
         "message": "expected 'shipped', got 'pending'" if status == "fail" else "equal",
         "details": {"expected_value": "shipped", "actual_value": "pending" if status == "fail" else "shipped"},
         "check": "equals", "line": 10},
    ]  # fmt: skip
    if status == "error":
        results[2] = {"status": "error", "message": "TimeoutError: target did not answer",
                      "details": {}, "check": "equals", "line": 10}  # fmt: skip
    turn = {
        "inputs": {"messages": [{"role": "user", "content": f"Question {i}: can I get a refund?"}]},
        "outputs": {"response": {"role": "assistant", "content": answer}, "status": "pending"},
        "metadata": {},
    }
    return {
        "scenario_name": f"refund policy #{i}", "id": f"suite{i % 20}.suite.yaml::refund policy #{i}",
        "file": f"suite{i % 20}.suite.yaml", "line": 3 + 12 * (i // 20), "tags": [["refund", "shipping", "tone"][i % 3]],
        "status": status, "duration_ms": 5 + i % 40, "output": "", "ending": "finished", "rerun": None,
        "steps": [{"results": results, "duration_ms": 4, "last_interaction_index": 1, "error": None,
                   "check_names": [], "skip_reason": None, "status": status}],
        "final_trace": {"interactions": [turn, turn], "annotations": {}, "last": turn},
        "multiple_runs": 1, "runs_executed": 1, "replayed": True, "step_lines": [5],
    }  # fmt: skip


def report(n: int, varied: bool = False) -> dict[str, Any]:
    scenarios = [scenario(i, varied) for i in range(n)]
    summary = {
        k: sum(s["status"] == k for s in scenarios) for k in ("pass", "fail", "error", "skip")
    }
    return {"status": "fail", "summary": summary, "interrupted": False, "duration_s": 12.3,
            "usage": {"requests": n, "cached": 0, "prompt_tokens": 120 * n, "completion_tokens": 20 * n,
                      "cost_usd": 0.00002 * n, "unpriced": 0},
            "scenarios": scenarios}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="also write the page here")
    parser.add_argument(
        "--varied", action="store_true", help="a different 40-word answer per scenario"
    )
    args = parser.parse_args()
    from checkspec.engine.history.payload import dumps
    from checkspec.engine.html import render_report

    payload = report(args.scenarios, args.varied)
    json_size = len(dumps(payload).encode())
    started = time.perf_counter()
    page = render_report(payload)
    render_s = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as folder:
        path = Path(args.keep or Path(folder) / "report.html").resolve()
        path.write_text(page, encoding="utf-8")
        size = path.stat().st_size
        done = subprocess.run(
            ["node", "--input-type=module", "-e", PAINT, str(path), str(args.rounds)],
            cwd=EXTENSION,
            capture_output=True,
            text=True,
            timeout=600,
        )
    if done.returncode:
        print(done.stderr, file=sys.stderr)
        return 2
    rounds = json.loads(done.stdout)
    fcp = statistics.median(r["fcp_ms"] for r in rounds)
    ready = statistics.median(r["ready_ms"] for r in rounds)
    print(f"scenarios          {args.scenarios}")
    print(f"JSON report        {json_size / 1e6:.2f} MB (as --format json writes it)")
    print(f"HTML page          {size / 1e6:.2f} MB")
    print(f"render (Python)    {render_s:.2f} s")
    print(f"first paint        {fcp:.0f} ms (median of {len(rounds)}, first-contentful-paint)")
    print(f"first rows ready   {ready:.0f} ms ({rounds[0]['rows']} rows drawn)")
    return 0 if size <= 10_000_000 and ready <= 2000 else 1


if __name__ == "__main__":
    sys.exit(main())
