"""Parse spec text (YAML, JSON or JSON Lines) into located trees; never raises on bad input.

Pure functions, no file I/O. Plain block YAML, most spec files, is read by the line reader
(block_reader.py); anything else, and JSON, by the libyaml reader (event_reader.py), which
also says what is wrong with a text the line reader declines. This module picks the
reader, refuses oversize texts, keeps JSON's own values where YAML reads them differently,
and reads the fragments (incremental.py) and JSON Lines rows that are read alone.
"""

from __future__ import annotations

import json as jsonlib
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from ..core.gcpause import gc_paused
from .block_reader import Unsupported, read_block
from .event_reader import Builder, surely_too_many, too_many_message
from .json_rows import read_row
from .lines import LineIndex, split_lines
from .problems import Position, Problem, Range
from .tree import FIXED, Node, Shift, Source

__all__ = ["MAX_NODES", "parse_jsonl_lines", "parse_source", "too_large"]

# Most nodes (keys, values, items, aliases expanded) a file may hold: past this, opening it
# would take several seconds and hundreds of MB (edits after that re-read only the entries
# they touch). A 60,000-line suite holds ~150,000; 8,000 benchmark scenarios ~600,000.
MAX_NODES = 750_000


def _size(n: int) -> str:
    for unit, scale in (("MB", 1_000_000), ("KB", 1_000)):
        if n >= scale:
            return f"{n / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{n} bytes"


def _whole(text: str, line_offset: int) -> Range:
    end = LineIndex(text).end
    return Range(Position(line_offset, 0), Position(end.line + line_offset, end.character))


class _TooDeep(Exception):
    """JSON nested deeper than allowed (see `_from_json`)."""


def _from_json(data: Any, rng: Range, depth: int, max_depth: int, cell: Shift) -> Node:
    """Tree for valid JSON that YAML could not read: right values, whole-document ranges."""
    if depth > max_depth and isinstance(data, dict | list):  # levels of nesting, as in YAML
        raise _TooDeep
    if isinstance(data, dict):
        entries = [
            (Node("scalar", k, rng, cell=cell), _from_json(v, rng, depth + 1, max_depth, cell))
            for k, v in data.items()
        ]
        return Node("mapping", data, rng, entries=entries, cell=cell)
    if isinstance(data, list):
        items = [_from_json(v, rng, depth + 1, max_depth, cell) for v in data]
        return Node("sequence", data, rng, items=items, cell=cell)
    return Node("scalar", data, rng, cell=cell)


def _differs(root: Node | None, data: Any) -> bool:
    # Belt and braces: a JSON tree must carry exactly the values `json.loads` gives.
    try:
        return root is not None and root.value != data
    except RecursionError:  # pragma: no cover - only with a max_depth near the recursion limit
        return False


class _Parsed(NamedTuple):
    root: Node | None
    problems: list[Problem]
    nodes: int = 0  # how many were read
    cut_values: Sequence[tuple[Node, Node]] = ()
    aliased: bool = False  # anchors or aliases were read
    by_lines: bool = False  # read by the line reader (engine/spec/block_reader.py)


def _read_by_lines(builder: Builder) -> _Parsed | None:
    """What `builder.run()` reads, read by the line reader; None (and `builder` as it was)
    when the text is not the plain block YAML that reader takes."""
    try:
        with gc_paused():
            root = read_block(builder)
    except Unsupported:
        # As new: what was read goes (a value that cannot be read must still be
        # reported at its first place when libyaml reads it).
        builder.problems, builder.cut_values, builder.plain_cache = [], [], {}
        builder.nodes = 0
        return None
    return _Parsed(root, builder.problems, builder.nodes, builder.cut_values, False, by_lines=True)


