r"""reStructuredText as Sphinx projects write it, read with docutils as a reader sees it.

docutils alone knows none of Sphinx's roles and directives: `:class:\`Client\`` would stay
in the text, and a `.. py:data::` entry, a `.. tabs::` block or a `.. versionadded::` note
would be dropped whole. Here, while one document is parsed (`sphinx_reading`):

- every role docutils does not know gives its text as Sphinx shows it (`:doc:\`x <y>\``
  -> `x`, `:meth:\`~a.b.c\`` -> `c`, `:meth:\`!c\`` -> `c`), custom roles included;
- domain directives (`py:function`, `py:data`, `confval`, `envvar`, autodoc...) keep
  their signature and body; admonitions, `versionadded`/`versionchanged`/`deprecated`,
  tabs (sphinx-tabs, sphinx-design), `only`, `glossary`... keep their text;
- `code-block` (any options) is code; `literalinclude` reads a file of the knowledge base
  (never outside it, at most `INCLUDE_MAX_BYTES`); `toctree`, `index`, `highlight`... give
  nothing, as on the page;
- any other directive keeps its argument and content, and its name is counted
  (`Notes.unknown`) so the run says what it did not know, once.

The registrations live in docutils' module tables only for the parse (under a lock), and
are put back after, as Sphinx's own `docutils_namespace` does. No file is read but a
`literalinclude` inside the knowledge base; `include` and `raw` stay off.
"""

from __future__ import annotations

import re
import textwrap
import threading
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docutils import nodes, utils  # type: ignore[import-untyped,unused-ignore]
from docutils.parsers.rst import (  # type: ignore[import-untyped,unused-ignore]
    Directive,
    directives,
    roles,
    states,
)

from .shown_text import VERSION_WORDS, Notes, cross_reference_text

INCLUDE_MAX_BYTES = 512 * 1024  # a larger literalinclude file is not read
_DIRECTIVE = re.compile(r"^[ \t]*\.\.[ \t]+([A-Za-z][\w:.+-]*)[ \t]*::", re.MULTILINE)
_LOCK = threading.Lock()


@dataclass
class _Context:
    path: Path | None
    root: Path | None
    notes: Notes


_current = threading.local()


def _context() -> _Context:
    found: _Context | None = getattr(_current, "context", None)
    return found or _Context(None, None, Notes())


# -- roles --------------------------------------------------------------------------------


def role_text(text: str, role: str = "") -> str:
    """What Sphinx shows for a cross-reference or a text role's content."""
    return cross_reference_text(utils.unescape(text), role)


def _interpreted(self: Any, rawsource: str, text: str, role: str, lineno: int) -> Any:
    """docutils' `Inliner.interpreted`, but a role it does not know gives its text."""
    role_fn, messages = roles.role(role, self.language, lineno, self.reporter)
    if role_fn:
        found, more = role_fn(role, rawsource, text, lineno, self)
        return found, messages + more
    name = role.rsplit(":", 1)[-1]
    return [nodes.literal(rawsource, _page_title(text, name) or role_text(text, name))], []


def _page_title(text: str, role: str) -> str | None:
    """A `:doc:` without a title shows the linked page's title when it is a page of the
    knowledge base (page_titles.py: read only from inside it), as Sphinx does."""
    context = _context()
    if role != "doc" or "<" in text or context.path is None:
        return None
    from .page_titles import PageTitles

    root = context.root or context.path.parent
    return PageTitles(context.path, root).title(utils.unescape(text).strip().lstrip("~!"))


def sphinx_inliner() -> Any:
    """docutils' inliner reading roles as Sphinx shows them. (Bound on an instance: a
    subclass would break docutils' pattern set-up, which reads the class's own vars.)"""
    inliner = states.Inliner()
    inliner.interpreted = types.MethodType(_interpreted, inliner)
    return inliner


# -- directives ----------------------------------------------------------------------------


class _AnyOptions(dict):
    """An option spec that takes any option (Sphinx extensions have many)."""

    def __missing__(self, key: str) -> Any:
        return directives.unchanged

    def __bool__(self) -> bool:
        return True


EXACT_LINE = "checkspec-exact-line"  # a node made here: its line is where its text is


def _paragraph(text: str, line: int, state: Any = None) -> nodes.paragraph:
    """A paragraph of `text`, its inline markup read when `state` is given."""
    if state is None:
        node = nodes.paragraph(text, text)
    else:
        inline, _ = state.inline_text(text, line)
        node = nodes.paragraph(text, "", *inline)
    node.line = line
    node[EXACT_LINE] = True
    return node


