"""The one edit between two texts: their common prefix and suffix kept, the middle replaced.

A client that sends the whole text on every change (full sync) gives the server no range;
diffing the new text against the previous one gives it back (an edit in one place is
found exactly), so the change goes through the same incremental path as a range change.
Offsets are code points (Python string indices); a `\\r\\n` is never split, so the edit's
ends are positions an LSP client could have sent (LSP counts `\\r\\n` as one line break).
"""

from __future__ import annotations

from dataclasses import dataclass

# Texts are compared a block at a time (a C-level comparison), then within the first
# block that differs: a few milliseconds for megabytes.
_BLOCK = 4096


@dataclass(frozen=True, slots=True)
class Replacement:
    """Replace old[start:end] with `text` to get the new text."""

    start: int
    end: int
    text: str

    def apply(self, old: str) -> str:
        return "".join((old[: self.start], self.text, old[self.end :]))


def common_prefix(a: str, b: str, limit: int | None = None) -> int:
    """The length of the longest common prefix of a and b (at most `limit`)."""
    n = min(len(a), len(b)) if limit is None else min(len(a), len(b), limit)
    i = 0
    while i + _BLOCK <= n and a.startswith(b[i : i + _BLOCK], i):
        i += _BLOCK
    while i < n and a[i] == b[i]:
        i += 1
    return i


def common_suffix(a: str, b: str, limit: int | None = None) -> int:
    """The length of the longest common suffix of a and b (at most `limit`)."""
    n = min(len(a), len(b)) if limit is None else min(len(a), len(b), limit)
    la, lb = len(a), len(b)
    k = 0
    while k + _BLOCK <= n and a.endswith(b[lb - k - _BLOCK : lb - k], 0, la - k):
        k += _BLOCK
    while k < n and a[la - k - 1] == b[lb - k - 1]:
        k += 1
    return k


def diff(old: str, new: str) -> Replacement | None:
    """The replacement that turns `old` into `new`, None when they are equal."""
    if old == new:
        return None
    prefix = common_prefix(old, new)
    # The suffix may not overlap the prefix in either text.
    suffix = common_suffix(old, new, min(len(old), len(new)) - prefix)
    # Never between a \r and its \n: step back over the \r (the kept prefix ends before it).
    if (
        prefix
        and old[prefix - 1] == "\r"
        and (_at(old, prefix) == "\n" or _at(new, prefix) == "\n")
    ):
        prefix -= 1
    # The same at the suffix's start: keep the \n with its \r in the replaced middle.
    if suffix:
        old_end, new_end = len(old) - suffix, len(new) - suffix
        if old[old_end] == "\n" and (
            _at(old, old_end - 1) == "\r" or _at(new, new_end - 1) == "\r"
        ):
            suffix -= 1
    return Replacement(prefix, len(old) - suffix, new[prefix : len(new) - suffix])


def _at(text: str, index: int) -> str:
    return text[index] if 0 <= index < len(text) else ""
