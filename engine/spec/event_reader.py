"""The libyaml reader: the event stream of PyYAML's C parser into located Nodes.

YAML is read with PyYAML's *safe* machinery only: tags are never run, and anything outside
the safe set is reported (`unsafe-tag`) and read as null. The tree is built straight from
the parser's event stream (not ``yaml.compose``'s node graph) because events carry the
position of every alias, which the node graph loses, and because skipping the intermediate
graph makes parsing several times faster. The reader enforces the limits (nesting, nodes,
alias expansion) and reports each as a located problem.
"""

from __future__ import annotations

import json as jsonlib
import re
from collections.abc import Sequence
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import ScalarNode
from yaml.reader import ReaderError
from yaml.resolver import Resolver

from ..core.gcpause import gc_paused
from .lines import LineIndex, line_count
from .problems import Position, Problem, Range, Severity
from .tree import FIXED, Node, Shift

try:  # libyaml is ~10x faster and reports the same marks
    from yaml import CSafeLoader as _BaseLoader
    from yaml._yaml import CParser as _CountingParser
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

    _CountingParser = None  # type: ignore[assignment, misc]  # PyYAML without libyaml

_T = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL, _MERGE = (
    _T + "str",
    _T + "int",
    _T + "float",
    _T + "bool",
    _T + "null",
    _T + "merge",
)
_TIMESTAMP = _T + "timestamp"
_CONSTRUCTED = frozenset({_INT, _FLOAT, _BOOL, _NULL})
# Safe scalar tags whose value stays the source text: values must stay JSON-like, so
# timestamps and binary are not turned into datetime / bytes.
_AS_TEXT = frozenset({_STR, _TIMESTAMP, _T + "binary", _T + "value", _T + "yaml", _MERGE})
_MAPPING_TAGS = frozenset({_T + "map", _T + "set"})
_SEQUENCE_TAGS = frozenset({_T + "seq", _T + "omap", _T + "pairs"})

# Long strings count as several nodes (one per 100 characters) so a big anchored string that
# is aliased many times is caught by the same expansion limit as a classic alias bomb.
_CHARS_PER_NODE = 100

# Tag and anchor properties in front of a collection, to underline just them on a bad tag.
_PROPERTIES = re.compile(r"(?:[!&][^\s,\[\]{}]*[ \t]*)+")

_new = tuple.__new__  # Position and Range are tuples: this skips their Python-level __new__
_COMMENT_START = re.compile(r"[ \t]#")
_NESTING_ERROR = "exceeded maximum nesting depth"
_LIBYAML_MAX_DEPTH = 1000
# YAML 1.1 (libyaml) ends lines at these too; editors and YAML 1.2 do not. They are swapped
# for unused private-use characters while parsing, so positions and values follow the editor.
_FOREIGN_BREAKS = "\x85\u2028\u2029"
_BOM = "\ufeff"


class _Loader(_BaseLoader):
    """Safe loader with its own frozen resolver table.

    The table is a snapshot of PyYAML's default one minus timestamps (dates stay strings),
    so a global ``yaml.add_implicit_resolver`` elsewhere cannot change how specs read.
    """


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != _TIMESTAMP]
    for first, resolvers in Resolver.yaml_implicit_resolvers.items()
}
_RESOLVERS: dict[str | None, list[tuple[str, re.Pattern[str]]]] = _Loader.yaml_implicit_resolvers
# Snapshot of the few constructors used, for the same reason as the resolver table.
_CONSTRUCTORS = {tag: SafeConstructor.yaml_constructors[tag] for tag in _CONSTRUCTED}
_CONSTRUCTOR = SafeConstructor()  # stateless for scalars; shared by all parses

_alloc = object.__new__


def _node(
    kind: str,
    value: Any,
    sl: int,
    sc: int,
    el: int,
    ec: int,
    cell: Shift,
    flat: Sequence[Node] = (),
    items: Sequence[Node] = (),
    merged: int = 0,
) -> Node:
    """`Node(...)` from the reader's ints and flat entries, without making a Range first."""
    node = _alloc(Node)
    node.kind, node.value, node._flat, node.items = kind, value, flat, items
    node._sl, node._sc, node._el, node._ec, node._cell = sl, sc, el, ec, cell
    node._merged, node._index = merged, None
    return node


