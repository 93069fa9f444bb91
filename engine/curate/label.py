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

from pathlib import Path

from ..core.check import Check
from ..spec.tree import Node
from . import edits
from .commit import Change
from .files import CurateError, SpecFile, read_spec

LABELS = ("pass", "fail")


def label_edits(spec: SpecFile, line: int, label: str) -> edits.Editor:
    """The edits writing `expect: label` on the check at `line` (CurateError: no check)."""
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
    head = "identifier" if "identifier" in node.value and "kind" not in node.value else "kind"
    editor.set_key(node, "expect", label, after=head)
    return editor


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


def label_check(path: Path, line: int, label: str) -> Change:
    """The change labelling the check of `path` written at `line` (0-based)."""
    spec = read_spec(path)
    editor = label_edits(spec, line, label)
    return Change(spec.path, spec.data, editor.result().encode("utf-8"))
