"""A person's label on a check (`expect: pass | fail`), written with the curation edits:
every other byte of the file stays (engine/curate/edits.py).

`label_edits(spec, line, label)` gives the edits labelling the check written at `line`
(0-based: its `kind:` / `identifier:` line, or any line of its mapping) in the style of
the file (block or flow YAML, JSON); the editor sends them as a WorkspaceEdit, and
`label_check` gives the CLI's change (commit.py writes it). A check already carrying that
label needs no edit. The check must be one `expect:` may go on: engine/spec's analysis
says so when it does not (a deterministic check, an answer not recorded).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..core.check import Check
from ..spec.tree import Node
from . import edits
from .commit import Change
from .files import CurateError, Item, SpecFile, read_spec

LABELS = ("pass", "fail")


def label_edits(
    spec: SpecFile, line: int, label: str, answers: Sequence[Any] | None = None
) -> edits.Editor:
    """The edits writing `expect: label` on the check at `line` (CurateError: no check).

    `answers`: what the agent answered in each interaction of the check's scenario, in
    the run whose verdict is labelled; a label needs them recorded, so they are written
    first (as `run --record` writes them), in the same edit."""
    if label not in LABELS:
        raise CurateError(f"a label is pass or fail, not {label!r}")
    node = check_node_at(spec, line)
    if node is None:
        raise CurateError(f"{spec.path}:{line + 1}: no check written here to label")
    kind = node.value.get("kind", node.value.get("identifier"))
    cls: type[Check] | None = Check.kind_class(kind)
    if cls is not None and not cls.may_call_model():
        raise CurateError(
            f"{spec.path}:{line + 1}: '{kind}' calls no model: there is no judge to label"
        )
    editor = edits.Editor(spec)
    current = node.get("expect")
    if current is not None and current.value == label:
        return editor
    if answers is not None:
        _record(editor, scenario_of(spec, node), answers)
    head = "identifier" if "identifier" in node.value and "kind" not in node.value else "kind"
    editor.set_key(node, "expect", label, after=head)
    return editor


def _record(editor: edits.Editor, item: Item, answers: Sequence[Any]) -> None:
    from .record import Recording, record_into

    done = Recording()
    name = item.name if item.named else f"#{item.index}"
    record_into(editor.spec, [(item, answers, name)], done, write=True, editor=editor)
    if done.skipped:
        raise CurateError(done.skipped[0])


def scenario_of(spec: SpecFile, check: Node) -> Item:
    """The scenario a check node of `spec` belongs to."""
    for item in spec.items:
        if any(node is check for node, _, _ in edits.check_nodes(item)):
            return item
    raise CurateError(f"{spec.path}: the check belongs to no scenario")


def check_node_at(spec: SpecFile, line: int) -> Node | None:
    """The top-level check of a step or turn written at `line` (0-based): the one whose
    `kind:` / `identifier:` is on it, else the innermost whose mapping spans it."""
    spanning: Node | None = None
    for item in spec.items:
        for node, _, _ in edits.check_nodes(item):
            head = node.key_node("kind") or node.key_node("identifier")
            if head is not None and head.line + item.offset == line:
                return node
            start, end = node.range.start.line, node.range.end.line
            if start + item.offset <= line <= end + item.offset:
                spanning = node
    return spanning


def label_check(
    path: Path,
    line: int,
    label: str,
    answers_of: Callable[[str], Sequence[Any] | None] | None = None,
    root: Path | None = None,
) -> Change:
    """The change labelling the check of `path` written at `line` (0-based);
    `answers_of(identity)`: the answers of the run labelled, recorded first when given
    (the scenario's identity named from `root`, its workspace root; else the current
    folder)."""
    spec = read_spec(path)
    answers = None
    if answers_of is not None:
        node = check_node_at(spec, line)
        if node is not None:
            identity = spec.identity(scenario_of(spec, node), root or Path.cwd())
            answers = answers_of(identity)
            if answers is None:
                raise CurateError(f"{identity}: not in that run")
    editor = label_edits(spec, line, label, answers)
    return Change(spec.path, spec.data, editor.result().encode("utf-8"))
