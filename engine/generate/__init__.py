"""Generating scenarios: from a persona or preset, from a knowledge base, like examples.

`checkspec generate` (engine/cli/generate.py), the language server's checkspec.generate
command and the Python API (api.py) share service.py; the CLI and the editor give one
request value (request.py `GenerationRequest`), turned into the service's by one
function. Every model call goes through engine/llm (structured output, retries, limits,
the verdict cache). The API's names load
on first use, so the CLI's --help imports only constants.py.
"""

from typing import Any

__all__ = [
    "agenerate_from_documents",
    "agenerate_from_persona",
    "alist_topics",
    "generate_from_documents",
    "generate_from_persona",
    "list_topics",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
