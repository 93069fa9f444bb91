"""Incremental analysis: after an edit, re-read only the scenarios it touches.

A suite or dataset is mostly its list of scenarios. `reanalyze` takes the analysis of the
text before some edits (its `Layout`), the edited text and the window that changed, and
re-reads only the whole lines of the scenarios the window touches, as a fragment of YAML
placed at their first line (`source.parse_fragment`). The scenarios above keep their
nodes and analysis; the ones below too, moved by one number each (their Shift). The
result equals a fresh `analyze` of the new text (tests/engine/spec/test_incremental.py checks it
after random edits), and where that cannot be shown cheaply it *is* a fresh `analyze`:

- the edit touches the file's own lines (its name, the `scenarios:` key) or the
  workspace changed; the document has anchors, aliases or `<<` at the top; it is JSON;
- the fragment does not read as whole list items at the list's column, ending where the
  next item (or the rest of the file) begins: a dedent, a `---`, an anchor, a quote left
  open until the end of the fragment, more nodes than allowed.

A syntax error inside the fragment is the fresh result too, without reading the rest:
reading the whole file would stop at that same error, with the same message, provided
every line up to it lies inside the list (indented past its `-`, or one of its `-`), so
that the reader's state there cannot differ, and the error is not the fragment's end.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, replace

from ..core.gcpause import gc_paused
from .cancel import checkpoint
from .document import Document, analyze, read_row_entry
from .kinds import FileKind, kind_from_name
from .layouts import Layout, RowsLayout, cut_by_entry, flagged, workspace_key
from .lines import LineIndex, index_of, remember
from .problems import Position, Problem, Range, moved, moved_problem
from .scenario_analysis import ScenarioEntry
from .source import MAX_NODES, Fragment, Row, parse_fragment, read_jsonl_row
from .text_diff import diff
from .tree import Node, Source
from .workspace import Workspace
from .yaml_traps import hints_for

# Lines a fragment must not hold: they mean something else alone than inside the file.
_MARKERS = re.compile(r"^(?:---|\.\.\.)(?:[ \t]|$)|^%|\ufeff", re.MULTILINE)
# Between the end of one list item and the `-` of the next: blanks, breaks and comments.
_GAP = re.compile(r"(?:[ \t]+|#[^\r\n]*|\r\n|\r|\n)*")
_ITEM = re.compile(r"-(?:[ \t]|$)")
_MAX_DEPTH = 200  # parse_source's default, as `analyze` reads


@dataclass(frozen=True)
class Window:
    """What changed: [start, old_end) of a text is [start, new_end) of the edited one."""

    start: int
    old_end: int
    new_end: int

    @classmethod
    def of(cls, start: int, end: int, length: int) -> Window:
        """Replacing [start, end) with `length` characters."""
        return cls(start, end, start + length)

    def then(self, start: int, end: int, length: int) -> Window:
        """This window, then [start, end) of the edited text replaced by `length` chars."""
        low = min(self.start, start)
        high = max(self.new_end, end)  # in the edited text; what follows is unchanged
        return Window(low, self.old_end + high - self.new_end, high + length - (end - start))


def reanalyze(
    previous: Document,
    text: str,
    window: Window,
    workspace: Workspace | None = None,
    *,
    kind: FileKind | None = None,
    lines: LineIndex | None = None,
    keep: bool = True,
) -> Document:
    """The analysis of `text`, the text `previous` was made from with `window` changed.

    Equal to `analyze(text, previous.path, workspace, kind=kind)`; much cheaper when the
    window lies inside a suite's or dataset's list of scenarios. `previous` must not be
    used afterwards when the result has a layout (the scenarios it shares were moved).
    `lines`, if given, indexes `text`. Never raises.
    """
    workspace = workspace or Workspace()
    layout = previous.layout
    if (
        layout is not None
        and not layout.consumed
        and layout.kind == kind
        and layout.workspace_key == workspace_key(workspace)
        and _size(layout, text, window) <= workspace.config.size_limit(previous.path)[0]
    ):
        try:
            with gc_paused():
                if isinstance(layout, RowsLayout):
                    found = _reread_rows(previous, layout, text, window, lines)
                else:
                    found = _Reread(previous, layout, text, window, lines).run()
        except _GiveUp:
            found = None
        except Exception:  # a bug here must cost speed, never a wrong or missing analysis
            found = None
        if found is not None:
            return found
    return analyze(text, previous.path, workspace, kind=kind, keep=keep)


_EARLIER = object()


class _GiveUp(Exception):
    """The edit cannot be re-read in pieces: analyse the whole text."""


class _Reread:
    def __init__(
        self,
        previous: Document,
        layout: Layout,
        text: str,
        window: Window,
        lines: LineIndex | None,
    ) -> None:
        self.previous, self.layout, self.text, self.window = previous, layout, text, window
        self.old = layout.index
        self.new = lines if lines is not None and lines.text is text else index_of(text)
        self.items = layout.seq.items
        self.column = layout.column
        entries = layout.root.entries
        following = entries[layout.position + 1] if layout.position + 1 < len(entries) else None
        # The file's first line after the list (None: the list runs to the end).
        self.rest: Node | None = following[0] if following is not None else None

    # -- where the items are -----------------------------------------------------------------

    def dash(self, k: int) -> int:
        """The line of the `-` that starts item k (in the old text)."""
        if k == 0:
            return self.layout.seq.line
        offset = self.old.offset(self.items[k - 1].range.end)
        at = _GAP.match(self.layout.text, offset).end()  # type: ignore[union-attr]
        if not _ITEM.match(self.layout.text, at):
            raise _GiveUp
        pos = self.old.position(at)
        if pos.character != self.column:
            raise _GiveUp
        return pos.line

    def item_at(self, line: int) -> int:
        """The item whose lines hold `line`: from its `-` to the next item's."""
        k = max(0, bisect_right(self.items, line, key=_line) - 1)
        if k + 1 < len(self.items) and self.dash(k + 1) <= line:
            k += 1
        return k

    # -- the re-read ------------------------------------------------------------------------

    def run(self) -> Document | None:
        layout, old, window = self.layout, self.old, self.window
        if layout.read.stopped:
            return None
        first_line = self.dash(0)
        rest_line = self.rest.line if self.rest is not None else None
        touched_first = old.position(window.start).line
        touched_last = old.position(window.old_end).line
        if touched_first < first_line or (rest_line is not None and touched_last >= rest_line):
            return None  # the file's own lines
        k1, k2 = self.item_at(touched_first), self.item_at(touched_last)
        found = self.attempt(k1, k2, rest_line)
        if found is _EARLIER and k1 > 0:
            # The edit moved the first `-` of the region, where the scenario above ends.
            found = self.attempt(k1 - 1, k2, rest_line)
        return found if isinstance(found, Document) else None

    def attempt(self, k1: int, k2: int, rest_line: int | None) -> Document | object | None:
        """Re-read items k1..k2; _EARLIER when the scenario above must be re-read too."""
        layout, old, new, window, items = self.layout, self.old, self.new, self.window, self.items
        start_line = self.dash(k1)
        end_line = self.dash(k2 + 1) if k2 + 1 < len(items) else rest_line  # None: to the end
        start = old.offset(Position(start_line, 0))
        old_end = len(layout.text) if end_line is None else old.offset(Position(end_line, 0))
        end = old_end + window.new_end - window.old_end
        if new.offset(Position(start_line, 0)) != start or not start <= window.start:
            return None  # an edit joined the line before to this one (`\r` + `\n`)
        region = self.text[start:end]
        if _MARKERS.search(region):
            return None
        new_end_line = None
        if end_line is not None:
            new_end_line = new.position(end).line
            if new.offset(Position(new_end_line, 0)) != end:
                return None
        # What follows the region, reduced to its column: where the last item then ends.
        next_column = self.column if k2 + 1 < len(items) else (self.rest._sc if self.rest else 0)
        sentinel = " " * next_column + "-\n" if end_line is not None and self.column else ""
        removed = items[k1 : k2 + 1]
        others = layout.nodes - sum(item._cell.nodes for item in removed)
        fragment = parse_fragment(
            region + sentinel,
            line_offset=start_line,
            max_depth=_MAX_DEPTH - 1,  # the list's items sit one level deeper in the file
            max_nodes=MAX_NODES - others + 2,
        )
        if fragment.root is None:
            if fragment.problems:
                return self.failed(fragment, start_line, new_end_line, k1)
            fresh: list[Node] = []  # nothing but blanks and comments
            fragment_nodes = 0
        else:
            root = fragment.root
            if fragment.aliased or root.kind != "sequence" or root._sc != self.column:
                return None
            fresh = list(root.items)
            fragment_nodes = fragment.nodes - 1  # the list node stands for the file's list
            if sentinel and k2 + 1 < len(items):  # drop the empty item the sentinel made
                last = fresh.pop() if fresh else None
                if last is None or last.kind != "scalar" or last.value is not None:
                    return None
                if last.line != new_end_line:
                    return None
                fragment_nodes -= 1
            if (
                root.end_line < new_end_line
                if new_end_line is not None
                else root.range.end != new.end
            ):
                return None  # the list ended inside the region (a dedent)
            if root.line != start_line and k1 > 0:
                return _EARLIER
        if k1 == 0 and not fresh and k2 + 1 >= len(items):
            return None  # no scenario left
        if not fresh and k1 > 0:
            return _EARLIER  # the scenario above now ends where the next one starts
        total = others + fragment_nodes
        if total > MAX_NODES:
            return None
        line_shift = 0 if end_line is None or new_end_line is None else new_end_line - end_line
        return self.commit(
            k1, k2, fresh, total, line_shift, fragment.root, new_end_line, fragment.cut_values
        )

    def commit(
        self,
        k1: int,
        k2: int,
        fresh: list[Node],
        total: int,
        line_shift: int,
        fragment_root: Node | None,
        new_end_line: int | None,
        cut_values: list[tuple[Node, Node]],
    ) -> Document | None:
        layout, new, items, previous = self.layout, self.new, self.items, self.previous
        fresh_cuts = cut_by_entry(cut_values, {id(item._cell) for item in fresh})
        for cell, cut in fresh_cuts.items():
            cell.hints = tuple(hints_for(cut, new))
        read = layout.read
        entries = [read(node, k1 + j, new) for j, node in enumerate(fresh)]
        if read.stopped:
            return None
        count_shift = len(fresh) - (k2 - k1 + 1)
        after: list[ScenarioEntry] = previous.scenarios[k2 + 1 :]
        if count_shift:
            after = [
                read(entry.node, entry.index + count_shift, new)
                if entry.named_by_index
                else replace(entry, index=entry.index + count_shift)
                for entry in after
            ]
        # Nothing can fail from here on: move what follows the edit.
        layout.consumed = True
        if line_shift:
            for item in items[k2 + 1 :]:
                item._cell.lines += line_shift
            layout.tail.lines += line_shift
        seq, root = layout.seq, layout.root
        seq_items = [*items[:k1], *fresh, *items[k2 + 1 :]]
        seq_value = [*seq.value[:k1], *(node.value for node in fresh), *seq.value[k2 + 1 :]]
        if k1 == 0 and fragment_root is not None and fresh:
            seq_start = fragment_root.range.start
        elif k1 == 0:  # the first items went: the list now starts at the next one's `-`
            assert new_end_line is not None
            seq_start = Position(new_end_line, self.column)
        else:
            seq_start = seq.range.start
        seq_end = new.end if self.rest is None else moved(seq.range, line_shift).end
        new_seq = Node("sequence", seq_value, Range(seq_start, seq_end), items=seq_items)
        root_entries = list(root.entries)
        key = root_entries[layout.position][0]
        root_entries[layout.position] = (key, new_seq)
        root_value = dict(root.value)
        root_value[key.value] = seq_value
        root_end = new.end if root.range.end == self.old.end else moved(root.range, line_shift).end
        new_root = Node(
            "mapping",
            root_value,
            Range(root.range.start, root_end),
            entries=root_entries,
        )
        gone = {id(node) for node in items[k1 : k2 + 1]}
        gone_cells = {id(node._cell) for node in items[k1 : k2 + 1]}
        cuts = {cell: cut for cell, cut in layout.cuts.items() if id(cell) not in gone_cells}
        cuts.update(fresh_cuts)
        next_layout = replace(
            layout,
            text=self.text,
            index=new,
            root=new_root,
            seq=new_seq,
            nodes=total,
            size=_size(layout, self.text, self.window),
            flagged=[
                *(node for node in layout.flagged if id(node) not in gone),
                *(node for node in fresh if flagged(node)),
            ],
            cuts=cuts,
        )
        next_layout.consumed = False
        reader: list[Problem] = []
        for item in next_layout.flagged:
            cell = item._cell
            if cell.problems:
                reader.extend(moved_problem(p, cell.lines) for p in cell.problems)
        all_cut = [*layout.frame_cut, *(cv for cut in cuts.values() for cv in cut)]
        tail_lines = layout.tail.lines - layout.tail_base
        source = Source(
            new_root,
            [
                *layout.head_reader,
                *reader,
                *(moved_problem(p, tail_lines) for p in layout.tail_reader),
            ],
            self.text,
            all_cut,
            nodes=total,
        )
        problem_entries = None
        if previous.problem_entries is not None and not count_shift:
            gone_entries = {id(entry) for entry in previous.scenarios[k1 : k2 + 1]}
            problem_entries = [
                *(e for e in previous.problem_entries if id(e) not in gone_entries),
                *(e for e in entries if e.read_problems),
            ]
        return Document(
            path=previous.path,
            kind=previous.kind,
            source=source,
            problems=next_layout.problems(),
            scenarios=[*previous.scenarios[:k1], *entries, *after],
            layout=next_layout,
            problem_entries=problem_entries,
        )

    def failed(
        self, fragment: Fragment, start_line: int, end_line: int | None, k1: int
    ) -> Document | None:
        """The fresh analysis of a text whose fragment does not read, when it is sure."""
        problems = fragment.problems
        error = problems[-1]
        if error.code != "syntax":
            return None
        context = fragment.error_context
        if context is not None and context.character <= self.column:
            return None  # found while reading the list itself, which the file reads otherwise
        at = (fragment.error_found or error.range.start).line  # where the reader stopped
        if end_line is not None and at >= end_line:
            return None  # maybe only because the fragment ends there
        last_line = at + 1 if end_line is None else min(at + 1, end_line - 1)
        in_item = False  # the fragment must start with an item's `-`, as the file reads it
        for number in range(start_line, last_line + 1):
            line = self.new.line(number)
            body = line.lstrip(" ")
            indent = len(line) - len(body)
            if not body or body.startswith("#"):
                continue
            if indent == self.column and _ITEM.match(body):
                in_item = True
                continue
            if indent > self.column and in_item:
                continue
            return None  # the reader's state there may depend on what the file holds around
        if self.layout.nodes + fragment.nodes > MAX_NODES:
            return None
        found = list(self.layout.head_reader)
        for item in self.layout.flagged:  # the scenarios above, read before the error
            cell = item._cell
            if item.line < start_line:
                found.extend(moved_problem(p, cell.lines) for p in cell.problems)
        found.extend(problems)
        kind = self.layout.kind or kind_from_name(self.previous.path)
        source = Source(None, found, self.text)
        return Document(path=self.previous.path, kind=kind, source=source, problems=list(found))


