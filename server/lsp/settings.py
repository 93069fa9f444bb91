"""Editor settings under `checkspec` (initializationOptions, didChangeConfiguration).

They override checkspec.yaml through the engine's own resolution (`resolve_settings`), so
the editor, the CLI and CI agree on everything else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

SECTION = "checkspec"

# Editor key (VS Code style camelCase) -> settings field; snake_case works too.
_KEYS = {
    "model": "model",
    "embeddingModel": "embedding_model",
    "apiBase": "api_base",
    "target": "target",
    "concurrency": "concurrency",
    "maxFileSize": "max_file_size",
}


@dataclass(frozen=True)
class EditorSettings:
    model: str | None = None
    embedding_model: str | None = None
    api_base: str | None = None
    target: str | None = None
    concurrency: int | None = None
    max_file_size: int | None = None

    @classmethod
    def from_client(cls, raw: Any) -> EditorSettings:
        """`{"checkspec": {...}}` or the inner mapping; values of the wrong type are ignored."""
        if isinstance(raw, Mapping) and isinstance(raw.get(SECTION), Mapping):
            raw = raw[SECTION]
        if not isinstance(raw, Mapping):
            return cls()
        found: dict[str, Any] = {}
        for key, name in _KEYS.items():
            value = raw.get(key, raw.get(name))
            if name in ("concurrency", "max_file_size"):
                if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                    found[name] = value
            elif isinstance(value, str) and value.strip():  # editors send "" for unset
                found[name] = value.strip()
        return cls(**found)

    def overrides(self) -> dict[str, Any]:
        """The settings given, as `resolve_settings` keyword arguments."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        return {name: value for name, value in values.items() if value is not None}
