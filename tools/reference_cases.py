"""Fill in conformance cases from the original library (giskard-checks 1.0.6).

Runs under a Python that has the original library, never the project's venv (it needs
Python >= 3.12), e.g.:

    ~/.pyenv/versions/3.13.0/bin/python -m venv /tmp/g313
    /tmp/g313/bin/pip install 'giskard-checks[all]==1.0.6'
    /tmp/g313/bin/python tools/reference_cases.py tests/data/conformance/checks.jsonl

For every case whose `source` is the original library, it sets `expected` where it is
null, and `message` and `details` (the result's, compared by tests/engine/checks/test_conformance.py;
details as JSON, with the repr of what is not JSON) from what the library gives; it prints the cases where the library now disagrees with `expected`.
Cases from the seed documents (other `source`) are left as they are. `fn` checks name
functions of tests/support/conformance_fns.py as `tests.support.conformance_fns:<name>`; the library gets
the function itself.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
REFERENCE = "reference giskard-checks 1.0.6"


def with_callables(value: Any) -> Any:
    """A copy where each `fn` reference of an fn check is the function it names."""
    if isinstance(value, list):
        return [with_callables(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: with_callables(v) for k, v in value.items()}
    if out.get("kind") == "fn" and isinstance(out.get("fn"), str):
        module, _, name = out["fn"].partition(":")
        out["fn"] = getattr(importlib.import_module(module), name)
    return out


def plain(details: Any) -> Any:
    """Details as JSON data (what is not JSON, e.g. a NoMatch, by its repr)."""
    return json.loads(json.dumps(details, default=repr))


async def check_outcome(case: dict[str, Any]) -> tuple[str, str | None, Any]:
    from giskard.checks import Check, Trace

    try:
        check = Check.model_validate(with_callables(case["check"]))
    except Exception:
        return "invalid", None, None
    result = await check.run(Trace.model_validate(case["trace"]))
    return result.status.value, result.message, plain(result.details)


async def scenario_outcome(case: dict[str, Any]) -> dict[str, Any]:
    from giskard.checks import Scenario

    scenario = with_callables(case["scenario"])
    for step in scenario["steps"]:
        for interaction in step.get("interacts", []):
            interaction.setdefault("kind", "interact")  # optional in spec files only
    result = await Scenario.model_validate(scenario).run(return_exception=True)
    return {
        "status": result.status.value,
        "steps": [s.status.value for s in result.steps],
        "checks": [[r.status.value for r in s.results] for s in result.steps],
        "final_interactions": len(result.final_trace.interactions),
    }


async def fill(path: Path) -> list[str]:
    cases = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    disagreements = []
    for case in cases:
        if case.get("source") != REFERENCE:
            continue
        if "scenario" in case:
            outcome: Any = await scenario_outcome(case)
        else:
            status, message, details = await check_outcome(case)
            outcome = status
            for field, value in (("message", message), ("details", details)):
                if value is not None and status != "invalid":
                    case[field] = value
                else:
                    case.pop(field, None)
        if case.get("expected") is None:
            case["expected"] = outcome
        elif case["expected"] != outcome:
            disagreements.append(f"{case['id']}: expected {case['expected']}, library {outcome}")
    text = "".join(json.dumps(case, ensure_ascii=False) + "\n" for case in cases)
    path.write_text(text, encoding="utf-8")
    return disagreements


def main() -> int:
    sys.path.insert(0, str(REPO))  # tests.support.conformance_fns
    code = 0
    for name in sys.argv[1:]:
        for line in asyncio.run(fill(Path(name))):
            print(f"{name}: {line}")
            code = 1
    return code


if __name__ == "__main__":
    sys.exit(main())
