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


def varied_row(n: int) -> str:
    """Row `n` of a dataset with what curation and the dry run tell apart: rows without a
    name (named from their input), drafts, more tags, escaped and raw non-ASCII text, a
    line the fast reader leaves to the general one (U+2028), a name used twice, and now
    and then a check that asks a model (conformity)."""
    value = json.loads(row(n))
    if n % 7 == 0:
        del value["name"]
    if n % 11 == 0:
        value["status"] = "draft"
    if n % 13 == 0:
        value["tags"] = ["hub", f"x{n % 3}"]
    if n % 23 == 0 and "name" in value:
        value["name"] = "twice"
    turn = value["interactions"][0]
    if n % 29 == 0:
        turn["checks"].append({"identifier": "conformity", "params": {"rule": "Stay polite."}})
    if n % 17 == 0:
        turn["input"]["messages"][0]["content"] = f"Un café, {n}?"
        return json.dumps(value)  # \u00e9 in the line: a query for café still finds it
    if n % 19 == 0:
        turn["output"]["response"]["content"] = f"Là\u2028{n}"
        return json.dumps(value, ensure_ascii=False)  # a raw U+2028: read by the tree
    return json.dumps(value, ensure_ascii=n % 5 != 0)
