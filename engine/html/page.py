"""One self-contained HTML page per run report or comparison.

The page is `assets/page.html` with the styles and script of `assets/` inlined and the
data embedded as JSON in a `<script type="application/json">`; the script renders the
rows a page at a time, so a run of 10,000 scenarios opens at once (bench/html_report.py).
No network: nothing is fetched, the page works from file:// (tests/engine/html/test_html_report.py).

Its Content-Security-Policy allows only its own script, by hash (`script-src
'sha256-…'`): no inline event handler and no other script runs, even if some text got
past the escaping. Every text goes into the page through textContent, and a long one is
shown cut to report.js's CUT characters with buttons to show more or all of it.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
from functools import cache
from importlib.resources import files
from typing import Any

from ..core.usage import Usage, format_cost
from ..llm.snapshot import redactor

_SLOT = re.compile(r"\{\{(title|style|data|encoding|script|script_hash)\}\}")
# Data bigger than this is embedded gzipped, as a JSON string of base64 (the page inflates
# it with the browser's DecompressionStream): a run's JSON repeats its keys and texts, and
# 10,000 scenarios would be ~14 MB as text, ~1.5 MB so (bench/html_report.py).
COMPRESS_OVER = 1_000_000


@cache
def asset(name: str) -> str:
    """A file of engine/html/assets/ (shipped as package data)."""
    return files(__package__).joinpath("assets", name).read_text(encoding="utf-8")


def embed_json(value: object) -> str:
    """JSON safe inside a <script> element: no `<` (so no `</script>` or `<!--`) and no
    U+2028/U+2029, each written as its \\u escape, which JSON.parse reads back as is."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=repr)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _escape_html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def page(
    kind: str,
    data: object,
    title: str,
    scripts: tuple[str, ...] = ("report.js",),
    compress_over: int = COMPRESS_OVER,
) -> str:
    """The page of `kind` ("report", "compare", "runs") over `data`."""
    # Masked before it may be packed (core/redact.py): the data of a run kept before
    # secrets were masked, or of a report from elsewhere, holds none either.
    embedded = redactor().text(embed_json({"page": kind, "data": data}))
    title = redactor().text(title)
    encoding = "json"
    if len(embedded) > compress_over:
        packed = gzip.compress(embedded.encode("utf-8"), compresslevel=6, mtime=0)
        embedded = json.dumps(base64.b64encode(packed).decode("ascii"))
        encoding = "gzip+base64"
    script = "\n".join(asset(name) for name in scripts).replace("</script", "<\\/script")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    values = {
        "title": _escape_html(title),
        "style": asset("style.css"),
        "data": embedded,
        "encoding": encoding,
        "script": script,
        "script_hash": f"sha256-{digest}",
    }
    return _SLOT.sub(lambda found: values[found.group(1)], asset("page.html"))


# Fields of a scenario the page never shows.
_UNSHOWN = ("multiple_runs", "runs_executed", "ending")
_STEP_UNSHOWN = ("check_names", "last_interaction_index")


def slim_report(payload: dict[str, Any]) -> dict[str, Any]:
    """The run report without what the page never shows (the trace's `last`, a copy of
    its final interaction; empty metrics and check-name lists), to keep big pages small."""
    scenarios = []
    for scenario in payload.get("scenarios", []):
        scenario = {k: v for k, v in scenario.items() if k not in _UNSHOWN and v is not None}
        if not scenario.get("replayed"):  # kept when true: a label then records nothing
            scenario.pop("replayed", None)
        trace = scenario.get("final_trace")
        if isinstance(trace, dict) and "last" in trace:
            scenario["final_trace"] = {k: v for k, v in trace.items() if k != "last"}
        steps = []
        for step in scenario.get("steps", []):
            step = {
                k: v
                for k, v in step.items()
                if k not in _STEP_UNSHOWN and (v not in (None, []) or k == "results")
            }
            step["results"] = [
                {k: v for k, v in result.items() if k != "metrics" or v}
                for result in step.get("results", [])
            ]
            steps.append(step)
        scenario["steps"] = steps
        scenarios.append(scenario)
    return {**payload, "scenarios": scenarios}


def render_report(payload: dict[str, Any], title: str | None = None) -> str:
    """The page of one run: `payload` is the JSON run report (`checkspec run --format json`)."""
    run = payload.get("run") or {}
    name = title or ("checkspec run " + str(run["id"]) if run.get("id") else "checkspec run report")
    data = slim_report(payload)
    if isinstance(data.get("usage"), dict):  # the cost as the text summary shows it ($?)
        usage = Usage.model_validate(data["usage"])
        data["usage"] = {**data["usage"], "cost": format_cost(usage.known_cost)}
    return page("report", data, name)


def render_compare(
    comparison: Any,
    title: str | None = None,
    *,
    base: dict[str, Any] | None = None,
    head: dict[str, Any] | None = None,
) -> str:
    """The page of a comparison (a `Comparison`, or its `to_json()` dict). Given the two
    run reports, each listed scenario's conversation and checks in both runs go with it."""
    data = comparison.to_json() if hasattr(comparison, "to_json") else dict(comparison)
    if base is not None or head is not None:
        listed = {
            change["id"]
            for section in ("newly_failing", "fixed", "still_failing", "added", "removed")
            for change in data.get(section, [])
        } | {change["id"] for change in data.get("changed_outputs", [])}
        details: dict[str, dict[str, Any]] = {}
        for side, payload in (("base", base), ("head", head)):
            for scenario in slim_report(payload or {}).get("scenarios", []):
                if scenario.get("id") in listed:
                    details.setdefault(scenario["id"], {})[side] = scenario
        data["scenarios"] = details
    runs = data.get("base") or {}, data.get("head") or {}
    name = title or f"checkspec compare {runs[0].get('id', 'base')} → {runs[1].get('id', 'head')}"
    return page("compare", data, name)