def _parse(
    text: str,
    *,
    json: bool,
    line_offset: int,
    max_depth: int,
    max_nodes: int,
    cell: Shift = FIXED,
    entry_depth: int = 2,
    line_reader: bool = True,
) -> _Parsed:
    if not text.strip():
        return _Parsed(None, [])
    data: Any = None
    json_too_deep = False
    if json:
        try:
            data = jsonlib.loads(text)
        except jsonlib.JSONDecodeError as e:
            pos = LineIndex(text).position(e.pos)
            problem = Problem("syntax", e.msg, Range.point(pos.line + line_offset, pos.character))
            return _Parsed(None, [problem])
        except ValueError as e:  # valid syntax json will not convert (a 5,000-digit number)
            return _Parsed(None, [Problem("syntax", str(e), Range.point(line_offset, 0))])
        except RecursionError:  # the YAML pass below finds where it gets too deep
            json_too_deep = True
    builder = Builder(
        text,
        json=json,
        line_offset=line_offset,
        max_depth=max_depth,
        max_nodes=max_nodes,
        cell=cell,
        entry_depth=entry_depth,
    )
    if line_reader and not json:  # plain block YAML, most files: read without libyaml's events
        read = _read_by_lines(builder)
        if read is not None:
            return read
    too_many = surely_too_many(text, max_nodes, line_offset)
    if too_many is not None:
        return _Parsed(None, [too_many])
    root = builder.run()
    problems = builder.problems
    if json_too_deep:  # keep where the YAML pass found it too deep, else the whole text
        deep = [p for p in problems if p.code == "too-deep"]
        whole = Problem("too-deep", "nesting is too deep to read", _whole(text, line_offset))
        return _Parsed(None, deep or [whole], builder.nodes)
    if json and (builder.syntax_failed or _differs(root, data)):
        # Valid JSON that YAML cannot read (e.g. a key over 1024 characters, a surrogate
        # escape): keep the JSON values and give up on exact positions.
        rng = _whole(text, line_offset)
        try:
            return _Parsed(_from_json(data, rng, 1, max_depth, cell), [], builder.nodes)
        except (_TooDeep, RecursionError):
            problem = Problem("too-deep", f"nesting is deeper than {max_depth} levels", rng)
            return _Parsed(None, [problem], builder.nodes)
    aliased = builder.aliased or bool(builder.anchors)
    return _Parsed(root, problems, builder.nodes, builder.cut_values, aliased)


class Fragment(NamedTuple):
    """Top-level entries read alone (see `parse_fragment`)."""

    root: Node | None  # the list read, None when the reader stopped at an error
    problems: list[Problem]
    nodes: int  # nodes read, the list itself included
    cut_values: list[tuple[Node, Node]]
    aliased: bool  # anchors or aliases were read: the entries may not stand alone
    error_context: Position | None  # where the construct holding a syntax error starts
    # Where the reader found that error (an unclosed quote's problem is placed where the
    # quote opens, but it was found where the text ran out).
    error_found: Position | None = None


def parse_fragment(text: str, *, line_offset: int, max_depth: int, max_nodes: int) -> Fragment:
    """Read `text`, whole lines holding block-list items of a file from `line_offset` on.

    Each item starts a Shift of its own, like a top-level entry of a whole file; reading
    ends with the list (what follows it is not read). Whether that equals reading the
    whole file is for the caller to decide (engine/spec/incremental.py).
    """
    builder = Builder(
        text,
        json=False,
        line_offset=line_offset,
        max_depth=max_depth,
        max_nodes=max_nodes,
        entry_depth=1,
        fragment=True,
    )
    root = builder.run()
    aliased = builder.aliased or bool(builder.anchors)
    return Fragment(
        root,
        builder.problems,
        builder.nodes,
        builder.cut_values,
        aliased,
        builder.error_context,
        builder.error_found,
    )


def too_large(text: str, max_bytes: int, setting: str = "max_file_size") -> Problem | None:
    """The problem of a text over `max_bytes` UTF-8 bytes (cheap: encodes only when it may be).

    `setting` names the limit in the message (`max_dataset_file_size` for JSON Lines).
    """
    if len(text) * 4 <= max_bytes:  # no need to encode: cannot be over
        return None
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= max_bytes:
        return None
    message = (
        f"file is {_size(size)}, over the {_size(max_bytes)} limit (setting {setting} in "
        "checkspec.yaml, or the editor's checkspec."
        + "".join(w.capitalize() if i else w for i, w in enumerate(setting.split("_")))
        + ")"
    )
    return Problem("too-large", message, Range.point(0, 0))


