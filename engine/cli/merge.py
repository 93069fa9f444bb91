"""`checkspec merge`: the JSON reports of shards -> the report one full run would give.

Each shard's report says which shard it is (`shard: {index, count, selected}`) and the
identity of each scenario, so the merge can refuse what would not add up: reports of
different shard counts, a shard given twice or missing, a scenario in two reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..core.result import ScenarioResult
from ..executor.jobs import Ending
from ..runs.report import RunReport, ScenarioRun


class MergeError(ValueError):
    """The reports cannot be merged; the message names them."""


def merge_reports(paths: Sequence[Path]) -> RunReport:
    reports = [(path, _read(path)) for path in paths]
    shards = [(path, report.get("shard")) for path, report in reports]
    _check_shards(shards)
    seen: dict[str, Path] = {}
    runs: list[ScenarioRun] = []
    for path, report in reports:
        for number, data in enumerate(report["scenarios"]):
            run = _run_of(path, number, data)
            if run.identity in seen:
                raise MergeError(
                    f"scenario {run.identity!r} is in both {seen[run.identity]} and {path}"
                )
            seen[run.identity] = path
            runs.append(run)
    selected = next((s.get("selected") for _, s in shards if isinstance(s, dict)), None)
    if selected is not None and len(runs) != selected:
        raise MergeError(f"the shards hold {len(runs)} scenarios, their run selected {selected}")
    runs.sort(key=lambda run: (run.path, run.line))
    return RunReport(
        runs=runs,
        duration_s=max((float(r.get("duration_s") or 0) for _, r in reports), default=0.0),
        interrupted=any(r.get("interrupted") is True for _, r in reports),
    )


def _read(path: Path) -> dict[str, Any]:
    from ..core.json_reports import ReportTooDeep, load_json_report

    try:
        report = load_json_report(path.read_text(encoding="utf-8"), path)
    except FileNotFoundError:
        from ..core.near_paths import nearest_hint

        raise MergeError(f"{path}: no such file{nearest_hint(path)}") from None
    except OSError as exc:
        raise MergeError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    except ReportTooDeep as exc:
        raise MergeError(str(exc)) from None
    except ValueError as exc:
        raise MergeError(f"{path}: not JSON ({exc}); merge takes `--format json` reports") from None
    if not isinstance(report, dict) or not isinstance(report.get("scenarios"), list):
        raise MergeError(f"{path}: not a checkspec JSON report (no 'scenarios' list)")
    return report


def _check_shards(shards: list[tuple[Path, Any]]) -> None:
    given = [(path, s) for path, s in shards if isinstance(s, dict)]
    if not given:
        return
    if len(given) != len(shards):
        plain = ", ".join(str(p) for p, s in shards if not isinstance(s, dict))
        raise MergeError(f"{plain}: not a shard's report, unlike the others")
    counts = {s.get("count") for _, s in given}
    if len(counts) != 1:
        listed = ", ".join(f"{p} ({s.get('index')}/{s.get('count')})" for p, s in given)
        raise MergeError(f"the reports come from different shard counts: {listed}")
    (count,) = counts
    by_index: dict[Any, Path] = {}
    for path, shard in given:
        if shard.get("index") in by_index:
            raise MergeError(
                f"shard {shard.get('index')}/{count} is given twice: {by_index[shard['index']]} "
                f"and {path}"
            )
        by_index[shard.get("index")] = path
    if not isinstance(count, int) or count < 1:
        raise MergeError(f"invalid shard count {count!r}")
    missing = [f"{k}/{count}" for k in range(1, count + 1) if k not in by_index]
    if missing:
        raise MergeError(f"missing the report of shard {', '.join(missing)}")
    if len({s.get("selected") for _, s in given}) != 1:
        raise MergeError("the shards' reports come from runs that selected different scenarios")


def _run_of(path: Path, number: int, data: Any) -> ScenarioRun:
    where = f"{path}: scenario {number + 1}"
    if not isinstance(data, dict) or not isinstance(data.get("id"), str):
        raise MergeError(f"{where}: no 'id' (a report of checkspec run --format json)")
    try:
        result: ScenarioResult = ScenarioResult.model_validate(data)
    except ValueError as exc:
        raise MergeError(f"{where}: not a scenario result: {exc}") from None
    checks: dict[tuple[int, int], tuple[str, int]] = {}
    for s, step in enumerate(data.get("steps") or []):
        for i, check in enumerate(step.get("results") or []):
            if isinstance(check, dict) and "check" in check:
                checks[(s, i)] = (str(check["check"]), int(check.get("line") or 0))
    return ScenarioRun(
        path=str(data.get("file", "")),
        line=int(data.get("line") or 0),
        result=result,
        identity=data["id"],
        tags=[str(t) for t in data.get("tags") or []],
        checks=checks,
        step_lines=[int(n) for n in data.get("step_lines") or []],
        output=str(data.get("output") or ""),
        ending=Ending(data.get("ending", "finished")),
        rerun=str(data["rerun"]) if data.get("rerun") else None,
        repeats=data["repeats"] if isinstance(data.get("repeats"), dict) else None,
    )