def _line(node: Node) -> int:
    return node.line


def _row_line(row: Row) -> int:
    return row.line + row.cell.lines


def _entry_line(entry: ScenarioEntry) -> int:
    return entry.node.line


def _reread_rows(
    previous: Document, layout: RowsLayout, text: str, window: Window, lines: LineIndex | None
) -> Document | None:
    """JSON Lines: re-read the lines the window touches; move the rows below."""
    if layout.read.stopped:
        return None
    old = layout.index
    new = lines if lines is not None and lines.text is text else index_of(text)
    first = old.position(window.start).line
    last = old.position(window.old_end).line
    new_last = new.position(window.new_end).line
    rows = layout.rows
    k1 = bisect_left(rows, first, key=_row_line)
    k2 = bisect_right(rows, last, key=_row_line)
    total = layout.nodes - sum(row.nodes for row in rows[k1:k2])
    fresh: list[Row] = []
    for number in range(first, new_last + 1):
        line = new.line(number)
        if not line.strip():
            continue
        checkpoint()  # before anything is committed (cancel.py)
        row = read_jsonl_row(line, number)  # the limits are each row's: none to the file
        total += row.nodes
        fresh.append(row)
    read, scenarios = layout.read, previous.scenarios
    r1 = bisect_left(scenarios, first, key=_entry_line)
    r2 = bisect_right(scenarios, last, key=_entry_line)
    roots = [row.root for row in fresh if row.root is not None]
    entries = [read_row_entry(read, root, r1 + j, new) for j, root in enumerate(roots)]
    if read.stopped:
        return None
    count_shift = len(entries) - (r2 - r1)
    after = scenarios[r2:]
    if count_shift:
        after = [
            read_row_entry(read, entry.node, entry.index + count_shift, new)
            if entry.named_by_index
            else replace(entry, index=entry.index + count_shift)
            for entry in after
        ]
    layout.consumed = True  # nothing can fail from here on
    line_shift = new_last - last
    if line_shift:
        for row in rows[k2:]:
            row.cell.lines += line_shift
    next_layout = replace(
        layout,
        text=text,
        index=new,
        rows=[*rows[:k1], *fresh, *rows[k2:]],
        nodes=total,
        size=_size(layout, text, window),
        consumed=False,
    )
    return Document(
        path=previous.path,
        kind=previous.kind,
        source=Source(None, [], ""),
        problems=next_layout.problems(),
        scenarios=[*scenarios[:r1], *entries, *after],
        layout=next_layout,
    )


