"""Deterministic benchmark workload: N serialized scenarios both engines accept.

Each scenario has one step with one recorded interaction (a dict output) and six
deterministic checks: string_matching, regex_matching, equals, greater_than, and an
all_of of [json_valid, not string_matching]. Field names (`target_key`, `keyword`,
`pattern`, `expected_value`, `check`, `checks`) are the ones giskard-checks 1.0.6
uses, and interactions carry an explicit `kind: interact`, which it requires.

Some scenarios fail on purpose, so the pass count cross-checks the two engines:
every 7th has a wrong `status` (equals fails) and every 11th has a payload that is
not JSON (json_valid fails, so the all_of fails).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

# Mixed-script answers so Unicode normalization does real work (NFKC folds "ﬁ", "²").
_CITIES = ("Paris", "Zürich", "Kyōto", "São Paulo", "Reykjavík", "Ōsaka", "Kraków")
_FILLERS = ("ﬁnal answer", "area 12 km²", "see  the   docs", "plain text", "café au lait")
FIELD = "trace.last.outputs"


def _fails_equals(index: int) -> bool:
    return index % 7 == 0


def _fails_json(index: int) -> bool:
    return index % 11 == 0


def scenario_passes(index: int) -> bool:
    """Whether scenario `index` is meant to pass."""
    return not (_fails_equals(index) or _fails_json(index))


def expected_pass_count(count: int) -> int:
    """How many of the first `count` scenarios pass."""
    return sum(scenario_passes(i) for i in range(count))


def make_scenario(index: int) -> dict[str, Any]:
    """The serialized scenario number `index` (same index, same dict)."""
    city = _CITIES[index % len(_CITIES)]
    filler = _FILLERS[index % len(_FILLERS)]
    payload: str = json.dumps({"id": index, "city": city, "tags": ["a", "b"], "ok": True})
    if _fails_json(index):
        payload = payload[:-1]  # truncated: no longer JSON
    outputs = {
        "answer": f"Case {index}: the city is {city}, {filler}.",
        "status": "error" if _fails_equals(index) else "ok",
        "score": 0.5 + (index % 50) / 100,
        "payload": payload,
    }
    checks: list[dict[str, Any]] = [
        {"kind": "string_matching", "target_key": f"{FIELD}.answer", "keyword": city},
        {"kind": "regex_matching", "target_key": f"{FIELD}.answer", "pattern": r"^Case \d+: "},
        {"kind": "equals", "target_key": f"{FIELD}.status", "expected_value": "ok"},
        {"kind": "greater_than", "target_key": f"{FIELD}.score", "expected_value": 0.25},
        {
            "kind": "all_of",
            "checks": [
                {"kind": "json_valid", "target_key": f"{FIELD}.payload"},
                {
                    "kind": "not",
                    "check": {
                        "kind": "string_matching",
                        "target_key": f"{FIELD}.answer",
                        "keyword": "forbidden",
                    },
                },
            ],
        },
    ]
    return {
        "name": f"scenario-{index:05d}",
        "steps": [
            {
                "interacts": [
                    {"kind": "interact", "inputs": f"Where is case {index}?", "outputs": outputs}
                ],
                "checks": checks,
            }
        ],
    }


def make_workload(count: int) -> list[dict[str, Any]]:
    """The first `count` scenarios."""
    return [make_scenario(i) for i in range(count)]


def write_json(path: Path, count: int) -> Path:
    """The workload as a JSON list (what the timing workers load)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(make_workload(count), ensure_ascii=False), encoding="utf-8")
    return path


def write_suite_yaml(path: Path, count: int, name: str = "bench") -> Path:
    """The workload as a suite file for `checkspec run` (`name:` and `scenarios:`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    text = yaml.dump(
        {"name": name, "scenarios": make_workload(count)},
        Dumper=dumper,
        sort_keys=False,
        allow_unicode=True,
    )
    path.write_text(text, encoding="utf-8")
    return path