# libyaml's context of a construct that an error can leave open, and what to call it.
_UNCLOSED = {
    "while scanning a quoted scalar": "the quoted string",
    "while parsing a flow sequence": "the `[` list",
    "while parsing a flow mapping": "the `{` mapping",
}


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _tag_name(tag: str) -> str:
    return "!!" + tag[len(_T) :] if tag.startswith(_T) else tag


def _tag_message(tag: str, kind: str) -> str:
    name = _tag_name(tag)
    if tag.startswith(_T + "python/"):
        return f"tag {name} is refused: spec files are read as plain data, never as Python objects"
    return f"tag {name} is not allowed on a {kind} here (only plain YAML data tags are read)"


class _Abort(Exception):
    """A limit was hit: the problem is recorded and the document is not read further."""


class _Frame:
    """An open mapping or sequence while its events stream in."""

    __slots__ = (
        "anchor",
        "bad_tag",
        "cell",
        "flat",
        "height",
        "items",
        "key",
        "key_is_merge",
        "kind",
        "merges",
        "sc",
        "size",
        "sl",
        "value",
    )

    def __init__(
        self, kind: str, sl: int, sc: int, anchor: str | None, bad_tag: str | None, cell: Shift
    ) -> None:
        # (The reader makes most frames itself, without this call: the same fields.)
        self.kind = kind
        self.sl, self.sc, self.cell = sl, sc, cell
        self.anchor = anchor
        self.bad_tag = bad_tag
        mapping = kind == "mapping"
        self.value: Any = {} if mapping else []
        self.flat: list[Node] = [] if mapping else _NO_NODES  # key, value, key, value...
        self.items: list[Node] = _NO_NODES if mapping else []
        self.key: Node | None = None  # mapping: key waiting for its value
        self.key_is_merge = False
        self.merges: list[Node] = _NO_NODES  # mapping: values of `<<` keys (made on the first)
        self.size = 1  # nodes in the expanded subtree
        self.height = 1  # nesting levels in the expanded subtree


_NO_NODES: list[Node] = []  # a frame's lists it does not use (never appended to)


