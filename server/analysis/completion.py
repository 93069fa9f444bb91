"""Completion: check kinds, parameter names, accepted values and `trace.` JSONPaths.

Everything offered comes from the schema service (schema.py: the engine's registry and
models) and the workspace's custom checks; below `trace.last.outputs.` it comes from what
the scenario recorded.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

from checkspec.engine.curate.edits import json_string, yaml_scalar
from checkspec.engine.spec.document import Document
from checkspec.engine.spec.kinds import FileKind, is_json
from checkspec.engine.spec.lines import index_of
from checkspec.engine.spec.problems import Position, Range
from checkspec.engine.spec.tree import Key
from checkspec.engine.spec.workspace import Workspace
from checkspec.engine.spec.workspace_config import CustomCheck

from .context import CursorContext, Role, cursor_context
from .docs import check_markdown, field_markdown
from .recorded import recorded_at
from .rows import row_document
from .schema import (
    FieldDoc,
    Frame,
    MappingShape,
    check_class,
    field_docs,
    is_check_family,
    kind_of,
    needed_parameters,
    placeholder,
    registered_kinds,
    shape_at,
    summary_of,
)
from .trace_paths import ROOT, format_name, next_keys, parse_steps

_NAME_TAIL = re.compile(r"[\w$-]*")


class ItemKind(enum.Enum):
    CHECK = "check"  # a check (or interaction) kind
    FIELD = "field"  # a key of the mapping
    VALUE = "value"  # an accepted value: a Literal member, a boolean
    PATH = "path"  # a step of a trace JSONPath


@dataclass(frozen=True)
class Completion:
    label: str
    kind: ItemKind
    insert: str
    replace: Range  # code points, like every analysis range
    detail: str = ""
    documentation: str = ""  # Markdown
    sort: str = ""
    snippet: str | None = None  # LSP snippet to insert instead, when the client takes them


def complete(
    document: Document,
    text: str,
    position: Position,
    workspace: Workspace | None = None,
    *,
    trigger: str | None = None,
    earlier: Document | None = None,
    snippets: bool = False,
    tags: Callable[[], Mapping[str, int]] | None = None,
) -> list[Completion]:
    """What may be written at `position` in `text` (the text `document` was analysed from).

    `tags` gives the workspace's tags and how many scenarios carry each (asked only when
    the cursor is in a `tags:` list): they are offered there, the most used first.

    `trigger` is the character that opened completion, if one did: a space asks for values
    (`kind: ` offers the kinds) or a new list item's keys (`- `), never for keys while a
    line is being indented.
    `earlier` is an earlier analysis of the same file that parsed: while the line being
    typed breaks the YAML, recorded outputs are read from it (found by keys, not lines).
    With `snippets`, choosing a check kind also writes its required parameters as tab stops.
    """
    if document.kind is None:
        return []
    document = row_document(document, position.line)  # a JSON Lines row: as a scenario
    found = _complete(document, text, position, workspace, trigger, earlier, snippets, tags)
    if found or trigger is not None:
        return found
    return _continuing_item(document, text, position, workspace, earlier, snippets)


def _continuing_item(
    document: Document,
    text: str,
    position: Position,
    workspace: Workspace | None,
    earlier: Document | None,
    snippets: bool,
) -> list[Completion]:
    """The keys of the list item above, on a blank line at its dash's column.

    Enter after `- kind: equals` leaves the cursor under the `-` (editors keep the line's
    indentation); what is asked for there is the next parameter of that check, written two
    columns further: the items insert the two spaces.
    """
    if "\r" not in text:  # the line alone first: most requests are not on a blank line
        here_line = index_of(text).line(position.line)  # (no split of a 9 MB dataset)
        if here_line[: position.character].strip():
            return []
    lines = text.split("\n")
    if position.line >= len(lines) or lines[position.line][: position.character].strip():
        return []
    column = position.character
    if not _below_item_at(lines[: position.line], column):
        return []
    current = lines[position.line].ljust(column)
    shifted = current[:column] + "  " + current[column:]
    retyped = "\n".join([*lines[: position.line], shifted, *lines[position.line + 1 :]])
    moved = Position(position.line, column + 2)
    found = _complete(document, retyped, moved, workspace, None, earlier, snippets)
    here = Range(position, position)
    return [
        replace(item, insert="  " + item.insert, replace=here, snippet=None)
        for item in found
        if item.kind is ItemKind.FIELD
    ]


def _below_item_at(above: list[str], column: int) -> bool:
    """The lines above end with a list item whose `- ` is at `column` (and its own lines)."""
    for line in reversed(above):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent >= column + 2:
            continue  # a deeper line of that item
        return indent == column and line[column : column + 2] == "- "
    return False


def _complete(
    document: Document,
    text: str,
    position: Position,
    workspace: Workspace | None,
    trigger: str | None,
    earlier: Document | None,
    snippets: bool,
    tags: Callable[[], Mapping[str, int]] | None = None,
) -> list[Completion]:
    context = cursor_context(text, position, source=document.source, json=is_json(document.path))
    if context is None:
        return []
    if trigger == " " and context.role is Role.KEY and not context.after_dash:
        return []  # a space in the indentation, not a request
    data = document if document.source.root is not None or earlier is None else earlier
    request = _Request(document, data, context, workspace, is_json(document.path), snippets, tags)
    if context.role is Role.KEY:
        return request.keys_or_list_item()
    if context.in_list:
        return request.values(context.frames[:-1], context.frames[-1].step, in_list=True)
    return request.values(context.frames, context.key, in_list=False)


@dataclass(frozen=True)
class _Request:
    document: Document
    data: Document  # where recorded outputs are read
    context: CursorContext
    workspace: Workspace | None
    json: bool
    snippets: bool = False
    tags: Callable[[], Mapping[str, int]] | None = None

    @property
    def kind(self) -> FileKind | None:
        return self.document.kind

    @property
    def custom(self) -> dict[str, CustomCheck]:
        return self.workspace.custom_checks if self.workspace is not None else {}

    def shape(self, frames: tuple[Frame, ...]) -> MappingShape | None:
        return shape_at(self.kind, frames, self.custom)

    # Keys -------------------------------------------------------------------------------

    def keys_or_list_item(self) -> list[Completion]:
        frames = self.context.frames
        shape = self.shape(frames)
        fresh_item = (
            self.context.after_dash
            and len(frames) >= 2
            and frames[-2].keys is None
            and not frames[-1].keys
        )
        if shape is None and fresh_item:
            # `- word` in a list of plain values (toxicity categories): complete the value.
            return self.values(frames[:-2], frames[-2].step, in_list=True)
        return self.keys(shape, frames[-1].keys or {}) if shape is not None else []

    def keys(self, shape: MappingShape, written: Mapping[Any, Any]) -> list[Completion]:
        present = shape.present(written)
        needed = _needed_in(shape)
        items = []
        for index, (name, doc) in enumerate(shape.fields.items()):
            if name in present and name != self.context.prefix:
                continue
            rank = 0 if name == shape.head else 1 if doc.required or name in needed else 2
            items.append(
                Completion(
                    label=name,
                    kind=ItemKind.FIELD,
                    insert=self._key_text(name),
                    replace=self.context.replace,
                    detail=doc.type,
                    documentation=field_markdown(doc, shape.title),
                    sort=f"{rank}{index:03d}",
                )
            )
        return items

    def _key_text(self, name: str) -> str:
        if self.context.colon_follows:
            return name
        if self.json:
            return name if self.context.quoted else f'"{name}": '
        return f" {name}: " if self.context.needs_space else f"{name}: "

    # Values -----------------------------------------------------------------------------

    def values(
        self, owner: tuple[Frame, ...], key: Key | None, *, in_list: bool
    ) -> list[Completion]:
        shape = self.shape(owner)
        if shape is None or not isinstance(key, str):
            return []
        if key == shape.head and shape.family is not None and not in_list:
            return self.kinds(shape)
        if key == "tags" and in_list and self.tags is not None and "tags" in shape.fields:
            return self.workspace_tags()
        doc = shape.field_for(key)
        if doc is None:
            return []
        if doc.jsonpath and not in_list:
            return self.trace_paths(doc, [*self.context.path, key])
        return [
            self._value(choice, ItemKind.VALUE, doc.type, f"`{doc.name}`: {doc.description}", i)
            for i, choice in enumerate(doc.choices)
        ]

    def kinds(self, shape: MappingShape) -> list[Completion]:
        family = shape.family
        assert family is not None
        dataset = self.kind is FileKind.DATASET and shape.head != "type"
        is_check = is_check_family(family)
        items = [
            self._with_snippet(
                self._value(
                    kind, ItemKind.CHECK, summary_of(cls), _kind_doc(kind, cls, dataset), i
                ),
                shape,
                needed_parameters(kind) if is_check else [],
                kind,
            )
            for i, (kind, cls) in enumerate(registered_kinds(family).items())
        ]
        if shape.custom_allowed and is_check:
            for i, (identifier, custom) in enumerate(sorted(self.custom.items())):
                base = check_class(custom.base_kind)
                about = custom.name or custom.description or f"custom {custom.base_kind} check"
                doc = check_markdown(identifier, base, custom=custom) if base else ""
                item = self._value(identifier, ItemKind.CHECK, about, doc, 1000 + i)
                preset = tuple(custom.check_params())
                needed = needed_parameters(custom.base_kind, preset)
                items.append(self._with_snippet(item, shape, needed, custom.base_kind))
        return items

    def _with_snippet(
        self, item: Completion, shape: MappingShape, needed: list[str], kind: str
    ) -> Completion:
        """`kind: equals` + a line per required parameter, each a tab stop (block YAML)."""
        written = self.context.frames[-1].keys if self.context.frames else None
        needed = [n for n in needed if not (written and n in written)]
        if not self.snippets or not needed or self.json or self.context.quoted:
            return item
        line = self.context.line
        head = re.search(rf"(?:^|[\s-]){re.escape(str(shape.head))}:", line)
        if head is None or "{" in line or "[" in line:
            return item
        column = head.start() + (0 if line[head.start()].isalnum() else 1)
        dataset = shape.head == "identifier"
        indent = " " * column
        inner = indent + "  " if dataset else indent
        lines = [escape_snippet(item.insert)]
        if dataset:
            lines.append(f"{indent}params:")
        docs = field_docs(kind)
        for stop, name in enumerate(needed, start=1):
            lines.append(f"{inner}{name}: {_tab_stop(stop, docs.get(name))}")
        return replace(item, snippet="\n".join(lines) + "$0")

    def workspace_tags(self) -> list[Completion]:
        """The workspace's tags, the most used first, each with its count."""
        assert self.tags is not None
        counts = sorted(self.tags().items(), key=lambda pair: (-pair[1], pair[0]))
        items = []
        for index, (tag, count) in enumerate(counts[:200]):
            if self.context.quoted:
                text = tag
            else:
                text = json_string(tag) if self.json else yaml_scalar(tag)
            noun = "scenario" if count == 1 else "scenarios"
            value = self._value(text, ItemKind.VALUE, f"{count} {noun}", "", index)
            items.append(replace(value, label=tag))
        return items

    def _value(self, value: str, kind: ItemKind, detail: str, doc: str, index: int) -> Completion:
        insert = f" {value}" if self.context.needs_space else value
        return Completion(
            label=value,
            kind=kind,
            insert=insert,
            replace=self.context.replace,
            detail=detail,
            documentation=doc,
            sort=f"{index:04d}",
        )

    # trace. paths -----------------------------------------------------------------------

    def trace_paths(self, doc: FieldDoc, path: list[Key]) -> list[Completion]:
        prefix = self.context.prefix
        cut = prefix.rfind(".")
        if cut < 0:
            return self._path_starts(doc)
        steps = parse_steps(prefix[:cut])
        if steps is None:
            return []
        recorded = recorded_at(self.data, path, self.workspace)
        line, pos = self.context.line, self.context.position
        start = self.context.replace.start.character + cut + 1
        end = pos.character + len(_NAME_TAIL.match(line, pos.character).group())  # type: ignore[union-attr]
        span = Range(Position(pos.line, start), Position(pos.line, max(end, start)))
        return [
            Completion(
                label=key.name,
                kind=ItemKind.PATH,
                insert=format_name(key.name),
                replace=span,
                detail=key.detail,
                documentation=key.documentation,
                sort=f"{i:04d}",
            )
            for i, key in enumerate(next_keys(steps, recorded, self._captures()))
        ]

    def _captures(self) -> bool:
        """The workspace's runs capture spans (`capture: otel`): its keys are offered."""
        return self.workspace is not None and self.workspace.config.capture == "otel"

    def _path_starts(self, doc: FieldDoc) -> list[Completion]:
        starts = [f"{ROOT}."]
        default = (doc.default or "").strip('"')
        if default.startswith(f"{ROOT}."):
            starts.append(default)
        return [
            self._value(text, ItemKind.PATH, "JSONPath into the trace", doc.description, i)
            for i, text in enumerate(starts)
        ]


def _needed_in(shape: MappingShape) -> list[str]:
    """The parameters the check a mapping names cannot do without (ranked first)."""
    if shape.custom is not None:
        return needed_parameters(shape.custom.base_kind, tuple(shape.custom.check_params()))
    kind = kind_of(shape.check)
    return needed_parameters(kind) if kind is not None else []


@lru_cache(maxsize=256)
def _kind_doc(kind: str, cls: type[BaseModel], dataset: bool) -> str:
    return check_markdown(kind, cls, dataset=dataset, summary=False)  # the detail says it


def escape_snippet(text: str) -> str:
    """Literal text inside an LSP snippet."""
    return text.replace("\\", "\\\\").replace("$", "\\$").replace("}", "\\}")


def _tab_stop(number: int, doc: FieldDoc | None) -> str:
    if doc is not None and len(doc.choices) > 1:
        escaped = [
            c.replace("\\", "\\\\").replace(",", "\\,").replace("|", "\\|") for c in doc.choices
        ]
        return f"${{{number}|{','.join(escaped)}|}}"
    return f"${{{number}:{escape_snippet(placeholder(doc))}}}"
