"""Where a suite's or dataset's scenarios lie in its text, for incremental analysis.

A `Layout` (a block list of scenarios) or `RowsLayout` (a JSON Lines dataset) keeps what
`incremental.py` needs to re-read only the scenarios an edit touches: the file's own
problems before and after the list, each scenario's Shift, and what the analysis depends
on (`workspace_key`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .kinds import FileKind, is_json
from .lines import LineIndex
from .problems import Problem, moved_problem
from .scenario_analysis import EntryReader
from .source import Row
from .tree import FIXED, Node, Shift, Source
from .workspace import Workspace
from .yaml_traps import hints_for

_BLOCK_ITEM = re.compile(r"-(?:[ \t]|$)")


@dataclass(eq=False)
class Layout:
    """Where the scenarios of a suite or dataset lie in the text, for incremental analysis.

    Made only for the common case that can be re-read in pieces: YAML whose `scenarios:`
    is a block list, without anchors, aliases or `<<` at the top. Each scenario's nodes
    share one Shift; the file's other entries after the list share `tail`. The reader's
    problems and comment hints of a scenario are kept on its Shift, the file's own in
    `head_problems` (before the list) and `tail_problems` (after it, as read: they move by
    `tail.lines - tail_base`). A layout serves the document it was made for until
    `engine/spec/incremental.py` derives the next one from it (`consumed`).
    """

    text: str
    index: LineIndex
    kind: FileKind | None  # the kind `analyze` was asked for (None: from the name)
    workspace_key: tuple[Any, ...]
    root: Node
    position: int  # of the `scenarios` entry among the root's entries
    seq: Node
    column: int  # of the list's `-`
    read: EntryReader
    head_problems: list[Problem]
    head_reader: list[Problem]  # of those, the reader's own (all a failed read keeps)
    tail: Shift
    tail_problems: list[Problem]
    tail_reader: list[Problem]  # of those, the reader's own
    tail_base: int
    nodes: int
    size: int  # of the text in UTF-8 bytes
    # The scenarios whose Shift holds reader problems or hints, in any order: what a re-read
    # gathers for the document without visiting every scenario.
    flagged: list[Node]
    # Values a comment cut short (yaml_traps.py), of the file's own entries and by scenario.
    frame_cut: list[tuple[Node, Node]]
    cuts: dict[Shift, list[tuple[Node, Node]]]
    consumed: bool = False

    @classmethod
    def of(
        cls,
        source: Source,
        path: str,
        read: EntryReader,
        frame_problems: list[Problem],
        workspace: Workspace,
        kind: FileKind | None,
    ) -> Layout | None:
        root = source.root
        if root is None or is_json(path) or source.aliased or root._merged:
            return None
        seq = root.get("scenarios")
        at = [i for i, (key, _) in enumerate(root.entries) if key.value == "scenarios"]
        if seq is None or seq.kind != "sequence" or not seq.items or len(at) != 1:
            return None
        index, text = source.lines, source.text
        if text.startswith("\ufeff") or not _BLOCK_ITEM.match(index.line(seq.line), seq._sc):
            return None
        cells = {id(item._cell) for item in seq.items}
        if len(cells) != len(seq.items) or id(FIXED) in cells:
            return None
        tail = Shift()
        for key, value in root.entries[at[0] + 1 :]:
            _move_with(key, tail)
            _move_with(value, tail)
        mine = {id(p) for item in seq.items for p in item._cell.problems}
        frame_reader = [p for p in source.problems if id(p) not in mine]
        frame_cut = [cv for cv in source.cut_values if id(cv[1]._cell) not in cells]
        cuts = cut_by_entry(source.cut_values, cells)
        for cell, cut in cuts.items():
            cell.hints = tuple(hints_for(cut, index))
        tail_line = root.entries[at[0] + 1][0].line if at[0] + 1 < len(root.entries) else None
        head: list[Problem] = []
        after: list[Problem] = []
        for problem in [*frame_reader, *hints_for(frame_cut, index), *frame_problems]:
            line = problem.range.start.line
            if line < seq.line:
                head.append(problem)
            elif tail_line is not None and line >= tail_line:
                after.append(problem)
            else:  # a problem of the file inside its list: not worth a special case
                return None
        return cls(
            text=text,
            index=index,
            kind=kind,
            workspace_key=workspace_key(workspace),
            root=root,
            position=at[0],
            seq=seq,
            column=seq._sc,
            read=read,
            head_problems=head,
            head_reader=[p for p in frame_reader if p.range.start.line < seq.line],
            tail=tail,
            tail_problems=after,
            tail_reader=[p for p in frame_reader if p in after],
            tail_base=0,
            nodes=source.nodes,
            size=len(text.encode("utf-8", "surrogatepass")),
            flagged=[item for item in seq.items if flagged(item)],
            frame_cut=frame_cut,
            cuts=cuts,
        )

    def reader_problems(self) -> list[Problem]:
        """The reader's problems and hints of the scenarios, where they are now."""
        found: list[Problem] = []
        for item in self.flagged:
            cell = item._cell
            if cell.problems or cell.hints:
                lines = cell.lines
                found.extend(moved_problem(p, lines) for p in cell.problems)
                found.extend(moved_problem(p, lines) for p in cell.hints)
        return found

    def problems(self) -> list[Problem]:
        """The document's own problems (not its scenarios'): the file's, then the reader's."""
        lines = self.tail.lines - self.tail_base
        return [
            *self.head_problems,
            *self.reader_problems(),
            *(moved_problem(p, lines) for p in self.tail_problems),
        ]


def flagged(item: Node) -> bool:
    cell = item._cell
    return bool(cell.problems or cell.hints)


def cut_by_entry(
    cut_values: list[tuple[Node, Node]], cells: set[int]
) -> dict[Shift, list[tuple[Node, Node]]]:
    """The cut values inside top-level entries (their Shift's id in `cells`), by entry."""
    found: dict[Shift, list[tuple[Node, Node]]] = {}
    for key, value in cut_values:
        if id(value._cell) in cells:
            found.setdefault(value._cell, []).append((key, value))
    return found


def workspace_key(workspace: Workspace) -> tuple[Any, ...]:
    """What of the workspace an analysis depends on (another one means a fresh analysis)."""
    config = workspace.config
    custom = tuple(sorted((k, v.model_dump_json()) for k, v in workspace.custom_checks.items()))
    return (config.target, config.max_file_size, custom)


def _move_with(node: Node, cell: Shift) -> None:
    """Give a subtree (just read, shared with nothing) the Shift `cell`."""
    stack = [node]
    while stack:
        current = stack.pop()
        current._cell = cell
        stack.extend(current.items)
        for key, value in current.entries:
            stack.append(key)
            stack.append(value)


@dataclass(eq=False)
class RowsLayout:
    """The rows of a JSON Lines dataset, for incremental analysis (as `Layout` for lists).

    Each non-blank line is read alone, so an edit re-reads the lines it touches and moves
    the rows below by their Shift (engine/spec/incremental.py).
    """

    text: str
    index: LineIndex
    kind: FileKind | None
    workspace_key: tuple[Any, ...]
    rows: list[Row]
    read: EntryReader
    nodes: int
    size: int
    consumed: bool = False

    def problems(self) -> list[Problem]:
        return [moved_problem(p, row.cell.lines) for row in self.rows for p in row.problems]
