"""Unicode and whitespace normalization applied before matching and comparing."""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Literal

NormalizationForm = Literal["NFC", "NFD", "NFKC", "NFKD"]

_WHITESPACE = re.compile(r"\s+")
_SCALARS = frozenset({int, float, bool, complex, type(None)})


def normalize_string(value: str, form: NormalizationForm | None = None) -> str:
    """Apply the Unicode form, collapse runs of whitespace and trim."""
    if form is not None:
        value = unicodedata.normalize(form, value)
    # Every whitespace character but " " is non-printable, so a printable text without
    # "  " has nothing to collapse: skip the regex substitution (the common case).
    if value.isprintable() and "  " not in value:
        return value.strip()
    return _WHITESPACE.sub(" ", value).strip()


def normalize_data(data: Any, form: NormalizationForm | None = None) -> Any:
    """Normalize every string inside dicts, lists, tuples and sets; other values as-is."""
    if isinstance(data, str):
        return normalize_string(data, form)
    if type(data) in _SCALARS:  # numbers, booleans, None: returned as they are
        return data
    if isinstance(data, dict):
        normalized = data.copy()
        for key, value in data.items():
            normalized[key] = normalize_data(value, form)
        return normalized
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(normalize_data(v, form) for v in data))
    if isinstance(data, list | tuple | set):
        return type(data)(normalize_data(v, form) for v in data)
    return data
