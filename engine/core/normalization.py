"""Unicode and whitespace normalization applied before matching and comparing."""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Literal

NormalizationForm = Literal["NFC", "NFD", "NFKC", "NFKD"]

_WHITESPACE = re.compile(r"\s+")
_SCALARS = frozenset({int, float, bool, complex, type(None)})
_FORM_TYPES = (str, type(None))


# What normalize_string gave for short texts, per form. Checks normalize the same texts
# over and over: a scenario's answer once per text check reading it, a check's keyword or
# expected value on every run. A str is immutable, so the kept result is what normalizing
# again would give. At most CACHED_TEXTS texts of CACHED_LENGTH characters or fewer per
# form (emptied when full).
CACHED_TEXTS = 1024
CACHED_LENGTH = 1000
_normalized: dict[str | None, dict[str, str]] = {
    form: {} for form in ("NFC", "NFD", "NFKC", "NFKD", None)
}


def normalize_string(value: str, form: NormalizationForm | None = None) -> str:
    """Apply the Unicode form, collapse runs of whitespace and trim."""
    cache = _normalized.get(form) if type(value) is str and type(form) in _FORM_TYPES else None
    if cache is not None:
        found = cache.get(value)
        if found is not None:
            return found
    normalized = value if form is None else unicodedata.normalize(form, value)
    # Every whitespace character but " " is non-printable, so a printable text without
    # "  " has nothing to collapse: skip the regex substitution (the common case).
    if normalized.isprintable() and "  " not in normalized:
        normalized = normalized.strip()
    else:
        normalized = _WHITESPACE.sub(" ", normalized).strip()
    if cache is not None and len(value) <= CACHED_LENGTH:
        if len(cache) >= CACHED_TEXTS:
            cache.clear()
        cache[value] = normalized
    return normalized


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