def parse_source(
    text: str,
    *,
    json: bool = False,
    max_bytes: int = 10_000_000,
    max_depth: int = 200,
    max_nodes: int = MAX_NODES,
    line_reader: bool = True,
) -> Source:
    """Parse YAML (or JSON with ``json=True``) text; never raises on bad input.

    `line_reader=False` reads with libyaml even plain block YAML (the two agree).
    """
    refused = too_large(text, max_bytes)
    if refused is not None:
        return Source(None, [refused], text)
    parsed = _parse(
        text,
        json=json,
        line_offset=0,
        max_depth=max_depth,
        max_nodes=max_nodes,
        line_reader=line_reader,
    )
    return Source(
        parsed.root,
        parsed.problems,
        text,
        list(parsed.cut_values),
        nodes=parsed.nodes,
        aliased=parsed.aliased,
        by_lines=parsed.by_lines,
    )


class Row(NamedTuple):
    """One non-blank line of a JSON Lines file, read alone (see `parse_jsonl_row`)."""

    line: int  # as read; the line now is `line + cell.lines`
    cell: Shift  # the row's nodes move with it
    root: Node | None  # None when the line is not JSON (its problems say why)
    problems: list[Problem]
    nodes: int  # nodes read


def parse_jsonl_row(line: str, number: int, *, max_depth: int, max_nodes: int) -> Row:
    """Read line `number` of a JSON Lines file (positions are the file's)."""
    cell = Shift()  # a row moves as one when lines are added above it
    root, found, read, *_ = _parse(
        line,
        json=True,
        line_offset=number,
        max_depth=max_depth,
        max_nodes=max_nodes,
        cell=cell,
        entry_depth=-1,
    )
    return Row(number, cell, root, found, read)


MAX_ROW_DEPTH = 200  # as parse_source's default for a whole file


def read_jsonl_row(line: str, number: int) -> Row:
    """Read line `number` of a JSON Lines dataset under the limits of one row.

    Each row is a document of its own (no aliases, no anchors): the node and depth limits
    that guard a YAML file apply to each row, never to the file. A row over them is a
    problem at its line; the caller goes on with the next.

    Most rows are read by json_rows.py (the same tree, faster); the others, and every row
    with a problem, by the general reader.
    """
    cell = Shift()
    fast = read_row(line, number, cell, max_depth=MAX_ROW_DEPTH, max_nodes=MAX_NODES)
    if fast is not None:
        cell.text = line  # what its nodes are read from again once folded (json_rows.fold)
        return Row(number, cell, fast[0], [], fast[1])
    row = parse_jsonl_row(line, number, max_depth=MAX_ROW_DEPTH, max_nodes=MAX_NODES)
    if not any(p.code == "too-many-nodes" for p in row.problems):
        return row
    message = (
        f"row holds more than {MAX_NODES:,} JSON nodes (keys, values, list items), the limit "
        "of one row: it is not analysed; split it or shorten it"
    )
    problems = [
        replace(p, message=message) if p.code == "too-many-nodes" else p for p in row.problems
    ]
    return row._replace(root=None, problems=problems)


def parse_jsonl_lines(
    text: str,
    *,
    max_bytes: int = 10_000_000,
    max_depth: int = 200,
    max_nodes: int = MAX_NODES,
) -> tuple[list[tuple[int, Node]], list[Problem]]:
    """Parse JSON Lines: (0-based line number, root node) per non-blank line, and problems.

    Positions are those in the whole text (lines end as in editors, see lines.py); a bad line
    gives a problem and the others still parse. `max_nodes` bounds the whole file.
    """
    refused = too_large(text, max_bytes)
    if refused is not None:
        return [], [refused]
    rows: list[tuple[int, Node]] = []
    problems: list[Problem] = []
    budget = max_nodes
    for number, line in enumerate(split_lines(text)):
        if not line.strip():
            continue
        _, _, root, found, read = parse_jsonl_row(
            line, number, max_depth=max_depth, max_nodes=budget
        )
        budget -= read
        if any(p.code == "too-many-nodes" for p in found):  # say the file's limit, and stop
            message = too_many_message(max_nodes)
            problems.extend(
                replace(p, message=message) if p.code == "too-many-nodes" else p for p in found
            )
            break
        problems.extend(found)
        if root is not None:
            rows.append((number, root))
    return rows, problems
