"""Two runs compared: what newly fails, what was fixed, what changed (`checkspec compare`).

`compare(base, head) -> Comparison` takes two JSON run reports (payload.py: a stored run
or a report file, the same dict) and matches their scenarios by identity (`id`,
`<file>::<name>`):

- `newly_failing`: failing (fail or error) in head, not in base; an added scenario that
  fails is counted here too (it is something that newly fails)
- `fixed`: failing in base, passing in head
- `still_failing`: failing in both
- `added` / `removed`: only in head / only in base
- `changed_outputs`: an interaction with the same inputs in both whose output differs
- `by_check` / `by_tag`: pass rates per check kind and per tag, in base and head
- `note`: when the runs are of different suites, "compares the N scenarios in common"

`Comparison.to_json()` is its JSON form; `Comparison.exit_code` is 1 when something newly
fails, else 5 when nothing was compared (no scenario in both runs: `nothing`), else 0. The renderers (text, markdown) are in render.py's `COMPARE_FORMATS`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

FAILING = frozenset({"fail", "error"})


@dataclass(frozen=True)
class ScenarioChange:
    """A scenario in either or both runs, with its status in each (None: not in it)."""

    id: str
    name: str
    file: str
    line: int | None
    base_status: str | None
    head_status: str | None
    reason: str | None = None  # head's first failure message (base's when not in head)
    base_rate: float | None = None  # the pass rate of its repeats, when repeated
    head_rate: float | None = None


@dataclass(frozen=True)
class OutputChange:
    """An interaction given the same inputs in both runs whose output differs."""

    id: str
    name: str
    interaction: int  # 0-based, in the scenario's final trace
    inputs: Any
    base_output: Any
    head_output: Any


@dataclass(frozen=True)
class Rate:
    """Pass counts of a check kind or a tag in each run (skipped left out)."""

    name: str
    base_passed: int
    base_total: int
    head_passed: int
    head_total: int

    @property
    def base_rate(self) -> float | None:
        return self.base_passed / self.base_total if self.base_total else None

    @property
    def head_rate(self) -> float | None:
        return self.head_passed / self.head_total if self.head_total else None

    @property
    def delta(self) -> float | None:
        if self.base_rate is None or self.head_rate is None:
            return None
        return self.head_rate - self.base_rate

    def to_json(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "base_rate": _round(self.base_rate),
            "head_rate": _round(self.head_rate),
            "delta": _round(self.delta),
        }


@dataclass
class Comparison:
    base: dict[str, Any]  # the "run" object of each report
    head: dict[str, Any]
    common: int = 0
    newly_failing: list[ScenarioChange] = field(default_factory=list)
    fixed: list[ScenarioChange] = field(default_factory=list)
    still_failing: list[ScenarioChange] = field(default_factory=list)
    added: list[ScenarioChange] = field(default_factory=list)
    removed: list[ScenarioChange] = field(default_factory=list)
    changed_outputs: list[OutputChange] = field(default_factory=list)
    by_check: list[Rate] = field(default_factory=list)
    by_tag: list[Rate] = field(default_factory=list)
    note: str | None = None

    @property
    def nothing(self) -> str | None:
        """Why nothing was compared (no scenario is in both runs), else None: such a
        comparison is no green (exit 5, as a run that checked nothing)."""
        if self.common:
            return None
        if not self.added and not self.removed:
            return "nothing compared: both runs are empty"
        return (
            f"nothing compared: no scenario is in both runs ({len(self.removed)} only in "
            f"base, {len(self.added)} only in head)"
        )

    @property
    def exit_code(self) -> int:
        """1 when something newly fails, else 5 when nothing was compared, else 0."""
        if self.newly_failing:
            return 1
        return 5 if self.nothing else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "checkspec-compare/1",
            "base": self.base,
            "head": self.head,
            "common": self.common,
            "note": self.note,
            "nothing_compared": self.nothing,
            "newly_failing": [asdict(c) for c in self.newly_failing],
            "fixed": [asdict(c) for c in self.fixed],
            "still_failing": [asdict(c) for c in self.still_failing],
            "added": [asdict(c) for c in self.added],
            "removed": [asdict(c) for c in self.removed],
            "changed_outputs": [asdict(c) for c in self.changed_outputs],
            "by_check": [r.to_json() for r in self.by_check],
            "by_tag": [r.to_json() for r in self.by_tag],
            "exit_code": self.exit_code,
        }


def compare(base: Mapping[str, Any], head: Mapping[str, Any]) -> Comparison:
    """Compare two JSON run reports (payload.py), scenario by scenario."""
    before = _by_id(base.get("scenarios") or [])
    after = _by_id(head.get("scenarios") or [])
    result = Comparison(base=dict(base.get("run") or {}), head=dict(head.get("run") or {}))
    common = [key for key in after if key in before]
    result.common = len(common)
    for key in common:
        old, new = before[key], after[key]
        change = _change(key, old, new)
        was, now = old.get("status"), new.get("status")
        if now in FAILING and was not in FAILING:
            result.newly_failing.append(change)
        elif now in FAILING:
            result.still_failing.append(change)
        elif was in FAILING and now == "pass":
            result.fixed.append(change)
        result.changed_outputs.extend(_changed_outputs(key, old, new))
    for key, new in after.items():
        if key not in before:
            change = _change(key, None, new)
            result.added.append(change)
            if new.get("status") in FAILING:
                result.newly_failing.append(change)
    result.removed = [_change(key, old, None) for key, old in before.items() if key not in after]
    result.by_check = _rates(_check_counts(before.values()), _check_counts(after.values()))
    result.by_tag = _rates(_tag_counts(before.values()), _tag_counts(after.values()))
    if result.added or result.removed:
        result.note = (
            f"the runs are of different suites: compares the {len(common)} "
            f"{'scenario' if len(common) == 1 else 'scenarios'} in common "
            f"({len(result.removed)} only in base, {len(result.added)} only in head)"
        )
    return result


def _by_id(scenarios: Iterable[Any]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for n, scenario in enumerate(scenarios):
        if isinstance(scenario, dict):
            key = str(scenario.get("id") or f"{scenario.get('file', '')}::#{n}")
            found.setdefault(key, scenario)
    return found


def _change(key: str, old: dict[str, Any] | None, new: dict[str, Any] | None) -> ScenarioChange:
    shown = new if new is not None else old
    assert shown is not None
    return ScenarioChange(
        id=key,
        name=str(shown.get("scenario_name") or key),
        file=str(shown.get("file") or ""),
        line=shown.get("line"),
        base_status=None if old is None else old.get("status"),
        head_status=None if new is None else new.get("status"),
        reason=_reason(shown),
        base_rate=_repeat_rate(old),
        head_rate=_repeat_rate(new),
    )


def _repeat_rate(scenario: dict[str, Any] | None) -> float | None:
    repeats = (scenario or {}).get("repeats")
    return repeats.get("rate") if isinstance(repeats, dict) else None


def _reason(scenario: Mapping[str, Any]) -> str | None:
    """The first failed or errored check's message (or the step's error)."""
    for step in scenario.get("steps") or []:
        error = step.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        for check in step.get("results") or []:
            if check.get("status") in FAILING:
                kind = check.get("check")
                message = check.get("message") or check.get("status")
                return f"{kind}: {message}" if kind else str(message)
    return None


def _interactions(scenario: Mapping[str, Any]) -> list[dict[str, Any]]:
    trace = scenario.get("final_trace")
    if not isinstance(trace, dict):
        return []
    return [i for i in trace.get("interactions") or [] if isinstance(i, dict)]


def _changed_outputs(key: str, old: dict[str, Any], new: dict[str, Any]) -> list[OutputChange]:
    changes = []
    for n, (was, now) in enumerate(zip(_interactions(old), _interactions(new), strict=False)):
        if _same(was.get("inputs"), now.get("inputs")) and not _same(
            was.get("outputs"), now.get("outputs")
        ):
            changes.append(
                OutputChange(
                    id=key,
                    name=str(new.get("scenario_name") or key),
                    interaction=n,
                    inputs=now.get("inputs"),
                    base_output=was.get("outputs"),
                    head_output=now.get("outputs"),
                )
            )
    return changes


def _same(a: Any, b: Any) -> bool:
    return a == b or json.dumps(a, sort_keys=True, default=repr) == json.dumps(
        b, sort_keys=True, default=repr
    )


Counts = dict[str, list[int]]  # name -> [passed, total]


def _check_counts(scenarios: Iterable[dict[str, Any]]) -> Counts:
    counts: Counts = {}
    for scenario in scenarios:
        for step in scenario.get("steps") or []:
            names = step.get("check_names") or []
            for i, check in enumerate(step.get("results") or []):
                status = check.get("status")
                if status == "skip":
                    continue
                kind = str(check.get("check") or (names[i] if i < len(names) else "check"))
                tally = counts.setdefault(kind, [0, 0])
                tally[0] += status == "pass"
                tally[1] += 1
    return counts


def _tag_counts(scenarios: Iterable[dict[str, Any]]) -> Counts:
    counts: Counts = {}
    for scenario in scenarios:
        status = scenario.get("status")
        if status == "skip":
            continue
        for tag in scenario.get("tags") or []:
            tally = counts.setdefault(str(tag), [0, 0])
            tally[0] += status == "pass"
            tally[1] += 1
    return counts


def _rates(before: Counts, after: Counts) -> list[Rate]:
    names = sorted(set(before) | set(after))
    rates = []
    for name in names:
        was, now = before.get(name, [0, 0]), after.get(name, [0, 0])
        rates.append(Rate(name, was[0], was[1], now[0], now[1]))
    return rates


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
