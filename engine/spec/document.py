"""The located document: spec text in, runnable scenarios + located problems out.

One pure function, `analyze`, serves the CLI and the language server, so they can
never disagree. It never imports user code and never touches the network: targets
are checked for shape only, `fn` references are not imported, LLM checks are not run.
Each scenario is analysed on its own, so one bad check never hides the others, and
results are cached by the scenario's text (a one-line edit re-analyses one scenario).
This module reads what a file holds by its kind (a scenario file, a suite's or dataset's
own fields, JSON Lines rows); scenario_analysis.py and check_analysis.py do the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache
from typing import TYPE_CHECKING

from ..catalog import SCHEMA_KEY
from ..core.gcpause import gc_paused
from .cancel import checkpoint
from .check_analysis import Context
from .config_analysis import config_of
from .fields import as_list, as_string, is_mapping, keys_of, tags_of, target_of, unknown_keys
from .json_rows import fold, fold_inside
from .kinds import FileKind, is_json, is_jsonl, kind_from_name, kind_from_schema
from .lines import LineIndex, LinesView, index_of
from .locate import start_of
from .problems import Problem, Severity, internal_error, shown_problems
from .scenario_analysis import EntryReader, ScenarioEntry, Schemas, scenario_entry
from .source import Row, parse_source, read_jsonl_row, too_large
from .tree import Node, Source
from .workspace import Workspace
from .workspace_config import WorkspaceConfig
from .yaml_traps import comment_hints

if TYPE_CHECKING:  # a suite's or dataset's layout is made when one is read (layouts.py)
    from .layouts import Layout, RowsLayout


# A suite's and a dataset's own keys: their models load with the first such file (a
# scenario file's validation, checkspec validate's start-up, loads neither).
@cache
def _suite_keys() -> frozenset[str]:
    from .suite_file import SuiteFile

    return keys_of(SuiteFile) | {SCHEMA_KEY}


@cache
def _dataset_keys() -> frozenset[str]:
    from .datasets import DatasetFile

    return keys_of(DatasetFile) | {SCHEMA_KEY}


@dataclass
class Document:
    """Everything known about one spec file."""

    path: str
    kind: FileKind | None
    source: Source
    problems: list[Problem] = field(default_factory=list)
    scenarios: list[ScenarioEntry] = field(default_factory=list)
    config: WorkspaceConfig | None = None
    # An unexpected error while analysing (a bug): the document then holds one problem
    # saying so, and front ends may log this for a bug report.
    failure: Exception | None = None
    # How a suite's or dataset's list of scenarios lies in the text, so that an edit can
    # re-read only the scenarios it touches (engine/spec/incremental.py).
    layout: Layout | RowsLayout | None = field(default=None, repr=False, compare=False)
    # The scenarios that have problems (found on first need; kept up by re-reads).
    problem_entries: list[ScenarioEntry] | None = field(default=None, repr=False, compare=False)

    def every_problem(self) -> list[Problem]:
        """Every problem found, in no particular order (may be very many)."""
        found = list(self.problems)
        if self.problem_entries is None:
            self.problem_entries = [entry for entry in self.scenarios if entry.read_problems]
        for entry in self.problem_entries:
            found.extend(entry.problems)
        return found

    @property
    def all_problems(self) -> list[Problem]:
        """The problems to show, in document order: at most MAX_PROBLEMS, then a summary.

        A file with a million bad items must not flood the editor or the terminal; the
        summary sits at the first problem left out and is an error if any of them is.
        """
        return shown_problems(self.every_problem())

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.all_problems if p.severity is Severity.ERROR]


def analyze(
    text: str,
    path: str,
    workspace: Workspace | None = None,
    *,
    kind: FileKind | None = None,
    keep: bool = True,
) -> Document:
    """Analyse spec text. `path` decides the file kind and JSON vs YAML. Never raises.

    With `keep` (a run) each valid scenario's runnable form is made now; without it
    (validation, the editor) when first asked for, and not kept by the analysis."""
    try:
        with gc_paused():  # bulk acyclic allocation: see gcpause.py
            return _analyze(text, path, workspace or Workspace(), kind, keep)
    except Exception as exc:  # a bug: say so at the file, never a traceback or silence
        source = Source(None, [], text)
        kind = kind or kind_from_name(path)
        return Document(path, kind, source, problems=[internal_error(exc)], failure=exc)


def _analyze(
    text: str, path: str, workspace: Workspace, kind: FileKind | None, keep: bool
) -> Document:
    max_bytes = workspace.config.size_limit(path)[0]
    asked, kind = kind, kind or kind_from_name(path)
    if is_jsonl(path):
        return _analyze_jsonl(text, path, workspace, max_bytes, asked, keep)
    source = parse_source(text, json=is_json(path), max_bytes=max_bytes)
    doc = Document(path=path, kind=kind, source=source, problems=list(source.problems))
    root = source.root
    if root is None:
        return doc
    if doc.kind is None and root.kind == "mapping":
        doc.kind = kind_from_schema(root.value.get(SCHEMA_KEY))
    if doc.kind is None:
        doc.problems.append(
            Problem(
                "unknown-file-kind",
                "cannot tell the kind of this file: name it *.scenario.yaml, *.suite.yaml, "
                "*.dataset.yaml or checkspec.yaml, or add a top-level $schema",
                start_of(root),
            )
        )
        return doc
    ctx = Context(
        index=source.lines,
        custom=workspace.custom_checks,
        dataset=doc.kind is FileKind.DATASET,
        target=workspace.config.target,
        keep=keep,
    )
    if doc.kind in (FileKind.SUITE, FileKind.DATASET) and root.kind == "mapping":
        _list_file(root, ctx, doc, workspace, asked)
        return doc
    doc.problems.extend(comment_hints(source))
    if doc.kind is FileKind.CONFIG:
        doc.config, problems = config_of(root)
        doc.problems.extend(problems)
    elif not is_mapping(root, f"a {doc.kind.value} file", doc.problems):
        pass
    else:
        doc.scenarios.append(scenario_entry(root, ctx, 0, file_level=True))
    return doc


def _list_file(
    root: Node, ctx: Context, doc: Document, workspace: Workspace, kind: FileKind | None
) -> None:
    """A suite or dataset: its own fields, then each scenario (the top-level list)."""
    source = doc.source
    frame_problems: list[Problem] = []
    if doc.kind is FileKind.SUITE:
        read = _suite_frame(root, ctx, frame_problems)
    else:
        read = _dataset_frame(root, ctx, frame_problems)
    items = as_list(root.get("scenarios"), "scenarios", frame_problems)
    for index, node in enumerate(items):
        doc.scenarios.append(read(node, index, ctx.index))
    from .layouts import Layout

    layout = Layout.of(source, doc.path, read, frame_problems, workspace, kind)
    if layout is None:
        doc.problems.extend(comment_hints(source))
        doc.problems.extend(frame_problems)
    else:
        doc.layout = layout
        doc.problems = layout.problems()


def _suite_frame(root: Node, ctx: Context, problems: list[Problem]) -> EntryReader:
    """Check what a suite holds besides its scenarios; how to read one of them."""
    problems.extend(unknown_keys(root, _suite_keys(), "a suite"))
    if root.get("name") is None:
        problems.append(Problem("missing-parameter", "a suite needs a 'name'", start_of(root)))
    target = target_of(root.get("target"), problems) or ctx.target
    tags = tuple(tags_of(root.get("tags"), problems))
    if root.get("scenarios") is None:
        problems.append(Problem("missing-parameter", "a suite needs 'scenarios'", start_of(root)))
    return EntryReader(replace(ctx, target=target, tags=tags))


def _dataset_frame(root: Node, ctx: Context, problems: list[Problem]) -> EntryReader:
    """Check what a dataset holds besides its scenarios; how to read one of them."""
    from .datasets import CHAT_INPUT_SCHEMA, CHAT_OUTPUT_SCHEMA
    from .schema_checks import SchemaCheck

    problems.extend(unknown_keys(root, _dataset_keys(), "a dataset"))
    target = target_of(root.get("target"), problems) or ctx.target
    tags = tuple(tags_of(root.get("tags"), problems))
    schemas = Schemas(
        SchemaCheck.of(root, "input_schema", CHAT_INPUT_SCHEMA, problems),
        SchemaCheck.of(root, "output_schema", CHAT_OUTPUT_SCHEMA, problems),
    )
    name = as_string(root.get("name"), "name", problems) or "dataset"
    if root.get("name") is None:
        problems.append(Problem("missing-parameter", "a dataset needs a 'name'", start_of(root)))
    if root.get("scenarios") is None:
        problems.append(Problem("missing-parameter", "a dataset needs 'scenarios'", start_of(root)))
    return EntryReader(replace(ctx, target=target, tags=tags), schemas, name)


def read_row_entry(read: EntryReader, root: Node, index: int, lines: LineIndex) -> ScenarioEntry:
    """The analysis of one JSON Lines row; a row without a problem lets its nodes go
    (json_rows.fold): they are read again from its line when asked for."""
    entry = read(root, index, lines)
    if not entry.read_problems:
        for check in entry.checks:  # a dataset check sits at interactions[step].checks[index]
            path = ("interactions", check.step, "checks", check.index)
            check.node = fold_inside(root, check.node, path)
        fold(root)
    return entry


def _analyze_jsonl(
    text: str,
    path: str,
    workspace: Workspace,
    max_bytes: int,
    kind: FileKind | None,
    keep: bool,
) -> Document:
    """A JSON Lines dataset, row by row: each row under the limits of one row.

    A row over them (or not JSON) is a problem at its line, and the others are analysed:
    the file has no aliases and no anchors, so no row can make another one bigger.
    """
    source = parse_source("", json=True)
    refused = too_large(text, max_bytes, "max_dataset_file_size")
    if refused is not None:
        return Document(
            path=path,
            kind=FileKind.DATASET,
            source=Source(None, [refused], text),
            problems=[refused],
        )
    size = len(text.encode("utf-8", "replace"))
    rows: list[Row] = []
    problems: list[Problem] = []
    index = index_of(text)
    doc = Document(path=path, kind=FileKind.DATASET, source=source, problems=problems)
    ctx = Context(
        index=index,
        custom=workspace.custom_checks,
        dataset=True,
        target=workspace.config.target,
        keep=keep,
    )
    from .datasets import CHAT_INPUT_SCHEMA, CHAT_OUTPUT_SCHEMA
    from .layouts import RowsLayout, workspace_key
    from .schema_checks import SchemaCheck

    late: list[Problem] = []  # the schemas' own (a timeout), after every row's
    schemas = Schemas(
        SchemaCheck("input_schema", CHAT_INPUT_SCHEMA, None, late),
        SchemaCheck("output_schema", CHAT_OUTPUT_SCHEMA, None, late),
    )
    read = EntryReader(ctx, schemas, "line")
    # Each row analysed as soon as read, so that its nodes go before the next row's come.
    for number, line in enumerate(LinesView(index)):
        if not line.strip():
            continue
        checkpoint()  # the language server may stop a superseded analysis here (cancel.py)
        row = read_jsonl_row(line, number)
        problems.extend(row.problems)
        rows.append(row)
        if row.root is not None:
            doc.scenarios.append(read_row_entry(read, row.root, len(doc.scenarios), index))
    problems.extend(late)
    if not read.stopped:
        doc.layout = RowsLayout(
            text=text,
            index=index,
            kind=kind,
            workspace_key=workspace_key(workspace),
            rows=rows,
            read=read,
            nodes=sum(row.nodes for row in rows),
            size=size,
        )
    return doc