def _size(layout: Layout | RowsLayout, text: str, window: Window) -> int:
    """The UTF-8 size of `text`, from the layout's text and the window (no full encode)."""
    errors = "replace" if isinstance(layout, RowsLayout) else "surrogatepass"  # as analyze
    old = layout.text[window.start : window.old_end].encode("utf-8", errors)
    new = text[window.start : window.new_end].encode("utf-8", errors)
    return layout.size - len(old) + len(new)


class Editing:
    """A text being edited and its analysis, kept up to date incrementally.

    What the language server holds per open document (and the tests drive): edits are
    applied to the text and its line index, and the analysis is asked for when needed; it
    is re-read from the last analysis that has a layout (`base`), over the window changed
    since. A text whose analysis failed (a syntax error) keeps that base, so the edit that
    repairs it is incremental again.
    """

    def __init__(
        self,
        text: str,
        path: str,
        workspace: Workspace | None = None,
        *,
        kind: FileKind | None = None,
        keep: bool = True,
    ) -> None:
        self.path, self.kind, self.keep = path, kind, keep
        self.workspace = workspace or Workspace()
        self.text = text
        self.lines = remember(LineIndex(text))
        self.base: Document | None = None
        self.window: Window | None = None
        self.current: Document | None = None  # the analysis of `text`, once made
        self.last_edit: int | None = None  # where the last edit ends (run on save)

    def replace(self, start: int, end: int, new_text: str) -> None:
        """Replace [start, end) (code-point offsets) of the text."""
        text = "".join((self.text[:start], new_text, self.text[end:]))
        self.last_edit = start + len(new_text)  # where the edit ends in the new text
        self.lines = remember(self.lines.edited(text, start, end, start + len(new_text)))
        self.text = text
        if self.base is not None:
            length = len(new_text)
            self.window = (
                Window.of(start, end, length)
                if self.window is None
                else self.window.then(start, end, length)
            )
        self.current = None

    def set_text(self, text: str) -> None:
        """The whole text changed (a client that sends it all): diffed against the
        previous text (common prefix and suffix), the one edit found goes through the same
        path as a range change (text_diff.py)."""
        edit = diff(self.text, text)
        if edit is not None:
            self.replace(edit.start, edit.end, edit.text)

    def set_workspace(self, workspace: Workspace) -> None:
        same = workspace_key(workspace) == workspace_key(self.workspace)
        self.workspace = workspace
        if not same:
            self.base, self.window, self.current = None, None, None

    def analysis(self) -> Document:
        if self.current is not None:
            return self.current
        if self.base is not None and self.window is not None:
            found = reanalyze(
                self.base,
                self.text,
                self.window,
                self.workspace,
                kind=self.kind,
                lines=self.lines,
                keep=self.keep,
            )
        else:
            found = analyze(self.text, self.path, self.workspace, kind=self.kind, keep=self.keep)
        if found.layout is not None:
            self.base, self.window = found, None
        elif found.source.root is not None or self.base is None:
            self.base, self.window = None, None
        self.current = found
        return found
