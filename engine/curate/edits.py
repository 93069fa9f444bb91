"""Curation edits as text edits on the located tree: every byte they do not name stays.

Each operation looks at how the value it touches is written (a block or flow list, a
JSON array, a block or flow mapping, a JSON object) and writes in that style, with the
file's own line end and the indentation of its neighbours.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..spec.problems import Position
from ..spec.tree import Node
from .files import CurateError, Item, SpecFile


@dataclass(frozen=True, order=True)
class TextEdit:
    start: int  # character offsets into the text as read
    end: int
    new: str


def apply_edits(text: str, edits: Sequence[TextEdit]) -> str:
    """The text with the edits made; edits must not overlap (inserts at one offset keep
    their order)."""
    ordered = sorted(enumerate(edits), key=lambda pair: (pair[1].start, pair[1].end, pair[0]))
    out: list[str] = []
    at = 0
    for _, edit in ordered:
        if edit.start < at:
            raise CurateError("internal error: overlapping edits")
        out.append(text[at : edit.start])
        out.append(edit.new)
        at = edit.end
    out.append(text[at:])
    return "".join(out)


# Scalars written plain in YAML: words that YAML reads back as the same string.
_PLAIN = re.compile(r"[^\W\d][\w./@+-]*(?:[ ][\w./@+-]+)*")
_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}
_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff]")


def yaml_scalar(value: Any, quote: str = '"') -> str:
    """A YAML scalar (flow-safe) that reads back as `value`; a string that needs quotes
    gets `quote` (the file's own: `'` or `"`) when it can be written so."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int | float):
        return json.dumps(value)
    text = str(value)
    if _PLAIN.fullmatch(text) and text.lower() not in _YAML_WORDS:
        return text
    if quote == "'" and text.isprintable() and not _UNSAFE.search(text):
        return "'" + text.replace("'", "''") + "'"
    return json_string(text)


def json_string(text: str) -> str:
    dumped = json.dumps(text, ensure_ascii=False)
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)


def json_value(value: Any) -> str:
    if isinstance(value, str):
        return json_string(value)
    if isinstance(value, dict):
        inner = ", ".join(f"{json_string(str(k))}: {json_value(v)}" for k, v in value.items())
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + ", ".join(json_value(v) for v in value) + "]"
    return json.dumps(value)


def yaml_flow(value: Any, quote: str = '"') -> str:
    if isinstance(value, dict):
        inner = ", ".join(
            f"{yaml_scalar(str(k), quote)}: {yaml_flow(v, quote)}" for k, v in value.items()
        )
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + ", ".join(yaml_flow(v, quote) for v in value) + "]"
    return yaml_scalar(value, quote)


_QUOTED = re.compile(r"""(?:^|[:\-\[{,]) +(['"])""", re.MULTILINE)


def _quote_style(text: str) -> str:
    """The quote the file writes its quoted strings with (the most used; `"` on a tie)."""
    marks = [m.group(1) for m in _QUOTED.finditer(text)]
    return "'" if marks.count("'") > marks.count('"') else '"'


def _list_style(text: str, *keys: str) -> str | None:
    """How the file writes the lists under the first of `keys` it has: "flow" (`key: [`)
    or "block" (`key:` then `- ` items); None when it has none of them."""
    for key in keys:
        flow = len(re.findall(rf"^[ \t-]*{key}:[ \t]*\[", text, re.MULTILINE))
        block = len(re.findall(rf"^[ \t-]*{key}:[ \t]*(?:#.*)?\r?\n[ \t]*- ", text, re.MULTILINE))
        if flow or block:
            return "flow" if flow > block else "block"
    return None


