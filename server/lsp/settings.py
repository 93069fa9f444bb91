"""Editor settings under `checkspec` (initializationOptions, didChangeConfiguration).

They override checkspec.yaml through the engine's own resolution (`resolve(..., editor=...)`), so
the editor, the CLI and CI agree on everything else. Which keys exist and their types come
from the engine's `Settings` (`editor_overrides`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any

SECTION = "checkspec"


class EditorSettings:
    """The editor's settings, read when first used: `initialize` answers without importing
    the engine's settings (and the judges' configuration they bring)."""

    def __init__(self, raw: Mapping[str, Any] | None = None) -> None:
        self._raw = raw

    @classmethod
    def from_client(cls, raw: Any) -> EditorSettings:
        """`{"checkspec": {...}}` or the inner mapping; values of the wrong type are ignored."""
        if isinstance(raw, Mapping) and isinstance(raw.get(SECTION), Mapping):
            raw = raw[SECTION]
        return cls(raw if isinstance(raw, Mapping) else None)

    @cached_property
    def values(self) -> Mapping[str, Any]:
        if self._raw is None:
            return {}
        # Deferred: the engine's settings load when first read (start-up time).
        from checkspec.engine.settings import editor_overrides

        return editor_overrides(self._raw)

    # Editor-only settings (issue 28 item 2) ---------------------------------------------
    @cached_property
    def run_on_save(self) -> str:
        """`checkspec.runOnSave`: `off`, `scenario` or `file` (anything else is the default)."""
        from checkspec.engine.catalog import RUN_ON_SAVE

        return RUN_ON_SAVE.read(self._raw or {})

    # -------------------------------------------------------------------------------------

    def overrides(self) -> dict[str, Any]:
        """The settings given, as `resolve`'s `editor` mapping."""
        return dict(self.values)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, EditorSettings)
            and self.values == other.values
            and self.run_on_save == other.run_on_save
        )

    __hash__ = None  # type: ignore[assignment]