def _literal(code: str, line: int) -> nodes.literal_block:
    node = nodes.literal_block(code, code)
    node.line = line
    node[EXACT_LINE] = True
    return node


class _Kept(Directive):
    """A directive whose argument (a title) and content are the text a reader sees."""

    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = _AnyOptions()
    shown_options: tuple[str, ...] = ()
    inline: Any = True  # the label's inline markup is read (not a signature's)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.inline = self.state if type(self).inline else None

    def label(self) -> str | None:
        return self.arguments[0] if self.arguments else None

    def run(self) -> list[Any]:
        out: list[Any] = []
        label = self.label()
        if label:
            out.append(_paragraph(" ".join(label.split()), self.lineno, self.inline))
        for name in self.shown_options:
            value = self.options.get(name)
            if value:
                out.append(_paragraph(f"{name.title()}: {value}", self.lineno, self.state))
        if self.content:
            box = nodes.container()
            self.state.nested_parse(self.content, self.content_offset, box)
            out.append(box)
        return out


class _Unknown(_Kept):
    def run(self) -> list[Any]:
        _context().notes.unknown[self.name] += 1
        return super().run()


class _Signature(_Kept):
    """A described object (`py:function`, `confval`...): its signature(s) and body."""

    shown_options = ("type", "value", "default")
    inline = False

    def label(self) -> str | None:
        if not self.arguments:
            return None
        return "; ".join(line.strip().rstrip("\\") for line in self.arguments[0].splitlines())


class _Version(_Kept):
    """`versionadded:: 2.0 text`: "Added in version 2.0: text", then its body."""

    words = VERSION_WORDS

    def label(self) -> str | None:
        argument = " ".join((self.arguments[0] if self.arguments else "").split())
        version, _, rest = argument.partition(" ")
        words = self.words.get(self.name, self.name)
        return f"{words} {version}: {rest}" if rest else f"{words} {version}."


class _Dropped(Directive):
    """A directive that shows nothing on the page (toctree, index, highlight...)."""

    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = _AnyOptions()

    def run(self) -> list[Any]:
        return []


class _Code(Directive):
    """`code-block`, `sourcecode`, `code`, `code-tab`: the content, as code."""

    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = _AnyOptions()

    def run(self) -> list[Any]:
        if not self.content:
            return []
        code = textwrap.dedent("\n".join(self.content)).strip("\n")
        out: list[Any] = []
        caption = self.options.get("caption")
        if caption:
            out.append(_paragraph(" ".join(str(caption).split()), self.lineno))
        out.append(_literal(code, self.content_offset + 1))
        return out


class _LiteralInclude(Directive):
    """A file of the knowledge base shown as code (`lines`, `start-after`, `end-before`,
    `dedent` honoured); a file outside it, or missing, is not read and is counted."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = False
    option_spec = _AnyOptions()

    def run(self) -> list[Any]:
        context = _context()
        given = self.arguments[0].strip()
        text = _inside_file(given, context)
        if text is None:
            context.notes.not_followed.append(given)
            return []
        code = _selected(text, self.options)
        return [_literal(code, self.lineno)] if code.strip() else []


class _Include(_Dropped):
    """`include`: another file's text is not pulled in (counted, not silent)."""

    def run(self) -> list[Any]:
        _context().notes.not_followed.append(self.arguments[0] if self.arguments else "")
        return []


def _inside_file(given: str, context: _Context) -> str | None:
    """The text of a file named by a directive, if it lies inside the knowledge base."""
    if context.path is None or context.root is None or "\0" in given:
        return None
    root = context.root.resolve()
    base = root if given.startswith("/") else context.path.resolve().parent
    try:
        target = (base / given.lstrip("/")).resolve(strict=True)
        if not target.is_relative_to(root) or not target.is_file():
            return None
        if target.stat().st_size > INCLUDE_MAX_BYTES:
            return None
        return target.read_text(encoding="utf-8", errors="replace")
    except (OSError, RuntimeError, ValueError):
        return None


def _selected(text: str, options: dict[str, Any]) -> str:
    lines = text.splitlines()
    after = options.get("start-after")
    if after:
        at = next((i for i, line in enumerate(lines) if after in line), None)
        lines = lines[at + 1 :] if at is not None else lines
    before = options.get("end-before")
    if before:
        at = next((i for i, line in enumerate(lines) if before in line), None)
        lines = lines[:at] if at is not None else lines
    wanted = options.get("lines")
    if wanted:
        chosen: list[str] = []
        for part in str(wanted).split(","):
            first, dash, last = part.strip().partition("-")
            try:
                start = int(first) if first else 1
                stop = (int(last) if last else len(lines)) if dash else start
            except ValueError:
                continue
            chosen.extend(lines[max(0, start - 1) : stop])
        lines = chosen
    code = "\n".join(lines)
    return textwrap.dedent(code) if "dedent" in options else code