class Editor:
    """The edits of one file, made on its text as read."""

    def __init__(self, spec: SpecFile) -> None:
        self.spec = spec
        self.text = spec.text
        self.lines = spec.lines
        self.eol = spec.eol
        self.json = spec.format != "yaml"
        self.edits: list[TextEdit] = []
        self.quote = '"' if self.json else _quote_style(self.text)

    # -- positions -------------------------------------------------------------------

    def offset(self, line: int, character: int) -> int:
        return self.lines.offset(Position(line, character))

    def start(self, node: Node) -> int:
        rng = node.range
        return self.offset(rng.start.line, rng.start.character)

    def end(self, node: Node) -> int:
        rng = node.range
        return self.offset(rng.end.line, rng.end.character)

    def line_start(self, line: int) -> int:
        return self.offset(line, 0)

    def line_text(self, line: int) -> str:
        return self.lines.line(line) if line < len(self.lines) else ""

    def is_flow(self, node: Node) -> bool:
        return self.json or self.text[self.start(node) : self.start(node) + 1] in ("[", "{")

    def innermost_last(self, node: Node) -> Node:
        """The node whose text ends a value: a block collection's last value, down to a
        scalar or a flow collection (a block collection's own end reaches to the next
        token, over blank and comment lines)."""
        while node.kind != "scalar" and not self.is_flow(node):
            if node.kind == "mapping" and node.entries:
                node = node.entries[-1][1]
            elif node.kind == "sequence" and node.items:
                node = node.items[-1]
            else:
                break
        return node

    def last_line(self, node: Node) -> int:
        """The last line holding the node's content (`innermost_last`'s)."""
        node = self.innermost_last(node)
        rng = node.range
        line = rng.end.line
        if rng.end.character == 0 and line > rng.start.line:  # a block scalar's last line end
            line -= 1
        return line

    def after_line(self, line: int) -> tuple[int, str]:
        """Where a new line goes after `line`, and what must come first (a line end when
        the file's last line has none)."""
        if line + 1 < len(self.lines):
            return self.line_start(line + 1), ""
        at = len(self.text)
        return at, ("" if self.text.endswith(("\n", "\r")) else self.eol)

    def indent_of(self, node: Node) -> str:
        """The text before the node on its line, as indentation (spaces where it is not)."""
        rng = node.range
        before = self.line_text(rng.start.line)[: rng.start.character]
        return before if not before.strip() else " " * rng.start.character

    def dash_line(self, item: Node) -> int:
        """The line of a block list item's dash: its own, or the line above for an item
        written under a lone `-`."""
        rng = item.range
        if "-" in self.line_text(rng.start.line)[: rng.start.character]:
            return rng.start.line
        line = rng.start.line - 1
        while line >= 0 and not self.line_text(line).strip():
            line -= 1
        return line if line >= 0 and self.line_text(line).strip() == "-" else rng.start.line

    def dash_prefix(self, item: Node) -> str:
        """The indentation of a block list item's dash."""
        rng = item.range
        at = self.dash_line(item)
        line = self.line_text(at)
        dash = line.rfind("-", 0, rng.start.character if at == rng.start.line else len(line))
        before = line[: max(dash, 0)]
        return before if not before.strip() else " " * max(dash, 0)

    def add(self, start: int, end: int, new: str) -> None:
        self.edits.append(TextEdit(start, end, new))

    def result(self) -> str:
        return apply_edits(self.text, self.edits)

    # -- values ----------------------------------------------------------------------

    def render(self, value: Any, *, flow: bool) -> str:
        if self.json:
            return json_value(value)
        return yaml_flow(value, self.quote)

    def key(self, name: str) -> str:
        return json_string(name) if self.json else name

    # -- mapping keys ------------------------------------------------------------------

    def set_key(self, mapping: Node, key: str, value: Any, after: str = "name") -> None:
        """Give `key` this value: replace the value where it is, else add the key."""
        found = mapping.get(key)
        if found is not None:
            rendered = self.render(value, flow=True)
            start, end = self.start(found), self.end(found)
            if start == end:  # `key:` with nothing after it
                rendered = " " + rendered
            if self.text[start:end] != rendered:
                self.add(start, end, rendered)
            return
        self.insert_key(mapping, key, self.render(value, flow=True), after=after)

    def insert_key(
        self,
        mapping: Node,
        key: str,
        rendered: str,
        block: str | None = None,
        after: str = "name",
    ) -> None:
        """Add `key: rendered` to a mapping (after `name` when it has one on one line, else
        after its last entry). `block` is the YAML block form (lines after `key:`)."""
        entries = list(mapping.entries)
        if mapping.kind != "mapping":
            raise CurateError("internal error: not a mapping")
        if self.is_flow(mapping):
            if not entries:
                at = self.start(mapping) + 1
                self.add(at, at, f"{self.key(key)}: {rendered}")
                return
            anchor_key, anchor = entries[-1]
            named = mapping.key_node(after)
            if named is not None:
                anchor_key, anchor = named, mapping.get(after) or anchor
            at = self.end(anchor)
            if anchor_key.line != mapping.line:  # one entry per line: a new line
                indent = self.indent_of(anchor_key)
                self.add(at, at, f",{self.eol}{indent}{self.key(key)}: {rendered}")
            else:
                self.add(at, at, f", {self.key(key)}: {rendered}")
            return
        anchor_key, anchor = entries[-1]
        named = mapping.key_node(after)
        value = mapping.get(after)
        if (
            named is not None
            and value is not None
            and (after != "name" or self.last_line(value) == named.line)
        ):
            anchor_key, anchor = named, value
        indent = self.indent_of(anchor_key)
        at, first = self.after_line(self.last_line(anchor))
        if block is not None:
            lines = block.split("\n")
            body = self.eol.join(indent + "  " + line if line else "" for line in lines)
            self.add(at, at, f"{first}{indent}{key}:{self.eol}{body}{self.eol}")
        else:
            self.add(at, at, f"{first}{indent}{key}: {rendered}{self.eol}")

    def remove_key(self, mapping: Node, key: str) -> bool:
        """Remove an entry; False when it cannot go without touching another's line."""
        pairs = list(mapping.entries)
        at = next((i for i, (k, _) in enumerate(pairs) if k.value == key), None)
        if at is None:
            return True
        key_node, value = pairs[at]
        if self.is_flow(mapping):
            if len(pairs) == 1:
                self.add(self.start(key_node), self.end(value), "")
            elif at + 1 < len(pairs):
                self.add(self.start(key_node), self.start(pairs[at + 1][0]), "")
            else:
                self.add(self.end(pairs[at - 1][1]), self.end(value), "")
            return True
        line = key_node.line
        if self.line_text(line)[: key_node.range.start.character].strip() or len(pairs) == 1:
            return False  # `- key: value` starts the item: the line must stay
        start = self.line_start(line)
        end, _ = self.after_line(self.last_line(value))
        self.add(start, end, "")
        return True

    # -- lists -------------------------------------------------------------------------

    def append_items(self, mapping: Node, key: str, values: Sequence[Any]) -> None:
        """Add values at the end of the list under `key` (made when missing)."""
        if not values:
            return
        found = mapping.get(key)
        if found is None or (found.kind == "scalar" and found.value is None):
            if found is not None:  # `key:` with no value
                rendered = self.render(list(values), flow=True)
                start, end = self.start(found), self.end(found)
                self.add(start, end, (" " if start == end else "") + rendered)
                return
            block = None
            # The file's own style for such a list (this key elsewhere, else its tags);
            # when it has none, mappings go in block style and scalars in flow style.
            style = None if self.json else _list_style(self.text, key, "tags")
            if (
                not self.json
                and not self.is_flow(mapping)
                and (
                    style == "block" or (style is None and any(isinstance(v, dict) for v in values))
                )
            ):
                block = "\n".join(_block_item(v, self.quote) for v in values)
            self.insert_key(mapping, key, self.render(list(values), flow=True), block)
            return
        if found.kind != "sequence":
            raise CurateError(f"'{key}' is not a list at line {found.line + 1}")
        items = found.items
        if self.is_flow(found):
            close = self.end(found) - 1
            if not items:
                self.add(close, close, ", ".join(self.render(v, flow=True) for v in values))
                return
            last = items[-1]
            at = self.end(last)
            sep = ", "
            if last.line != found.line:  # one item per line: a new line like the last
                sep = f",{self.eol}{self.indent_of(last)}"
            self.add(at, at, "".join(sep + self.render(v, flow=True) for v in values))
            return
        last = items[-1]
        prefix = self.dash_prefix(last)
        at, first = self.after_line(self.last_line(last))
        lines: list[str] = []
        for value in values:
            lines.extend(prefix + line for line in _block_item(value, self.quote).split("\n"))
        self.add(at, at, first + self.eol.join(lines) + self.eol)

    def remove_items(self, mapping: Node, key: str, drop: Sequence[int]) -> None:
        """Remove the items at these indexes from the list under `key`."""
        found = mapping.get(key)
        if found is None or found.kind != "sequence" or not drop:
            return
        self.remove_from_list(found, drop, mapping.key_node(key))

    def remove_from_list(self, seq: Node, drop: Sequence[int], key_node: Node | None) -> None:
        items = seq.items
        gone = sorted(set(drop))
        if self.is_flow(seq):
            for first, last in _runs(gone):
                if last + 1 < len(items):
                    self.add(self.start(items[first]), self.start(items[last + 1]), "")
                elif first > 0:
                    self.add(self.end(items[first - 1]), self.end(items[last]), "")
                else:
                    self.add(self.start(items[0]), self.end(items[-1]), "")
            return
        if len(gone) == len(items):  # nothing left: an empty flow list, the lines go
            if key_node is None:
                raise CurateError("internal error: a block list without a key")
            colon = self.text.index(":", self.end(key_node))
            self.add(colon + 1, colon + 1, " []")
            start = self.line_start(self.dash_line(items[0]))
            end, _ = self.after_line(self.last_line(items[-1]))
            self.add(start, end, "")
            return
        for at in gone:
            item = items[at]
            first = self.dash_line(item)
            start = self.line_start(first)
            line = self.line_text(first)
            if (
                first == item.line
                and line[: max(line.rfind("-", 0, item.range.start.character), 0)].strip()
            ):
                raise CurateError(f"line {item.line + 1}: a list item that does not start its line")
            end, _ = self.after_line(self.last_line(item))
            self.add(start, end, "")


