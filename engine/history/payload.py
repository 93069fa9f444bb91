"""The JSON run report: what `checkspec run --format json` prints and what the history keeps.

One dict, built once (`build_payload`), so a stored run and a JSON report file are
interchangeable inputs of `checkspec compare` and `checkspec report`:

```
{
  "format": "checkspec-run/1",
  "run": {
    "id": "20261202-135512-3f2a",        # the history's run id (also in a JSON report file)
    "started": "2026-12-02T13:55:12.345+00:00",   # UTC, ISO 8601, milliseconds
    "duration_s": 1.234,
    "source": "cli" | "pytest" | "editor",
    "git": {"commit": "<40 hex>", "dirty": false} | null,   # null outside a repository
    "target": "python:agent:answer" | null,                 # --target / the setting
    "models": {"judge": "openai/gpt-4o-mini" | null, "embedding": ... | null},
    "settings": {...},                                      # the ones that change results
    "counts": {"pass": N, "fail": N, "error": N, "skip": N, "total": N},
    "pass_rate": 0.95 | null,                               # pass / (total - skip)
    "cost_usd": 0.0123 | null,                # 0 when no model was called, null: unpriced
    "repeat": 1, "min_pass_rate": 1.0
  },
  "status": "pass" | "fail" | "error",
  "summary": {"pass": N, ...}, "interrupted": false, "duration_s": 1.234,
  "usage": {...}?, "shard": {...}?,
  "scenarios": [ {ScenarioResult as JSON (steps, results with their details: expected
                  and actual values, final_trace: the conversation and outputs, duration_ms,
                  check_durations_ms), "id": identity, "file", "line", "step_lines", "tags",
                  "output": what its code printed, "ending", "rerun",
                  "repeats"?: {"runs", "passed", "rate", "flaky", "statuses", "checks"}} ]
}
```

`load_report_file(path)` reads a JSON report back and refuses another format version (a
`ReportFormatError` whose message says which version it is and which is read).
This module imports nothing above it: the report is read through its attributes (the
CLI's `RunReport` and `ScenarioRun`), named only for the type checker.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.usage import cost_of

if TYPE_CHECKING:
    from ..runs.report import RunReport, ScenarioRun
    from ..settings import Settings

FORMAT = "checkspec-run/1"
FORMAT_PREFIX = "checkspec-run/"

# The settings that change what a run gives (the others change only how fast it goes).
RESULT_SETTINGS = (
    "model",
    "embedding_model",
    "llm_client",
    "api_base",
    "target",
    "target_timeout",
    "scenario_timeout",
    "cache",
    "max_cost",
    "rerun",
    "concurrency",
    "jobs",
)


class ReportFormatError(ValueError):
    """A file that is not a JSON run report of the format this checkspec reads."""


def kept_time(epoch: float) -> str:
    """When a run or a calibration started, as the history keeps it: ISO 8601, UTC, to the
    millisecond, so that a run and a calibration made in the same second still have an
    order (calibrations.py, `in_force`)."""
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")


def new_run_id(started: float | None = None) -> str:
    """Sortable and short: `YYYYMMDD-HHMMSS-xxxx` (UTC, 4 random hex digits)."""
    moment = datetime.fromtimestamp(started if started is not None else time.time(), UTC)
    return f"{moment:%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


def scenario_dict(run: ScenarioRun) -> dict[str, Any]:
    """One scenario of the report (its result as JSON, with where it is written)."""
    data: dict[str, Any] = run.result.model_dump(mode="json", fallback=repr)
    if data.get("usage") is None:
        data.pop("usage", None)
    data.update(
        id=run.identity,
        file=run.path,
        line=run.line,
        step_lines=run.step_lines,
        tags=run.tags,
        output=run.output,
        ending=run.ending.value,
        rerun=run.rerun,
    )
    for s, step in enumerate(data["steps"]):
        for i, result in enumerate(step["results"]):
            placed = run.check_at(s, i)
            if placed is not None:
                result.update(check=placed[0], line=placed[1])
    if run.repeats is not None:
        data["repeats"] = run.repeats
    return data


def build_payload(report: RunReport) -> dict[str, Any]:
    """The JSON run report of `report` (the module docstring shows its shape); built once
    a report (kept on it: the JSON report and the history's record are the same dict)."""
    if report.payload is not None:
        return report.payload
    report.payload = payload = _build(report)
    return payload


def _build(report: RunReport) -> dict[str, Any]:
    from ..core.result import TestCaseStatus

    counts = {status.value: report.count(status) for status in TestCaseStatus}
    document: dict[str, Any] = {
        "format": FORMAT,
        "run": run_info(report, counts),
        "status": report.status.value,
        "summary": counts,
        "interrupted": report.interrupted,
        "duration_s": round(report.duration_s, 3),
    }
    if spent := report.usage:
        document["usage"] = spent.model_dump()
    if report.shard is not None:
        index, count = report.shard
        document["shard"] = {"index": index, "count": count, "selected": report.selected}
    document["scenarios"] = [scenario_dict(run) for run in report.runs]
    return document


def run_info(report: RunReport, counts: Mapping[str, int]) -> dict[str, Any]:
    settings: Settings | None = report.settings
    spent = report.usage
    total = sum(counts.values())
    judged = total - counts.get("skip", 0)
    chosen = {name: getattr(settings, name) for name in RESULT_SETTINGS if hasattr(settings, name)}
    root = report.root
    return {
        "id": report.run_id,
        "started": kept_time(report.started),
        "duration_s": round(report.duration_s, 3),
        "source": report.source,
        "git": git_state(str(root) if root is not None else os.getcwd()),
        "target": report.target or (settings.target if settings is not None else None),
        "models": {
            "judge": settings.model if settings is not None else None,
            "embedding": settings.embedding_model if settings is not None else None,
        },
        "settings": chosen,
        "counts": {**counts, "total": total},
        "pass_rate": round(counts.get("pass", 0) / judged, 4) if judged else None,
        "cost_usd": cost_of(spent),
        "repeat": report.repeat,
        "min_pass_rate": report.min_pass_rate,
        "flaky": sum(1 for r in report.runs if r.repeats and r.repeats.get("flaky")),
    }


# git runs nothing the workspace configures: no fsmonitor hook, no hooks, no pager, no
# external diff or text conversion, no lock taken on the index (it is not written), and
# every clean/smudge filter of its config emptied (a filter is a command: git would run
# it to compare a file whose stat changed). Reading the config runs nothing.
_GIT = (
    "git",
    "--no-pager",
    "--no-optional-locks",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.untrackedCache=false",
    "-c",
    "diff.external=",
)
_GIT_ENV_DROPPED = ("GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "GIT_ASKPASS", "SSH_ASKPASS")


def _git(folder: str, *args: str, timeout: float = 5) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV_DROPPED}
    env.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0")
    return subprocess.run(
        [*_GIT, *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=env,
    )


def _no_filters(folder: str) -> list[str]:
    """`-c` options emptying every filter driver the repository's config names."""
    found = _git(folder, "config", "--null", "--name-only", "--get-regexp", r"^filter\.")
    names = {key.rsplit(".", 1)[0] for key in found.stdout.split("\0") if key.startswith("filter.")}
    options: list[str] = []
    for name in sorted(names):
        for field in ("clean", "smudge", "process"):
            options += ["-c", f"{name}.{field}="]
        options += ["-c", f"{name}.required=false"]
    return options


@cache
def git_state(folder: str) -> dict[str, Any] | None:
    """The commit checked out at `folder` and whether the work tree has changes; None
    outside a repository or without git (asked once a process). git is called with the
    workspace's executable configuration off (_GIT, _no_filters)."""
    try:
        head = _git(folder, "rev-parse", "HEAD")
        if head.returncode != 0:
            return None
        status = _git(
            folder,
            *_no_filters(folder),
            "status",
            "--porcelain",
            "--untracked-files=no",
            "--ignore-submodules",
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return {"commit": head.stdout.strip(), "dirty": bool(status.stdout.strip())}


def check_format(report: Any, where: str) -> dict[str, Any]:
    """`report` if it is a run report of this format; else ReportFormatError."""
    if not isinstance(report, dict) or not isinstance(report.get("scenarios"), list):
        raise ReportFormatError(f"{where}: not a checkspec JSON run report (no 'scenarios' list)")
    found = report.get("format")
    if found != FORMAT:
        if isinstance(found, str) and found.startswith(FORMAT_PREFIX):
            raise ReportFormatError(
                f"{where}: a run report of format {found!r}; this checkspec reads {FORMAT!r}"
            )
        raise ReportFormatError(
            f"{where}: no format {FORMAT!r} (format: {found!r}); write it again with "
            "`checkspec run --format json` of this version"
        )
    if not isinstance(report.get("run"), dict):
        raise ReportFormatError(f"{where}: no 'run' object")
    return report


def load_report_file(path: str | Path) -> dict[str, Any]:
    """A JSON run report read from `path`; ReportFormatError when it is not one of this
    format version (or not readable, or not JSON)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        from ..core.near_paths import nearest_hint

        raise ReportFormatError(f"{path}: no such file{nearest_hint(path)}") from None
    except OSError as exc:
        raise ReportFormatError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    from ..core.json_reports import ReportTooDeep, load_json_report

    try:
        report = load_json_report(text, path)
    except ReportTooDeep as exc:
        raise ReportFormatError(str(exc)) from None
    except ValueError as exc:
        raise ReportFormatError(f"{path}: not JSON ({exc})") from None
    return check_format(report, str(path))


def dumps(payload: Mapping[str, Any]) -> str:
    """The report as text: indented, with one scenario a line (json's indented output has
    no C encoder and took seconds for a 10,000-scenario run; a line per scenario still
    diffs and greps scenario by scenario)."""
    head = {k: v for k, v in payload.items() if k != "scenarios"}
    head["scenarios"] = _PLACE
    text = json.dumps(head, indent=2, ensure_ascii=False)
    rows = payload.get("scenarios") or []
    lines = ",\n    ".join(json.dumps(row, ensure_ascii=False) for row in rows)
    return text.replace(json.dumps(_PLACE), f"[\n    {lines}\n  ]" if rows else "[]", 1)


_PLACE = "\u0000scenarios"