_SIGNATURE_NAMES = (  # noqa: SIM905 (a list of words reads better as words)
    "function method classmethod staticmethod decorator decoratormethod class exception "
    "attribute property data module currentmodule type var member macro struct union enum "
    "enumerator typedef namespace concept alias object"
).split()
_AUTODOC = (  # noqa: SIM905
    "automodule autoclass autoexception autofunction automethod autoattribute autodata "
    "autoproperty autodecorator autonewtypedata autosummary"
).split()
_DOMAINS = ("py", "js", "c", "cpp", "rst", "std", "http")


def _table() -> dict[str, type[Directive]]:
    table: dict[str, type[Directive]] = {}
    for name in _SIGNATURE_NAMES:
        table[name] = _Signature
        for domain in _DOMAINS:
            table[f"{domain}:{name}"] = _Signature
    for name in (
        "confval",
        "envvar",
        "option",
        "program",
        "describe",
        "cmdoption",
        "setting",
        "event",
        "role",
        "directive",
        "rst:directive",
        "rst:role",
        "rst:directive:option",
        "js:function",
        "http:get",
        "http:post",
        "http:put",
        "http:patch",
        "http:delete",
        *_AUTODOC,
    ):
        table[name] = _Signature
    for name in ("module", "py:module", "currentmodule", "py:currentmodule"):
        table[name] = _Dropped
    for name in _Version.words:
        table[name] = _Version
    for name in (
        "seealso",
        "todo",
        "tabs",
        "tab",
        "group-tab",
        "tab-set",
        "tab-item",
        "tab-set-code",
        "grid",
        "grid-item",
        "grid-item-card",
        "card",
        "card-carousel",
        "dropdown",
        "only",
        "ifconfig",
        "glossary",
        "hlist",
        "centered",
        "versionadded",
        "productionlist",
        "container",
        "admonition",
        "topic",
        "sidebar",
        "rst-class",
        "cssclass",
        "div",
        "margin",
        "jinja",
        "plot",
        "testsetup",
        "testcleanup",
    ):
        table.setdefault(name, _Kept)
    for name in (
        "code-block",
        "sourcecode",
        "code",
        "code-tab",
        "testcode",
        "testoutput",
        "doctest",
        "ipython",
        "prompt",
        "parsed-literal",
    ):
        table[name] = _Code
    for name in (
        "toctree",
        "index",
        "highlight",
        "sectionauthor",
        "moduleauthor",
        "codeauthor",
        "tabularcolumns",
        "meta",
        "contents",
        "sectnum",
        "target-notes",
        "default-domain",
        "graphviz",
        "digraph",
        "mermaid",
        "image",
        "figure-image",
        "youtube",
        "raw-html",
    ):
        table[name] = _Dropped
    table["literalinclude"] = _LiteralInclude
    table["include"] = _Include
    table["raw"] = _Dropped  # no raw passthrough, not even as text (docs/security.md)
    return table


_TABLE = _table()
# docutils' own directives a page keeps as docutils renders them.
_DOCUTILS_KEPT = frozenset(
    {
        "note",
        "warning",
        "tip",
        "hint",
        "important",
        "attention",
        "caution",
        "danger",
        "error",
        "epigraph",
        "highlights",
        "pull-quote",
        "compound",
        "rubric",
        "line-block",
        "table",
        "csv-table",
        "list-table",
        "math",
        "figure",
        "replace",
        "unicode",
        "date",
        "class",
        "role",
        "default-role",
        "title",
        "header",
        "footer",
    }
)


@contextmanager
def sphinx_reading(text: str, path: Path | None, root: Path | None, notes: Notes) -> Iterator[None]:
    """docutils set up to read `text` as Sphinx would, for the parse only."""
    wanted: dict[str, type[Directive]] = {}
    for name in set(_DIRECTIVE.findall(text)):
        if name in _TABLE:
            wanted[name] = _TABLE[name]
        elif name not in _DOCUTILS_KEPT:
            wanted[name] = _Unknown
    with _LOCK:
        table = directives._directives  # noqa: SLF001 (as Sphinx's docutils_namespace does)
        saved = dict(table)
        _current.context = _Context(path, root, notes)
        try:
            table.update(wanted)
            yield
        finally:
            table.clear()
            table.update(saved)
            _current.context = None