class Builder:
    """Turns the event stream of the first document into Nodes, enforcing the limits."""

    def __init__(
        self,
        text: str,
        *,
        json: bool,
        line_offset: int,
        max_depth: int,
        max_nodes: int,
        cell: Shift = FIXED,
        entry_depth: int = 2,
        fragment: bool = False,
    ) -> None:
        self.original = text  # what positions and JSON values refer to
        # The Shift of the root and its children; each node `entry_depth` levels down (a
        # suite's scenario, a dataset's row: two) starts a Shift of its own for its subtree.
        self.cell = cell
        self.entry_depth = entry_depth
        # A fragment is a run of top-level entries read alone (engine/spec/incremental.py):
        # its root is complete at its first end, whatever follows.
        self.fragment = fragment
        self.aliased = False  # an alias was read (entries may then share nodes)
        # Where the construct a syntax error was found in starts (libyaml's context mark),
        # and where the error was found (an unclosed quote is reported where it opens).
        self.error_context: Position | None = None
        self.error_found: Position | None = None
        self.json = json
        self.line_offset = line_offset
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self.problems: list[Problem] = []
        self.syntax_failed = False
        # name -> (node, expanded size, height); complete nodes only, so an alias to an anchor
        # that is still open (a recursive structure) is told apart.
        self.anchors: dict[str, tuple[Node, int, int]] = {}
        self.nodes = 0  # nodes read, aliases counted by their expanded size
        # plain scalar -> (tag, value, whether it is the merge key `<<`)
        self.plain_cache: dict[str, tuple[str, Any, bool]] = {}
        self.lines = LineIndex(text)
        count = line_count(text)
        self.last_line = line_offset + count - 1
        # The line numbers as int objects made once: nodes on one line share them (the
        # many nodes of a big file held ~700,000 separate ones).
        self.line_ints = list(range(line_offset, line_offset + count + 1))
        self.text, self.restore = _prepared(text)
        self.cut_values: list[tuple[Node, Node]] = []
        self.commented: Node | None = None  # the last plain scalar a comment follows
        self.comment_lines = _comment_lines(text, self.lines, line_offset)
        self.bom = text.startswith(_BOM)
        if self.bom:  # libyaml drops a leading BOM from its columns
            self._pos = self._pos_after_bom  # type: ignore[method-assign]
            self._range = self._range_after_bom  # type: ignore[method-assign]

    # -- positions and problems ------------------------------------------------------------

    def _pos(self, mark: Any) -> Position:
        line = mark.line + self.line_offset
        if line > self.last_line:  # an end "on the next line" of a text without final break
            return self._end()
        return Position(line, mark.column)

    def _range(self, ev: Any) -> Range:  # hot path: _pos and the tuple constructors inlined
        start, end, offset = ev.start_mark, ev.end_mark, self.line_offset
        if end.line + offset > self.last_line:
            return Range(self._pos(start), self._end())
        return _new(
            Range,
            (
                _new(Position, (start.line + offset, start.column)),
                _new(Position, (end.line + offset, end.column)),
            ),
        )

    def _pos_after_bom(self, mark: Any) -> Position:
        line = mark.line + self.line_offset
        if line > self.last_line:
            return self._end()
        return Position(line, mark.column + 1 if mark.line == 0 else mark.column)

    def _range_after_bom(self, ev: Any) -> Range:
        return Range(self._pos(ev.start_mark), self._pos(ev.end_mark))

    def _end_ints(self, mark: Any) -> tuple[int, int]:
        """Line and column of an end mark (the slow cases: past the text, after a BOM)."""
        pos = self._pos(mark)
        return pos.line, pos.character

    def _end(self) -> Position:
        end = self.lines.end
        return Position(end.line + self.line_offset, end.character)

    def _add(
        self, code: str, message: str, rng: Range, severity: Severity = Severity.ERROR
    ) -> None:
        self.problems.append(Problem(code, message, rng, severity))

    def _index_to_position(self, index: int) -> Position:
        """The position of a character offset in the text."""
        pos = self.lines.position(index)
        return Position(pos.line + self.line_offset, pos.character)

    def _mark_index_to_position(self, index: int) -> Position:
        """The position of an offset libyaml reports (it does not count a leading BOM)."""
        return self._index_to_position(index + (1 if self.original.startswith(_BOM) else 0))

    # -- driver ----------------------------------------------------------------------------

    def run(self) -> Node | None:
        loader = None
        try:
            loader = _Loader(self.text)
            with gc_paused():  # the tree is many small acyclic objects: see gcpause.py
                return self._document(loader)
        except _Abort:
            return None
        except yaml.MarkedYAMLError as e:
            self._syntax_error(e)
        except ReaderError as e:
            char = e.character if isinstance(e.character, int) else ord(e.character)
            pos = self._mark_index_to_position(e.position)
            self.syntax_failed = True
            self._add("syntax", f"{e.reason} (found U+{char:04X})", Range(pos, pos))
        except yaml.YAMLError as e:  # pragma: no cover - every PyYAML error carries a mark
            self.syntax_failed = True
            self._add("syntax", str(e), Range.point(self.line_offset, 0))
        except RecursionError:  # pragma: no cover - the builder is iterative; belt and braces
            self._add("too-deep", "nesting is too deep to read", Range.point(self.line_offset, 0))
        except UnicodeEncodeError as e:  # a lone surrogate, e.g. from surrogateescape decoding
            pos = self._index_to_position(e.start)
            char = ord(e.object[e.start])
            self.syntax_failed = True
            self._add("syntax", f"text is not valid Unicode (found U+{char:04X})", Range(pos, pos))
        finally:
            if loader is not None:
                loader.dispose()
        return None

    def _syntax_error(self, e: yaml.MarkedYAMLError) -> None:
        mark = e.problem_mark or e.context_mark
        pos = self._pos(mark) if mark is not None else Position(self.line_offset, 0)
        if e.problem and _NESTING_ERROR in e.problem:
            # libyaml's own cap, which its look-ahead can hit before our check sees the
            # first event: said where libyaml stopped, so with libyaml's number.
            message = f"nesting is deeper than {_LIBYAML_MAX_DEPTH} levels"
            self._add("too-deep", message, Range(pos, pos))
            return
        self.syntax_failed = True
        self.error_found = pos
        if e.context_mark is not None:
            self.error_context = self._pos(e.context_mark)
        message = e.problem or e.context or "invalid YAML"
        if e.problem and e.context:
            message = f"{e.problem} ({e.context})"
        opened = _UNCLOSED.get(e.context or "")
        start = self.error_context
        if opened is not None and start is not None and self._never_closed(start, pos):
            # libyaml finds an unclosed quote or bracket where the text runs out (or at the
            # next line that cannot be inside it): the fix is where it was opened.
            found = f"{pos.line + 1}:{pos.character + 1}"
            message = f"{opened} opened here is never closed ({e.problem} at {found})"
            self._add("syntax", message, Range(start, Position(start.line, start.character + 1)))
            return
        self._add("syntax", message, Range(pos, pos))

    def _never_closed(self, opened: Position, found: Position) -> bool:
        """Whether a quote or flow bracket opened at `opened` surely runs to `found`, the
        error: the text ended inside it, or `found` is on a later line indented no more
        than the line it opened on (a line inside it would be indented more)."""
        if found <= opened:
            return False
        if found >= self._end():
            return True
        if found.line == opened.line:
            return False
        line = self.lines.line(found.line - self.line_offset)
        start = self.lines.line(opened.line - self.line_offset)
        return _indent(line) <= _indent(start)

    def _document(self, loader: Any) -> Node | None:
        get_event = loader.get_event
        get_event()  # StreamStart
        if loader.check_event(StreamEndEvent):  # empty or only comments
            return None
        get_event()  # DocumentStart
        root = self._root(get_event)
        if self.fragment:
            return root
        get_event()  # DocumentEnd
        try:
            if loader.check_event(DocumentStartEvent):
                rng = self._range(loader.peek_event())
                self._add("syntax", "only the first YAML document is read", rng, Severity.WARNING)
        except yaml.MarkedYAMLError as e:  # broken text after the first document
            self._syntax_error(e)
        if root.kind == "scalar" and root.value is None and root.range.start == root.range.end:
            return None  # `---` with nothing after it
        return root

    def _root(self, get_event: Any) -> Node:
        stack: list[_Frame] = []
        max_depth, max_nodes = self.max_depth, self.max_nodes
        root_cell, entry_depth, problems = self.cell, self.entry_depth, self.problems
        anchors = self.anchors
        nodes = self.nodes  # a local in the loop; aliases add their expanded size
        first_node = first_problem = 0  # where the current entry began
        # The common scalar (plain, seen before, on a line of the text) is made right here.
        fast = not self.json and self.restore is None and not self.bom
        plain_cache, ints, last_line = self.plain_cache, self.line_ints, self.last_line
        known_lines = len(ints)
        comment_lines = self.comment_lines
        per_node = _CHARS_PER_NODE
        scalar_event, alias_event = ScalarEvent, AliasEvent
        mapping_start, sequence_start = MappingStartEvent, SequenceStartEvent
        mapping_end, sequence_end = MappingEndEvent, SequenceEndEvent
        alloc, node_class, frame_class, no_nodes = _alloc, Node, _Frame, _NO_NODES
        bom = self.bom
        # The open collection new nodes go into (stack[-1]), how many are open, and the
        # Shift of the nodes below the open one (the entry's own once inside an entry).
        parent: _Frame | None = None
        depth = 0
        cell = root_cell
        try:
            while True:
                ev = get_event()
                cls = type(ev)
                if cls is scalar_event:  # most events: handled inline, in one branch
                    if depth == entry_depth:  # a top-level entry: a Shift of its own
                        node_cell = Shift()
                        first_node, first_problem = nodes, len(problems)
                    else:
                        node_cell = cell
                    nodes += 1
                    if nodes > max_nodes:
                        self._too_many(ev)
                    raw = ev.value
                    hit = plain_cache.get(raw) if fast and ev.tag is None else None
                    end = ev.end_mark
                    if hit is not None and ev.implicit[0] and end.line < known_lines:
                        el = ints[end.line]
                        if el > last_line:
                            hit = None
                    else:
                        hit = None
                    if hit is not None:
                        start = ev.start_mark
                        node = alloc(node_class)
                        node.kind = "scalar"
                        node.value = hit[1]
                        node._flat = ()
                        node.items = ()
                        node._sl = ints[start.line]
                        node._sc = start.column
                        node._el = el
                        node._ec = end.column
                        node._cell = node_cell
                        node._merged = 0
                        node._index = None
                        is_merge = hit[2]
                        if comment_lines and el in comment_lines:
                            self._note_comment(node)
                    else:
                        node, is_merge = self._scalar(ev, node_cell)
                    size = 1 + len(raw) // per_node
                    if ev.anchor is not None:
                        anchors[ev.anchor] = (node, size, 0)
                    if parent is None:
                        return node
                    if depth == entry_depth:  # the entry is complete: what it holds
                        node_cell.nodes = nodes - first_node
                        if len(problems) > first_problem:
                            node_cell.problems = tuple(problems[first_problem:])
                    parent.size += size  # (a scalar is no higher than its parent)
                elif cls is mapping_end or cls is sequence_end:
                    frame = stack.pop()
                    depth -= 1
                    parent = stack[-1] if depth else None
                    mark = ev.end_mark
                    el = ints[mark.line]
                    if frame.bad_tag is not None or frame.merges or el > last_line or bom:
                        node = self._close(frame, ev)  # the rare cases
                    else:  # what _close makes of them, made here
                        node = alloc(node_class)
                        node.kind = frame.kind
                        node.value = frame.value
                        if frame.kind == "sequence":
                            node._flat = ()
                            node.items = frame.items
                        else:
                            node._flat = frame.flat
                            node.items = ()
                        node._sl = frame.sl
                        node._sc = frame.sc
                        node._el = el
                        node._ec = mark.column
                        node._cell = frame.cell
                        node._merged = 0
                        node._index = None
                    if parent is not None:
                        cell = parent.cell
                    size, height = frame.size, frame.height
                    if frame.bad_tag is not None:
                        size, height = 1, 0
                    if frame.anchor is not None:
                        anchors[frame.anchor] = (node, size, height)
                    if parent is None:
                        return node
                    if depth == entry_depth:  # the entry is complete: what it holds
                        node_cell = node._cell
                        node_cell.nodes = nodes - first_node
                        if len(problems) > first_problem:
                            node_cell.problems = tuple(problems[first_problem:])
                    parent.size += size
                    if height >= parent.height:
                        parent.height = height + 1
                    is_merge = False
                elif cls is mapping_start or cls is sequence_start:
                    if depth == entry_depth:
                        node_cell = Shift()
                        first_node, first_problem = nodes, len(problems)
                    else:
                        node_cell = cell
                    nodes += 1
                    if nodes > max_nodes:
                        self._too_many(ev)
                    if depth >= max_depth:
                        pos = self._pos(ev.start_mark)
                        message = f"nesting is deeper than {max_depth} levels"
                        self._add("too-deep", message, Range(pos, pos))
                        raise _Abort
                    mark = ev.start_mark
                    sl = ints[mark.line]
                    if ev.tag is not None or bom or sl > last_line:  # the rare cases
                        kind = "mapping" if cls is mapping_start else "sequence"
                        parent = self._open(ev, kind, node_cell)
                    else:  # what _open makes of them, made here
                        parent = alloc(frame_class)
                        parent.sl = sl
                        parent.sc = mark.column
                        parent.cell = node_cell
                        parent.anchor = ev.anchor
                        parent.bad_tag = None
                        if cls is mapping_start:
                            parent.kind = "mapping"
                            parent.value = {}
                            parent.flat = []
                            parent.items = no_nodes
                        else:
                            parent.kind = "sequence"
                            parent.value = []
                            parent.flat = no_nodes
                            parent.items = []
                        parent.key = None
                        parent.key_is_merge = False
                        parent.merges = no_nodes
                        parent.size = 1
                        parent.height = 1
                    stack.append(parent)
                    depth += 1
                    cell = node_cell
                    continue
                elif cls is alias_event:
                    node_cell = Shift() if depth == entry_depth else cell
                    if depth == entry_depth:
                        first_node, first_problem = nodes, len(problems)
                    self.nodes = nodes
                    self.aliased = True
                    if depth >= entry_depth:  # (never the shared FIXED cell of the root)
                        node_cell.aliased = True
                    node, size, height = self._alias(ev, stack, node_cell)
                    nodes = self.nodes
                    if parent is None:
                        return node
                    if depth == entry_depth:  # the entry is complete: what it holds
                        node_cell.nodes = nodes - first_node
                        if len(problems) > first_problem:
                            node_cell.problems = tuple(problems[first_problem:])
                    parent.size += size
                    if height >= parent.height:
                        parent.height = height + 1
                    is_merge = False
                else:  # pragma: no cover - the parser guarantees balanced events
                    raise yaml.YAMLError(f"unexpected {cls.__name__}")

                if parent.kind == "sequence":
                    parent.items.append(node)
                    parent.value.append(node.value)
                    continue
                key = parent.key
                if key is None:  # a key: its value comes next
                    parent.key, parent.key_is_merge = node, is_merge
                elif (
                    parent.key_is_merge
                    or key.kind != "scalar"
                    or key.value in parent.value
                    or node is self.commented
                ):
                    self._attach(parent, node, is_merge)  # the rare cases, with their problems
                else:
                    parent.key = None
                    parent.value[key.value] = node.value
                    flat = parent.flat
                    flat.append(key)
                    flat.append(node)
        finally:
            self.nodes = nodes

    def _too_many(self, ev: Any) -> None:
        pos = self._pos(ev.start_mark)
        self._add("too-many-nodes", too_many_message(self.max_nodes), Range(pos, pos))
        raise _Abort

    # -- nodes -----------------------------------------------------------------------------

    def _scalar(self, ev: ScalarEvent, cell: Shift) -> tuple[Node, bool]:
        start, end, ints = ev.start_mark, ev.end_mark, self.line_ints
        assert start is not None and end is not None  # events from a parser have marks
        sl, sc = ints[start.line], start.column
        el = ints[end.line]
        if el > self.last_line or self.bom:
            sl, sc = self._end_ints(start)
            el, ec = self._end_ints(end)
        else:
            ec = end.column
        raw: str = ev.value
        if self.json:  # exact JSON semantics (numbers, escapes) from the source slice
            src = self.original[start.index : end.index]
            if ev.style == '"' and "\\" not in src and src.isprintable():
                # a JSON string without escapes or control characters: its text is its value
                return _node("scalar", src[1:-1], sl, sc, el, ec, cell), False
            try:
                value = jsonlib.loads(src)
            except jsonlib.JSONDecodeError:
                # YAML read this valid JSON differently (e.g. an implied empty value next to a
                # key over 1024 characters): give up on positions, keep the JSON values.
                self.syntax_failed = True
                raise _Abort from None
            return _node("scalar", value, sl, sc, el, ec, cell), False
        if self.restore is not None:
            raw = raw.translate(self.restore)
        tag = ev.tag
        if tag is None and ev.implicit[0]:  # plain scalar: resolve like SafeLoader does
            tag, value, _ = self._plain(raw, sl, sc, el, ec)
            node = _node("scalar", value, sl, sc, el, ec, cell)
            if self.comment_lines and el in self.comment_lines:
                self._note_comment(node)
            return node, tag == _MERGE
        if tag is None or tag == "!" or tag in _AS_TEXT:
            return _node("scalar", raw, sl, sc, el, ec, cell), tag == _MERGE
        rng = Range.of(sl, sc, el, ec)
        if tag in _CONSTRUCTED:
            return _node("scalar", self._construct(tag, raw, rng), sl, sc, el, ec, cell), False
        self._add("unsafe-tag", _tag_message(tag, "scalar"), rng)
        return _node("scalar", None, sl, sc, el, ec, cell), False

    def _plain(self, raw: str, sl: int, sc: int, el: int, ec: int) -> tuple[str, Any, bool]:
        """A plain scalar's tag, value and whether it is the merge key `<<`, once per text.

        (A value that cannot be read is reported at its first place only.)
        """
        hit = self.plain_cache.get(raw)
        if hit is None:
            tag = _STR
            for candidate, regexp in _RESOLVERS.get(raw[:1], ()):
                if regexp.match(raw):
                    tag = candidate
                    break
            if tag in _CONSTRUCTED:
                value = self._construct(tag, raw, Range.of(sl, sc, el, ec))
            else:
                value = raw
            hit = self.plain_cache[raw] = (tag, value, tag == _MERGE)
        return hit

    def _note_comment(self, node: Node) -> None:
        rest = self.lines.line(node._el - self.line_offset)[node._ec :]
        # One blank before `#` reads as text; a comment meant as one is set apart by two
        # (yamllint's default), so only the first is worth a hint.
        if rest[:1] in (" ", "\t") and rest[1:2] == "#":
            self.commented = node

    def _construct(self, tag: str, raw: str, rng: Range) -> Any:
        try:
            return _CONSTRUCTORS[tag](_CONSTRUCTOR, ScalarNode(tag, raw))
        except (ValueError, KeyError, TypeError, yaml.YAMLError):
            self._add("syntax", f"cannot read {raw!r} as {_tag_name(tag)}", rng)
            return None

    def _open(self, ev: Any, kind: str, cell: Shift) -> _Frame:
        tag = ev.tag
        allowed = _MAPPING_TAGS if kind == "mapping" else _SEQUENCE_TAGS
        bad = None if tag is None or tag == "!" or tag in allowed else tag
        mark = ev.start_mark
        sl, sc = self.line_ints[mark.line], mark.column
        if self.bom or sl > self.last_line:
            sl, sc = self._end_ints(mark)
        return _Frame(kind, sl, sc, ev.anchor, bad, cell)

    def _close(self, frame: _Frame, ev: Any) -> Node:
        sl, sc = frame.sl, frame.sc
        mark = ev.end_mark
        el = self.line_ints[mark.line]
        if el > self.last_line or self.bom:
            el, ec = self._end_ints(mark)
        else:
            ec = mark.column
        cell = frame.cell
        if frame.bad_tag is not None:
            # Underline the tag (and anchor) rather than the whole collection.
            start = self.lines.offset(Position(sl - self.line_offset, sc))
            m = _PROPERTIES.match(self.original, start)
            width = len(m.group().rstrip()) if m else 0
            tag_range = Range.of(sl, sc, sl, sc + width)
            self._add("unsafe-tag", _tag_message(frame.bad_tag, frame.kind), tag_range)
            return _node("scalar", None, sl, sc, el, ec, cell)
        if frame.kind == "sequence":
            return _node("sequence", frame.value, sl, sc, el, ec, cell, items=frame.items)
        if not frame.merges:
            return _node("mapping", frame.value, sl, sc, el, ec, cell, frame.flat)
        merged = self._merged_entries(frame.merges)
        value = {merged[at].value: merged[at + 1].value for at in range(0, len(merged), 2)}
        value.update(frame.value)
        flat = merged + frame.flat
        return _node("mapping", value, sl, sc, el, ec, cell, flat, merged=len(merged) >> 1)

    def _merged_entries(self, merges: list[Node]) -> list[Node]:
        # Same order as SafeConstructor.flatten_mapping: within a list of mappings the
        # earlier ones win, and explicit keys (appended after these) win over all of them.
        out: list[Node] = []
        for merge in merges:
            if merge.kind == "mapping":
                out.extend(merge._flat)
            elif merge.kind == "sequence" and all(i.kind == "mapping" for i in merge.items):
                for item in reversed(merge.items):
                    out.extend(item._flat)
            else:
                self._add(
                    "syntax", "a `<<` merge needs a mapping or a list of mappings", merge.range
                )
        return out

    def _attach(self, frame: _Frame, node: Node, is_merge: bool) -> None:
        key = frame.key
        if key is None:
            frame.key = node
            frame.key_is_merge = is_merge
            return
        frame.key = None
        if frame.key_is_merge:
            if frame.merges is _NO_NODES:
                frame.merges = []
            frame.merges.append(node)
            return
        if key.kind != "scalar":
            self._add("syntax", f"a mapping key must be a plain value, not a {key.kind}", key.range)
            return
        k = key.value
        if k in frame.value:
            self._duplicate_key(key)
        frame.value[k] = node.value
        frame.flat += (key, node)
        if node is self.commented:
            self.cut_values.append((key, node))

    def _duplicate_key(self, key: Node) -> None:
        message = f"duplicate key {key.value!r}: the later value wins"
        self._add("duplicate-key", message, key.range, Severity.WARNING)

    def _alias(self, ev: AliasEvent, stack: list[_Frame], cell: Shift) -> tuple[Node, int, int]:
        rng = self._range(ev)
        name = ev.anchor or ""  # an alias event always names its anchor
        if any(frame.anchor == name for frame in stack):
            self._add(
                "alias-bomb", f"alias *{name} refers to a node that contains it (endless)", rng
            )
            raise _Abort
        target = self.anchors.get(name)
        if target is None:
            self.syntax_failed = True
            self._add("syntax", f"found undefined alias *{name}", rng)
            raise _Abort
        node, size, height = target
        self.nodes += size
        if self.nodes > self.max_nodes:
            self._add(
                "alias-bomb", f"YAML aliases expand to more than {self.max_nodes:,} nodes", rng
            )
            raise _Abort
        if len(stack) + height > self.max_depth:
            self._add("too-deep", f"alias *{name} nests deeper than {self.max_depth} levels", rng)
            raise _Abort
        # A new node at the alias's position that shares the anchor's value and children.
        (sl, sc), (el, ec) = rng
        shared = _node(node.kind, node.value, sl, sc, el, ec, cell, node._flat, node.items)
        shared._merged = node._merged
        return shared, size, height


