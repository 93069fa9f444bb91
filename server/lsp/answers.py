"""The table `early_initialize` answers from: what this server answers to `initialize`.

`python -m checkspec.server.lsp.answers` (or `make schema`) writes
`server/initialize_answers.json`; tests/server/test_early_initialize.py fails when it differs
from what the live server computes, so registering a feature means regenerating it.
"""

from __future__ import annotations

import json
import sys
from itertools import product
from typing import Any

from lsprotocol import types

from ..early_initialize import CLIENT_FLAGS, CLIENT_OBJECTS, TABLE, UTF16, UTF32
from .server import create_server


def _client(key: tuple[str, ...]) -> dict[str, Any]:
    """Client capabilities saying exactly what a table key says."""
    capabilities: dict[str, Any] = {"general": {"positionEncodings": [key[0]]}}
    for path, flag in zip((*CLIENT_FLAGS, *CLIENT_OBJECTS), key[1:], strict=True):
        if flag != "absent":
            *parents, name = path.split(".")
            node = capabilities
            for parent in parents:
                node = node.setdefault(parent, {})
            node[name] = {} if flag == "present" else flag == "true"
    return capabilities


# Every choice pygls's answer depends on (early_initialize.answer_key).
KEYS = list(
    product(
        (UTF16, UTF32),
        *[("absent", "false", "true")] * len(CLIENT_FLAGS),
        *[("absent", "present")] * len(CLIENT_OBJECTS),
    )
)


def computed_answer(capabilities: dict[str, Any]) -> dict[str, Any]:
    """The `initialize` result a fresh server sends a client with these capabilities."""
    server = create_server()
    protocol = server.protocol
    params = protocol._converter.structure(  # noqa: SLF001 - pygls's own converter
        {"processId": None, "rootUri": None, "capabilities": capabilities},
        types.InitializeParams,
    )
    steps = protocol.lsp_initialize(params)
    try:
        while True:  # pygls's initialize is a generator of handler calls: run it by hand
            handler, args, _ = next(steps)
            handler(*args)
    except StopIteration as done:
        result = done.value
    answer: dict[str, Any] = protocol.as_json(result)
    return answer


def table() -> dict[str, Any]:
    """Each key's answer, the distinct answers stored once."""
    answers: list[dict[str, Any]] = []
    keys: dict[str, int] = {}
    server_info = set()
    for key in KEYS:
        answer = computed_answer(_client(key))
        server_info.add(json.dumps(answer["serverInfo"], sort_keys=True))
        if answer["capabilities"] not in answers:
            answers.append(answer["capabilities"])
        keys[",".join(key)] = answers.index(answer["capabilities"])
    if len(server_info) != 1:
        raise RuntimeError(f"the server names itself differently: {server_info}")
    return {
        "generated_by": "python -m checkspec.server.lsp.answers",
        "serverInfo": json.loads(server_info.pop()),
        "keys": keys,
        "answers": answers,
    }


def main() -> None:
    TABLE.write_text(json.dumps(table(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {TABLE}", file=sys.stderr)


if __name__ == "__main__":
    main()
