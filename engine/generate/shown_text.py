"""What a documentation page shows for some markup, shared by the Markdown (MyST) and
reStructuredText readers (markup.py, sphinx_rst.py): the text of a Sphinx role, the
words of a version note, and the notes of what a run read but did not understand.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Notes:
    """What one run read but could not render: unknown directives and includes not
    followed, by name, for one warning line at the end."""

    unknown: Counter[str] = field(default_factory=Counter)
    not_followed: list[str] = field(default_factory=list)

    def summary(self) -> str | None:
        parts = []
        if self.unknown:
            names = ", ".join(
                f"{name} x{count}" if count > 1 else name
                for name, count in sorted(self.unknown.items(), key=lambda i: (-i[1], i[0]))[:12]
            )
            total = sum(self.unknown.values())
            parts.append(f"{total} unknown reStructuredText directive(s) kept as text ({names})")
        if self.not_followed:
            shown = ", ".join(self.not_followed[:5])
            more = f" and {len(self.not_followed) - 5} more" if len(self.not_followed) > 5 else ""
            parts.append(
                f"{len(self.not_followed)} include(s) not read ({shown}{more}): only files "
                "inside the knowledge base are"
            )
        return "; ".join(parts) or None


_EXPLICIT_TITLE = re.compile(r"^(.+?)\s*(?<!\x00)<(.*?)>$", re.DOTALL)
VERSION_WORDS = {
    "versionadded": "Added in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "versionremoved": "Removed in version",
}


def cross_reference_text(text: str, role: str = "") -> str:
    """What Sphinx shows for a role's content (reStructuredText's :role:`text` and MyST's
    {role}`text`): `x <y>` -> x, `~a.b.c` -> c, `!name` -> name."""
    titled = _EXPLICIT_TITLE.match(text)
    if titled and titled.group(2):
        return " ".join(titled.group(1).split())
    text = text.strip()
    if role == "menuselection":
        return " > ".join(part.strip() for part in text.split("-->"))
    if role == "guilabel":
        return text.replace("&&", "\x00").replace("&", "").replace("\x00", "&")
    if role in ("file", "samp"):
        return text.replace("{", "").replace("}", "")
    shortened = text.startswith("~")
    text = text.lstrip("~!.")
    if role == "doc":  # a document: Sphinx shows its title; its name is the nearest
        text = text.rstrip("/").rsplit("/", 1)[-1]
    if shortened:
        text = text.rsplit(".", 1)[-1]
    return text