def _comment_lines(text: str, lines: LineIndex, line_offset: int) -> frozenset[int]:
    """Lines where a `#` follows a blank: where a comment may cut a plain value short."""
    if "#" not in text:
        return frozenset()
    return frozenset(
        lines.position(m.start()).line + line_offset for m in _COMMENT_START.finditer(text)
    )


def _prepared(text: str) -> tuple[str, dict[int, int] | None]:
    """The text for libyaml, and how to turn its values back (None: it is the text itself).

    U+0085, U+2028 and U+2029 become private-use characters the text does not use, so they
    stay ordinary characters (YAML 1.2, and every editor) and line numbers match the editor's.
    """
    if not any(ch in text for ch in _FOREIGN_BREAKS):
        return text, None
    spare = (chr(c) for c in range(0xE000, 0xF900) if chr(c) not in text)
    swap = {ord(ch): ord(next(spare)) for ch in _FOREIGN_BREAKS}
    return text.translate(swap), {new: old for old, new in swap.items()}


def too_many_message(max_nodes: int) -> str:
    return (
        f"file holds more than {max_nodes:,} YAML nodes (keys, values, list items): it is too "
        "big to analyse; split it into smaller files"
    )


def surely_too_many(text: str, max_nodes: int, line_offset: int) -> Problem | None:
    """Refuse at once a text that holds far more nodes than allowed (a million-item list).

    libyaml counts the events in C without building anything (~10x faster than reading
    them); a node gives one or two events, so more than twice the limit is surely too many.
    Below that the reader counts exactly and stops where the limit is crossed.
    """
    if _CountingParser is None or len(text) <= max_nodes:  # too short to hold that many
        return None
    try:
        events = _CountingParser(_prepared(text)[0]).raw_parse()
    except Exception:  # a syntax error: the reader will say where
        return None
    if events - 5 <= 2 * max_nodes:
        return None
    return Problem("too-many-nodes", too_many_message(max_nodes), Range.point(line_offset, 0))
