"""Editor settings under `checkspec` (initializationOptions, didChangeConfiguration).

They override checkspec.yaml through the engine's own resolution (`resolve_settings`), so
the editor, the CLI and CI agree on everything else. Which keys exist and their types come
from the engine's `Settings` (`editor_overrides`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from checkspec.engine.settings import editor_overrides

SECTION = "checkspec"


@dataclass(frozen=True)
class EditorSettings:
    values: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_client(cls, raw: Any) -> EditorSettings:
        """`{"checkspec": {...}}` or the inner mapping; values of the wrong type are ignored."""
        if isinstance(raw, Mapping) and isinstance(raw.get(SECTION), Mapping):
            raw = raw[SECTION]
        if not isinstance(raw, Mapping):
            return cls()
        return cls(editor_overrides(raw))

    def overrides(self) -> dict[str, Any]:
        """The settings given, as `resolve_settings` keyword arguments."""
        return dict(self.values)