def _runs(indexes: Sequence[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for at in indexes:
        if runs and runs[-1][1] == at - 1:
            runs[-1] = (runs[-1][0], at)
        else:
            runs.append((at, at))
    return runs


def _block_item(value: Any, quote: str = '"') -> str:
    """A YAML block list item (lines joined by \\n, without the list's indentation)."""
    if isinstance(value, dict) and value:
        lines = []
        for n, (key, item) in enumerate(value.items()):
            lines.append(
                ("- " if n == 0 else "  ")
                + f"{yaml_scalar(str(key), quote)}: {yaml_flow(item, quote)}"
            )
        return "\n".join(lines)
    return f"- {yaml_flow(value, quote)}"


# -- the operations -------------------------------------------------------------------


def add_tags(editor: Editor, item: Item, tags: Sequence[str]) -> bool:
    new = [t for t in dict.fromkeys(tags) if t not in item.tags]
    if not new:
        return False
    _mapping(item)
    editor.append_items(item.node, "tags", new)
    return True


def remove_tags(editor: Editor, item: Item, tags: Sequence[str]) -> bool:
    node = item.node.get("tags")
    if node is None or node.kind != "sequence":
        return False
    drop = [i for i, tag in enumerate(node.items) if tag.value in set(tags)]
    if not drop:
        return False
    editor.remove_items(item.node, "tags", drop)
    return True


def set_status(editor: Editor, item: Item, status: str) -> bool:
    _mapping(item)
    if item.status == status:
        return False
    editor.set_key(item.node, "status", status)
    return True


def add_comment(editor: Editor, item: Item, comment: dict[str, str]) -> bool:
    _mapping(item)
    editor.append_items(item.node, "comments", [comment])
    return True


def check_nodes(item: Item) -> list[tuple[Node, str, str | None]]:
    """Each check mapping of a scenario: (node, kind or identifier, name)."""
    found = []
    node = item.node
    for turns in ("steps", "interactions"):
        seq = node.get(turns)
        if seq is None or seq.kind != "sequence":
            continue
        for turn in seq.items:
            checks = turn.get("checks") if turn.kind == "mapping" else None
            if checks is None or checks.kind != "sequence":
                continue
            for check in checks.items:
                if check.kind != "mapping":
                    continue
                kind = check.get("kind") or check.get("identifier")
                name = check.get("name")
                found.append(
                    (
                        check,
                        str(kind.value) if kind is not None else "",
                        name.value if name is not None and isinstance(name.value, str) else None,
                    )
                )
    return found


def set_checks_enabled(editor: Editor, item: Item, checks: Sequence[str], enabled: bool) -> int:
    """Disable (`enabled: false`) or enable the named checks; how many changed."""
    changed = 0
    for node, kind, name in check_nodes(item):
        if kind not in checks and name not in checks:
            continue
        current = node.get("enabled")
        is_on = current is None or current.value is not False
        if is_on == enabled:
            continue
        if enabled:
            if not editor.remove_key(node, "enabled"):
                editor.set_key(node, "enabled", True)
        else:
            editor.set_key(node, "enabled", False)
        changed += 1
    return changed


def _mapping(item: Item) -> None:
    if item.node.kind != "mapping":
        raise CurateError(f"line {item.line + 1}: the scenario is not a mapping")


def delete_items(editor: Editor, items: Sequence[Item]) -> None:
    """Remove scenarios from a suite, dataset or JSON Lines file (not a scenario file:
    that is deleting the file, commit.py)."""
    spec = editor.spec
    if spec.format == "jsonl":
        for item in items:
            start = editor.line_start(item.line)
            end, _ = editor.after_line(item.line)
            editor.add(start, end, "")
        return
    seq = spec.scenarios_node
    if seq is None or spec.root is None:
        raise CurateError(f"{spec.path}: has no list of scenarios")
    editor.remove_from_list(seq, [item.index for item in items], spec.root.key_node("scenarios"))
