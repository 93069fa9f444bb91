"""A tiny "agent" for the WithSpy tests: `answer` calls the module's `fetch_item`.

`fetch_item` is looked up in this module's globals at call time, so patching
`tests.support.spy_target.fetch_item` (what WithSpy does) replaces the call `answer` makes.
"""

from __future__ import annotations

import re
from typing import Any


def fetch_item(item_id: str) -> dict[str, Any]:
    return {"id": item_id, "name": f"item {item_id}"}


def answer(inputs: str) -> str:
    match = re.search(r"\d+", inputs)
    item_id = match.group(0) if match else "?"
    fetch_item(item_id)
    return f"Looked up item {item_id}."
