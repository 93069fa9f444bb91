"""The titles of the knowledge base's pages, for links that show their target's title.

A MyST link without text (`[](../guide/setup.md)`) and a `{doc}` role without one
(`{doc}`../guide/setup``) are shown by Sphinx as the linked page's title ("Setting
up"). A reader of the chunks should see that title too, not a path: when the target is
a page of the knowledge base, its title is read here (its front matter's `title:`, else
its first heading); otherwise the caller shows the path, as Sphinx shows a target it
cannot resolve.

Safety: only files inside the knowledge base's folder are read (a target resolving
outside it, through `..` or a symbolic link, gives None), and only their first
TITLE_READ_BYTES.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

TITLE_READ_BYTES = 16 * 1024  # a page's title is in its first lines
_SUFFIXES = ("", ".md", ".rst", ".markdown", ".mdx")
_FRONT_TITLE = re.compile(r"^title:\s*['\"]?(.+?)['\"]?\s*$", re.MULTILINE)
_MARKDOWN_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
_RST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+.:_])\1{2,}\s*$")
_ATTRIBUTES = re.compile(r"\s*\{[^{}]*\}\s*$")  # `# Title { #anchor }`


class PageTitles:
    """The title of a page linked from `page`, a file of the knowledge base at `root`."""

    def __init__(self, page: Path, root: Path) -> None:
        self._folder = page.parent
        self._root = root.resolve()
        self._seen: dict[Path, str | None] = {}

    def title(self, target: str) -> str | None:
        target = target.split("#", 1)[0].strip()
        if not target or "://" in target or target.startswith("mailto:"):
            return None
        base = self._root if target.startswith("/") else self._folder
        for suffix in _SUFFIXES:
            candidate = (base / (target.lstrip("/") + suffix)).resolve()
            if candidate.is_relative_to(self._root) and candidate.is_file():
                if candidate not in self._seen:
                    self._seen[candidate] = _read_title(candidate)
                return self._seen[candidate]
        return None


def _read_title(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            head = handle.read(TITLE_READ_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    if head.startswith("---"):
        end = head.find("\n---", 3)
        if end > 0:
            found = _FRONT_TITLE.search(head[3:end])
            if found:
                return found.group(1)
            head = head[end + 4 :]
    if path.suffix == ".rst":
        lines = head.splitlines()
        for above, line in itertools.pairwise(lines):
            if above.strip() and not _RST_UNDERLINE.match(above) and _RST_UNDERLINE.match(line):
                return above.strip()
        return None
    found = _MARKDOWN_HEADING.search(head)
    return _ATTRIBUTES.sub("", found.group(1)) if found else None
