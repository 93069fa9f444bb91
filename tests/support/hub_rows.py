"""Rows of a Hub-format JSON Lines dataset (messages in, a response out, one check, a
tag), for the tests of datasets at Hub scale."""

from __future__ import annotations

import json


def row(n: int) -> str:
    return json.dumps(
        {
            "name": f"row {n}",
            "interactions": [
                {
                    "input": {"messages": [{"role": "user", "content": f"What is {n} plus one?"}]},
                    "output": {"response": {"role": "assistant", "content": f"It is {n + 1}."}},
                    "checks": [{"identifier": "string_matching", "params": {"keyword": "It"}}],
                }
            ],
            "tags": ["hub"],
        }
    )
