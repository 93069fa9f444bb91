"""The located document: spec text in, runnable scenarios + located problems out.

One pure function, `analyze`, serves the CLI and the language server, so they can
never disagree. It never imports user code and never touches the network: targets
are checked for shape only, `fn` references are not imported, LLM checks are not run.
Each scenario is analysed on its own, so one bad check never hides the others, and
results are cached by the scenario's text (a one-line edit re-analyses one scenario).
"""

from __future__ import annotations

import hashlib
import heapq
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache, partial
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from ..catalog import SCHEMA_KEY, field_named, fields_of, jsonpath_fields
from ..core.check import _LINT_LATER, Check, did_you_mean, lint_later
from ..core.gcpause import gc_paused
from ..core.jsonpath import JSONPathError, compile_path
from ..core.sentinel import MISSING
from ..interactions import Interact, InteractionSpec
from ..scenario import Scenario, Step
from ..targets import describe_target_problem
from .datasets import (
    CHAT_INPUT_SCHEMA,
    CHAT_OUTPUT_SCHEMA,
    DatasetCheck,
    DatasetFile,
    DatasetInteraction,
    DatasetScenario,
    record_name,
)
from .event_reader import too_many_message
from .kinds import CONFIG_NAME, FileKind, is_json, is_jsonl, kind_from_name, kind_from_schema
from .lines import LineIndex, LinesView, index_of
from .locate import (
    head_range,
    issue_problem,
    misnamed,
    problems_from_validation,
    start_of,
    warning,
)
from .problems import Position, Problem, Range, Severity, TextEdit
from .replay_paths import replay_path_problems, selector_paths
from .schema_checks import SchemaCheck
from .source import MAX_NODES, Row, parse_jsonl_row, parse_source
from .suite_file import SuiteFile
from .tree import FIXED, Node, Shift, Source
from .workspace import CUSTOM_PREFIX, CustomCheck, Workspace, WorkspaceConfig
from .yaml_traps import comma_hint, comment_hints, hints_for


def _keys(model: type[BaseModel]) -> frozenset[str]:
    """Every key a mapping of this model may hold (from the catalog, with every spelling)."""
    return frozenset(s for spec in fields_of(model).values() for s in spec.spellings)


_SCENARIO_KEYS = _keys(Scenario)
_STEP_KEYS = _keys(Step)
_SUITE_KEYS = _keys(SuiteFile) | {SCHEMA_KEY}
_DATASET_KEYS = _keys(DatasetFile) | {SCHEMA_KEY}
_RECORD_KEYS = _keys(DatasetScenario)
_INTERACTION_KEYS = _keys(DatasetInteraction)
_DATASET_CHECK_KEYS = _keys(DatasetCheck)
_TRACE_FIELDS = {"trace": ("interactions", "last", "annotations")}
_INTERACTION_FIELDS = ("inputs", "outputs", "metadata")


def moved(rng: Range, lines: int) -> Range:
    """`rng` `lines` lines further down."""
    (sl, sc), (el, ec) = rng
    return Range(Position(sl + lines, sc), Position(el + lines, ec))


def moved_problem(problem: Problem, lines: int) -> Problem:
    if not lines:
        return problem
    fix = tuple(replace(e, range=moved(e.range, lines)) for e in problem.fix)
    return replace(problem, range=moved(problem.range, lines), fix=fix)


@dataclass
class CheckEntry:
    """A top-level check of a step, where it is written.

    Ranges found while analysing are kept as they were then (`read_head`, with the line
    shift of the scenario's nodes at that time in `base`) and moved with the nodes: an
    edit above the scenario moves it without analysing it again.
    """

    step: int
    index: int
    kind: str
    node: Node
    read_head: Range
    base: int = 0

    @property
    def head(self) -> Range:
        """The `kind:` / `identifier:` value: where results are shown."""
        lines = self.node._cell.lines - self.base
        return moved(self.read_head, lines) if lines else self.read_head


@dataclass
class ScenarioEntry:
    """One scenario of a file: its runnable form (None when invalid) and its checks.

    Like CheckEntry, its problems are kept as found and moved with its nodes on reading.
    """

    index: int
    name: str
    node: Node
    built: Scenario | None = None  # see `scenario`
    checks: list[CheckEntry] = field(default_factory=list)
    read_problems: list[Problem] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    base: int = 0
    # Whether the name was made from the index (`scenario 3`): moving it re-analyses it.
    named_by_index: bool = False
    # Makes the runnable form when it is first asked for (see `keep_scenarios`).
    rebuild: Callable[[], Scenario | None] | None = field(default=None, repr=False, compare=False)

    @property
    def scenario(self) -> Scenario | None:
        """The runnable scenario, None when the scenario has errors."""
        if self.built is None and self.rebuild is not None:
            self.built, self.rebuild = self.rebuild(), None
        return self.built

    @scenario.setter
    def scenario(self, scenario: Scenario | None) -> None:
        self.built, self.rebuild = scenario, None

    @property
    def problems(self) -> list[Problem]:
        if not self.read_problems:
            return self.read_problems
        lines = self.node._cell.lines - self.base
        if not lines:
            return self.read_problems
        return [moved_problem(p, lines) for p in self.read_problems]

    @problems.setter
    def problems(self, problems: list[Problem]) -> None:
        self.read_problems, self.base = problems, self.node._cell.lines

    @property
    def range(self) -> Range:
        return self.node.range

    @property
    def head(self) -> Range:
        name = self.node.get("name") if self.node.kind == "mapping" else None
        return name.range if name is not None else start_of(self.node)

    def check_at(self, step: int, index: int) -> CheckEntry | None:
        for entry in self.checks:
            if entry.step == step and entry.index == index:
                return entry
        return None


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


MAX_PROBLEMS = 1000


def _where(problem: Problem) -> tuple[int, int]:
    return problem.range.start.line, problem.range.start.character


def shown_problems(problems: list[Problem], limit: int = MAX_PROBLEMS) -> list[Problem]:
    """`problems` in document order, cut to `limit` plus one "... and N more" problem."""
    if len(problems) <= limit:
        return sorted(problems, key=_where)
    first = heapq.nsmallest(limit + 1, problems, key=_where)
    shown = first[:limit]
    left_out = Counter(p.severity for p in problems)
    left_out.subtract(p.severity for p in shown)
    severity = next(s for s in Severity if left_out[s] > 0)  # the worst one left out
    hidden = len(problems) - limit
    message = f"… and {hidden:,} more problems in this file (the first {limit:,} are shown)"
    return [*shown, Problem("more-problems", message, first[limit].range, severity)]


@dataclass(frozen=True)
class _Context:
    index: LineIndex
    custom: dict[str, CustomCheck]
    dataset: bool
    target: str | None
    tags: tuple[str, ...] = ()
    # What a scenario's analysis depends on besides its own text (made once).
    fingerprint: tuple[Any, ...] = field(init=False, compare=False)
    # Checks looked up by their text, and found (see `_check_problems`).
    reuse: list[int] = field(default_factory=lambda: [0, 0], compare=False)

    def __post_init__(self) -> None:
        custom = tuple(sorted((k, v.model_dump_json()) for k, v in self.custom.items()))
        object.__setattr__(self, "fingerprint", (self.dataset, self.target, self.tags, custom))

    def without_lines(self) -> _Context:
        """This context without its text's line index, for a rebuild kept for later (so it
        does not keep the text alive); made once per context, not once per scenario."""
        found: _Context | None = self.__dict__.get("_without_lines")
        if found is None:
            found = replace(self, index=_NO_LINES)
            object.__setattr__(self, "_without_lines", found)
        return found

    @property
    def lines(self) -> LinesView:
        return LinesView(self.index)


def analyze(
    text: str,
    path: str,
    workspace: Workspace | None = None,
    *,
    kind: FileKind | None = None,
) -> Document:
    """Analyse spec text. `path` decides the file kind and JSON vs YAML. Never raises."""
    try:
        with gc_paused():  # bulk acyclic allocation: see gcpause.py
            return _analyze(text, path, workspace or Workspace(), kind)
    except Exception as exc:  # a bug: say so at the file, never a traceback or silence
        message = (
            f"checkspec could not analyse this file ({type(exc).__name__}: {exc}); "
            "this is a bug, please report it"
        )
        problem = Problem("internal-error", message, Range.point(0, 0))
        source = Source(None, [], text)
        kind = kind or kind_from_name(path)
        return Document(path, kind, source, problems=[problem], failure=exc)


def _analyze(text: str, path: str, workspace: Workspace, kind: FileKind | None) -> Document:
    max_bytes = workspace.config.max_file_size
    asked, kind = kind, kind or kind_from_name(path)
    if is_jsonl(path):
        return _analyze_jsonl(text, path, workspace, max_bytes, asked)
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
    ctx = _Context(
        index=source.lines,
        custom=workspace.custom_checks,
        dataset=doc.kind is FileKind.DATASET,
        target=workspace.config.target,
    )
    if doc.kind in (FileKind.SUITE, FileKind.DATASET) and root.kind == "mapping":
        _list_file(root, ctx, doc, workspace, asked)
        return doc
    doc.problems.extend(comment_hints(source))
    if doc.kind is FileKind.CONFIG:
        doc.config, problems = _config(root)
        doc.problems.extend(problems)
    elif not _is_mapping(root, doc, f"a {doc.kind.value} file"):
        pass
    else:
        doc.scenarios.append(_scenario(root, ctx, 0, file_level=True))
    return doc


def analyze_config(text: str) -> tuple[WorkspaceConfig, list[Problem]]:
    """checkspec.yaml text -> its config (defaults where invalid) and located problems."""
    document = analyze(text, CONFIG_NAME, kind=FileKind.CONFIG)
    return document.config or WorkspaceConfig(), document.all_problems


# ---------------------------------------------------------------------------------
# Shared helpers


def _is_mapping(node: Node, doc: Document | None, what: str, into: list[Problem] | None = None):
    if node.kind == "mapping":
        return True
    problem = Problem("invalid-structure", f"{what} must be a mapping", node.range)
    (into if into is not None else doc.problems if doc else []).append(problem)
    return False


def _unknown_keys(node: Node, allowed: frozenset[str], what: str) -> list[Problem]:
    problems: list[Problem] = []
    for key, _value in node.entries:
        if key.value not in allowed:
            names = sorted(k for k in allowed if k != SCHEMA_KEY)
            message = f"unknown field '{key.value}' in {what}{comma_hint(node, key)}"
            problems.append(misnamed("unknown-field", message, str(key.value), names, key.range))
    return problems


def _list(node: Node | None, what: str, problems: list[Problem]) -> Sequence[Node]:
    if node is None or node.value is None:
        return []
    if node.kind != "sequence":
        problems.append(Problem("invalid-structure", f"{what} must be a list", node.range))
        return []
    return node.items


def _string(node: Node | None, what: str, problems: list[Problem]) -> str | None:
    if node is None or node.value is None:
        return None
    if not isinstance(node.value, str):
        problems.append(Problem("invalid-value", f"{what} must be a string", node.range))
        return None
    return node.value


def _tags(node: Node | None, problems: list[Problem]) -> list[str]:
    tags: list[str] = []
    for item in _list(node, "tags", problems):
        if isinstance(item.value, str):
            tags.append(item.value)
        else:
            problems.append(Problem("invalid-value", "a tag must be a string", item.range))
    return tags


def _target(node: Node | None, problems: list[Problem]) -> str | None:
    target = _string(node, "target", problems)
    if target is not None and node is not None and (why := describe_target_problem(target)):
        problems.append(Problem("bad-target", why, node.range))
    return target


def _has_errors(problems: list[Problem]) -> bool:
    return any(p.severity is Severity.ERROR for p in problems)


# ---------------------------------------------------------------------------------
# Checks


def _check(node: Node, ctx: _Context) -> tuple[Check | None, list[Problem], str, Range]:
    """Validate one check written as `{kind: ...}` or, in datasets, `{identifier, params}`."""
    problems: list[Problem] = []
    if node.kind != "mapping":
        problems.append(Problem("invalid-structure", "a check must be a mapping", node.range))
        return None, problems, "?", node.range
    if ctx.dataset and "kind" not in node.value:
        head_key, params = "identifier", node.get("params")
        problems.extend(_unknown_keys(node, _DATASET_CHECK_KEYS, "a dataset check"))
        if params is not None and params.kind != "mapping" and params.value is not None:
            problems.append(Problem("invalid-structure", "params must be a mapping", params.range))
            return None, problems, "?", params.range
        given = dict(params.value) if params is not None and params.value else {}
        base = params if params is not None and params.kind == "mapping" else node
    else:
        head_key, params = "kind", node
        given = {k: v for k, v in node.value.items() if k != "kind"}
        base = node
    head = head_range(node, head_key)
    identifier = node.value.get(head_key)
    if not isinstance(identifier, str):
        problems.append(
            Problem(
                "missing-parameter",
                f"a check needs '{head_key}' naming the check (e.g. string_matching)",
                head,
            )
        )
        return None, problems, "?", head
    resolved_kind, merged, custom_problem = _resolve_identifier(identifier, given, ctx, head)
    if custom_problem is not None:
        problems.append(custom_problem)
        return None, problems, identifier, head
    cls: type[Check] | None = Check.kind_class(resolved_kind)
    if cls is None:
        message = f"unknown check '{resolved_kind}'"
        problems.append(misnamed("unknown-kind", message, resolved_kind, Check.registry(), head))
        return None, problems, identifier, head
    if ctx.dataset:
        merged = _with_dataset_defaults(cls, merged)
    if _deprecated_spellings(cls):
        problems.extend(_deprecated_aliases(base, cls))
    token = _LINT_LATER.set(True)  # what `lint_later()` does, without a context manager
    try:
        check: Check = Check.model_validate({"kind": resolved_kind, **merged})
    except ValidationError as exc:
        problems.extend(
            problems_from_validation(exc, base, head=head, model=cls, what=resolved_kind)
        )
        return None, problems, identifier, head
    finally:
        _LINT_LATER.reset(token)
    problems.extend(_lint(check, base, head, ctx))
    return check, problems, identifier, head


# Checks as found, by their text (see `_check_problems`): problems, kind name, head range
# and the line they were found on.
_CHECKS: dict[tuple[Any, ...], tuple[tuple[Problem, ...], str, Range, int, tuple[str, ...]]] = {}
_CHECKS_LIMIT = 20_000
_CHECK_TEXT_KEPT = 256  # longer texts are kept as a digest
# Lookups after which an analysis stops looking checks up if under a tenth were found.
REUSE_TRIAL = 1000


def _text_of(node: Node, ctx: _Context) -> str:
    """The text a node was read from (the key of the analyses reused by text)."""
    return ctx.index.cut(node.line, node._sc, node.end_line, node._ec)


def _check_problems(node: Node, ctx: _Context) -> tuple[list[Problem], str, Range, tuple[str, ...]]:
    """`_check` without the check itself, reusing what the same text gave before.

    Suites repeat checks (the same `json_valid` on every answer); validating each costs
    far more than reading it back. The same text at the same column of the same context
    reads the same, so its problems are the same a few lines further on. Not for a check
    in an entry holding an alias: its values may come from elsewhere.
    """
    line = node.line
    counts = ctx.reuse
    if node._cell.aliased or (counts[0] >= REUSE_TRIAL and counts[1] * 10 < counts[0]):
        key = None  # an alias; or a file whose checks hardly repeat: looking costs more
    else:
        counts[0] += 1
        text = _text_of(node, ctx)
        kept: str | bytes = text
        if len(text) > _CHECK_TEXT_KEPT:  # a long rubric: not a second copy of it
            kept = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        key = (kept, node._sc, ctx.fingerprint)
        found = _CHECKS.get(key)
        if found is not None:
            counts[1] += 1
            problems, kind, head, at, paths = found
            delta = line - at
            moved_problems = [moved_problem(p, delta) for p in problems]
            return moved_problems, kind, moved(head, delta), paths
    _, problems_list, kind, head = _check(node, ctx)
    paths = selector_paths(node, ctx.dataset)
    if key is not None:
        if len(_CHECKS) >= _CHECKS_LIMIT:
            _CHECKS.clear()
        _CHECKS[key] = (tuple(problems_list), kind, head, line, paths)
    return problems_list, kind, head, paths


def _resolve_identifier(
    identifier: str, given: dict[str, Any], ctx: _Context, head: Range
) -> tuple[str, dict[str, Any], Problem | None]:
    if not identifier.startswith(CUSTOM_PREFIX):
        return identifier, given, None
    custom = ctx.custom.get(identifier)
    if custom is None:
        known = ", ".join(sorted(ctx.custom)) or "none are defined"
        problem = misnamed(
            "unknown-custom-check",
            f"unknown custom check '{identifier}'",
            identifier,
            ctx.custom,
            head,
        )
        if not problem.fix:
            problem = replace(problem, message=f"{problem.message} (checkspec.yaml: {known})")
        return identifier, given, problem
    return custom.base_kind, {**custom.check_params(), **given}, None


def _with_dataset_defaults(cls: type[Check], params: dict[str, Any]) -> dict[str, Any]:
    merged = dict(params)
    for name, value in cls.dataset_defaults().items():
        if not any(spelling in params for spelling in _spellings(cls, name)):
            merged[name] = value
    return merged


def _spellings(cls: type[Check], name: str) -> set[str]:
    """Every key a parameter may be written under (its name, aliases, deprecated names)."""
    spec = field_named(cls, name)
    return {name, *spec.spellings} if spec is not None else {name}


@cache
def _deprecated_spellings(cls: type[Check]) -> tuple[tuple[str, str, str], ...]:
    """(deprecated key, canonical key, message) of a check class, from the catalog."""
    return tuple(
        (old, spec.name, spec.deprecation_message(old))
        for spec in fields_of(cls).values()
        for old in spec.deprecated
    )


def _deprecated_aliases(node: Node, cls: type[Check]) -> list[Problem]:
    """Deprecated names (`key` / `text_key` for `target_key`) still work, but say so,
    with a rename fix."""
    deprecated = _deprecated_spellings(cls)
    if not deprecated or node.kind != "mapping":
        return []
    problems = []
    value = node.value
    for old, name, message in deprecated:
        if old not in value:  # the usual case, without a lookup of the key's node
            continue
        key = node.key_node(old)
        if key is not None:
            problems.append(
                warning(
                    "deprecated-alias",
                    message,
                    key.range,
                    fix=(TextEdit(key.range, name),),
                    fix_title=f"Rename to '{name}'",
                )
            )
    return problems


def _lint(check: Check, node: Node, head: Range, ctx: _Context) -> list[Problem]:
    """The check's own static issues, trace-path sanity, then its nested checks."""
    issues = check.lint()
    problems = [issue_problem(i, node, head, ctx.lines) for i in issues] if issues else []
    selectors, others = _lint_fields(type(check))
    for name in selectors:
        value = getattr(check, name)
        if isinstance(value, str):
            value_node = _field_node(node, type(check), name)
            if value_node is not None:
                problems.extend(_trace_path_problems(value, value_node))
    for name in others:
        value = getattr(check, name)
        if not isinstance(value, (Check, list)) or not value:
            continue
        for child, child_node in _nested(value, node.get(name) if node.kind == "mapping" else None):
            child_head = head_range(child_node, "kind") if child_node else head
            problems.extend(_deprecated_aliases(child_node, type(child)) if child_node else [])
            problems.extend(_lint(child, child_node or node, child_head, ctx))
    return problems


_LINT_FIELDS: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _lint_fields(cls: type[Check]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A check class's JSONPath fields (as the catalog marks them) and the fields that may
    hold nested checks, worked out once."""
    found = _LINT_FIELDS.get(cls)
    if found is None:
        fields = cls.__pydantic_fields__
        selectors = jsonpath_fields(cls)
        nesting = tuple(n for n, f in fields.items() if _may_hold_checks(f.annotation))
        found = _LINT_FIELDS[cls] = (selectors, nesting)
    return found


def _may_hold_checks(annotation: Any) -> bool:
    """Whether a field typed `annotation` may hold a check or a list of checks."""
    if isinstance(annotation, type):
        return issubclass(annotation, Check)
    return any(_may_hold_checks(arg) for arg in get_args(annotation))


def _field_node(node: Node, cls: type[Check], name: str) -> Node | None:
    """The value node of a parameter, also when written under an alias or deprecated name."""
    if node.kind != "mapping":
        return None
    value = node.value
    for spelling in _field_spellings(cls, name):
        if spelling in value:
            found = node.get(spelling)
            if found is not None:
                return found
    return None


_FIELD_SPELLINGS: dict[tuple[type, str], tuple[str, ...]] = {}


def _field_spellings(cls: type[Check], name: str) -> tuple[str, ...]:
    """The keys a parameter may be written under, in the catalog's order (once per class)."""
    found = _FIELD_SPELLINGS.get((cls, name))
    if found is None:
        spec = field_named(cls, name)
        found = _FIELD_SPELLINGS[(cls, name)] = (
            tuple(spec.spellings) if spec is not None else (name,)
        )
    return found


def _nested(value: Any, node: Node | None) -> list[tuple[Check, Node | None]]:
    if isinstance(value, Check):
        return [(value, node)]
    if isinstance(value, list) and value and all(isinstance(v, Check) for v in value):
        items = node.items if node is not None and node.kind == "sequence" else []
        return [(v, items[i] if i < len(items) else None) for i, v in enumerate(value)]
    return []


def _trace_path_problems(path: str, node: Node) -> list[Problem]:
    """Warn when a selector names a trace field that does not exist (`outputz`)."""
    message = _trace_path_message(path)
    return [] if message is None else [warning("unknown-trace-field", message, node.range)]


@lru_cache(maxsize=4096)
def _trace_path_message(path: str) -> str | None:
    try:
        steps = compile_path(path).steps
    except JSONPathError:
        return None
    if not steps:
        return None
    names: list[str] = []
    expected: tuple[str, ...] = _TRACE_FIELDS["trace"]
    for position, (kind, arg) in enumerate(steps):
        if kind == "index":
            if names and names[-1] == "interactions":
                expected = _INTERACTION_FIELDS
            continue
        if expected and arg not in expected:
            hint = did_you_mean(str(arg), expected)
            where = "trace" if position == 0 else ".".join(["trace", *names])
            return f"{where} has no field '{arg}' (it has {', '.join(expected)})" + (
                f"; did you mean '{hint}'?" if hint else ""
            )
        names.append(str(arg))
        if arg == "last":
            expected = _INTERACTION_FIELDS
        elif arg in ("inputs", "outputs", "metadata", "annotations"):
            break  # user data from here on: anything goes
        else:
            expected = ()
    return None


# ---------------------------------------------------------------------------------
# Scenarios and suites

_CACHE: dict[tuple[Any, ...], ScenarioEntry] = {}
_CACHE_LIMIT = 20_000


def _scenario(node: Node, ctx: _Context, index: int, *, file_level: bool = False) -> ScenarioEntry:
    """One scenario, cached by its text (and the context it depends on).

    Not when it holds an alias: its values then come from an anchor elsewhere, which may
    have changed while its own text did not.
    """
    if node._cell.aliased:
        return _analyze_scenario(node, ctx, index, file_level)
    text = _text_of(node, ctx).encode("utf-8", "surrogatepass")
    name = node.value.get("name") if node.kind == "mapping" else None
    named = isinstance(name, str) and bool(name)
    # A scenario without a name is named after its place, which is then part of the key.
    # The text is kept as a digest: the cache must not hold a second copy of every file.
    digest = hashlib.blake2b(text, digest_size=16).digest()
    key = (digest, node._sc, ctx.fingerprint, file_level, None if named else index)
    cached = _CACHE.get(key)
    if cached is not None:
        entry = _shifted(cached, node, index)
    else:
        entry = _analyze_scenario(node, ctx, index, file_level)
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
    # The newest copy is kept, so the cache never holds on to the nodes of an older text.
    _CACHE[key] = entry
    return entry


def _analyze_scenario(
    node: Node, ctx: _Context, index: int, file_level: bool, keep: bool = False
) -> ScenarioEntry:
    problems: list[Problem] = []
    name_node = node.get("name") if node.kind == "mapping" else None
    fallback = f"scenario {index + 1}"
    entry = ScenarioEntry(index=index, name=fallback, node=node, named_by_index=True)
    if not _is_mapping(node, None, "a scenario", problems):
        entry.problems = problems
        return entry
    allowed = _SCENARIO_KEYS | {SCHEMA_KEY} if file_level else _SCENARIO_KEYS
    problems.extend(_unknown_keys(node, allowed, "a scenario"))
    name = _string(name_node, "name", problems)
    if name is None and name_node is None:
        problems.append(Problem("missing-parameter", "a scenario needs a 'name'", start_of(node)))
    entry.name = name or fallback
    entry.named_by_index = not name
    target = _target(node.get("target"), problems) or ctx.target
    entry.tags = [*ctx.tags, *_tags(node.get("tags"), problems)]
    description = _string(node.get("description"), "description", problems)
    annotations = node.get("annotations")
    if annotations is not None and annotations.kind != "mapping":
        problems.append(
            Problem("invalid-value", "annotations must be a mapping", annotations.range)
        )
    steps: list[Step] = []
    steps_node = node.get("steps")
    if steps_node is None:
        problems.append(
            warning("empty-scenario", "this scenario has no 'steps': it checks nothing", entry.head)
        )
    build = keep or _keep_scenarios
    # Selector paths of the checks read back by text (`_check_problems`), by node id.
    known: dict[int, tuple[str, ...]] | None = None if ctx.dataset else {}
    for step_index, step_node in enumerate(_list(steps_node, "steps", problems)):
        step = _step(step_node, step_index, ctx, entry, problems, build, known)
        if step is not None:
            steps.append(step)
    problems.extend(replay_path_problems(node, target, known=known.get if known else None))
    entry.problems = problems
    if not _has_errors(problems) and not build:
        ctx = ctx.without_lines()  # the rebuild must not keep this text alive
        entry.rebuild = partial(_rebuilt_scenario, node, ctx, index, file_level)
    elif not _has_errors(problems):
        entry.scenario = Scenario.model_construct(
            name=entry.name,
            description=description,
            target=target,
            tags=entry.tags,
            annotations=dict(annotations.value) if annotations and annotations.value else {},
            steps=steps,
        )
    return entry


def _step(
    node: Node,
    step_index: int,
    ctx: _Context,
    entry: ScenarioEntry,
    problems: list[Problem],
    build: bool,
    known: dict[int, tuple[str, ...]] | None,
) -> Step | None:
    if not _is_mapping(node, None, "a step", problems):
        return None
    problems.extend(_unknown_keys(node, _STEP_KEYS, "a step"))
    interacts: list[InteractionSpec] = []
    for item in _list(node.get("interacts"), "interacts", problems):
        try:
            interacts.append(InteractionSpec.model_validate(item.value))
        except ValidationError as exc:
            problems.extend(
                problems_from_validation(
                    exc, item, head=start_of(item), model=Interact, what="interaction"
                )
            )
    checks = _step_checks(node.get("checks"), step_index, ctx, entry, problems, build, known)
    if not build:
        return None  # only the problems are wanted: the scenario is rebuilt on demand
    return Step.model_construct(interacts=interacts, checks=checks)


def _step_checks(
    node: Node | None,
    step_index: int,
    ctx: _Context,
    entry: ScenarioEntry,
    problems: list[Problem],
    build: bool,
    known: dict[int, tuple[str, ...]] | None = None,
) -> list[Check]:
    """The valid checks of one step; every check, valid or not, is recorded with its place.

    Without `build` only their problems are wanted, and those are reused by check text,
    with the paths of their selectors (put in `known`, if given).
    """
    checks: list[Check] = []
    for check_index, check_node in enumerate(_list(node, "checks", problems)):
        if build:
            check, check_problems, kind, head = _check(check_node, ctx)
        else:
            check = None  # not kept: only the problems are wanted
            check_problems, kind, head, paths = _check_problems(check_node, ctx)
            if known is not None:
                known[id(check_node)] = paths
        problems.extend(check_problems)
        entry.checks.append(
            CheckEntry(step_index, check_index, kind, check_node, head, check_node._cell.lines)
        )
        if check is not None:
            checks.append(check)
    return checks


def _rebuilt_scenario(node: Node, ctx: _Context, index: int, file_level: bool) -> Scenario | None:
    return _analyze_scenario(node, ctx, index, file_level, keep=True).built


def _rebuilt_record(node: Node, ctx: _Context, index: int, dataset_name: str) -> Scenario | None:
    return _record(node, ctx, index, _Schemas(None, None), dataset_name, keep=True).built


# Whether analyses keep the runnable form of each scenario (the CLI runs them at once) or
# rebuild it when asked (the language server: a run is rare, and the models were a third
# of a big document's memory). Set with `keep_scenarios`.
_keep_scenarios = True
_NO_LINES = LineIndex("")


def keep_scenarios(keep: bool) -> None:
    """Keep each scenario's runnable form in its analysis, or rebuild it on demand."""
    global _keep_scenarios
    _keep_scenarios = keep


def _shifted(entry: ScenarioEntry, node: Node, index: int) -> ScenarioEntry:
    """A cached entry, given the nodes of where the same text now sits."""
    delta = node.line - entry.node.line
    base = node._cell.lines
    fresh = _locate_checks(node)
    checks = [
        CheckEntry(
            c.step,
            c.index,
            c.kind,
            fresh.get((c.step, c.index), c.node),
            moved(c.head, delta),
            base,
        )
        for c in entry.checks
    ]
    problems = [moved_problem(p, delta) for p in entry.problems]
    rebuild = entry.rebuild
    if isinstance(rebuild, partial):  # from these nodes, not the cached ones
        rebuild = partial(rebuild.func, node, *rebuild.args[1:])
    return replace(
        entry,
        index=index,
        node=node,
        checks=checks,
        read_problems=problems,
        base=base,
        rebuild=rebuild,
    )


def _locate_checks(node: Node) -> dict[tuple[int, int], Node]:
    found: dict[tuple[int, int], Node] = {}
    steps = node.get("steps") if node.kind == "mapping" else None
    for s, step in enumerate(steps.items if steps is not None and steps.kind == "sequence" else []):
        checks = step.get("checks") if step.kind == "mapping" else None
        if checks is not None and checks.kind == "sequence":
            for c, check in enumerate(checks.items):
                found[(s, c)] = check
    return found


def _suite_frame(root: Node, ctx: _Context, problems: list[Problem]) -> EntryReader:
    """Check what a suite holds besides its scenarios; how to read one of them."""
    problems.extend(_unknown_keys(root, _SUITE_KEYS, "a suite"))
    if root.get("name") is None:
        problems.append(Problem("missing-parameter", "a suite needs a 'name'", start_of(root)))
    target = _target(root.get("target"), problems) or ctx.target
    tags = tuple(_tags(root.get("tags"), problems))
    if root.get("scenarios") is None:
        problems.append(Problem("missing-parameter", "a suite needs 'scenarios'", start_of(root)))
    return EntryReader(replace(ctx, target=target, tags=tags))


@dataclass(frozen=True)
class EntryReader:
    """How to analyse one scenario of a suite or dataset, the file's own fields read."""

    ctx: _Context
    schemas: _Schemas | None = None  # datasets
    dataset_name: str = ""

    def __call__(self, node: Node, index: int, lines: LineIndex) -> ScenarioEntry:
        ctx = self.ctx if lines is self.ctx.index else replace(self.ctx, index=lines)
        if self.schemas is None:
            return _scenario(node, ctx, index)
        return _record(node, ctx, index, self.schemas, self.dataset_name)

    @property
    def stopped(self) -> bool:
        """A schema stopped checking (it timed out): later scenarios depend on earlier ones."""
        schemas = self.schemas
        return schemas is not None and any(
            s is not None and s.stopped for s in (schemas.input, schemas.output)
        )


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
        doc: Document,
        read: EntryReader,
        frame_problems: list[Problem],
        workspace: Workspace,
        kind: FileKind | None,
    ) -> Layout | None:
        source, root = doc.source, doc.source.root
        if root is None or is_json(doc.path) or source.aliased or root._merged:
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


def _list_file(
    root: Node, ctx: _Context, doc: Document, workspace: Workspace, kind: FileKind | None
) -> None:
    """A suite or dataset: its own fields, then each scenario (the top-level list)."""
    source = doc.source
    frame_problems: list[Problem] = []
    if doc.kind is FileKind.SUITE:
        read = _suite_frame(root, ctx, frame_problems)
    else:
        read = _dataset_frame(root, ctx, frame_problems)
    items = _list(root.get("scenarios"), "scenarios", frame_problems)
    for index, node in enumerate(items):
        doc.scenarios.append(read(node, index, ctx.index))
    layout = Layout.of(doc, read, frame_problems, workspace, kind)
    if layout is None:
        doc.problems.extend(comment_hints(source))
        doc.problems.extend(frame_problems)
    else:
        doc.layout = layout
        doc.problems = layout.problems()


# ---------------------------------------------------------------------------------
# Datasets


@dataclass
class _Schemas:
    input: SchemaCheck | None
    output: SchemaCheck | None


def _dataset_frame(root: Node, ctx: _Context, problems: list[Problem]) -> EntryReader:
    """Check what a dataset holds besides its scenarios; how to read one of them."""
    problems.extend(_unknown_keys(root, _DATASET_KEYS, "a dataset"))
    target = _target(root.get("target"), problems) or ctx.target
    tags = tuple(_tags(root.get("tags"), problems))
    schemas = _Schemas(
        SchemaCheck.of(root, "input_schema", CHAT_INPUT_SCHEMA, problems),
        SchemaCheck.of(root, "output_schema", CHAT_OUTPUT_SCHEMA, problems),
    )
    name = _string(root.get("name"), "name", problems) or "dataset"
    if root.get("name") is None:
        problems.append(Problem("missing-parameter", "a dataset needs a 'name'", start_of(root)))
    if root.get("scenarios") is None:
        problems.append(Problem("missing-parameter", "a dataset needs 'scenarios'", start_of(root)))
    return EntryReader(replace(ctx, target=target, tags=tags), schemas, name)


def _record(
    node: Node,
    ctx: _Context,
    index: int,
    schemas: _Schemas,
    dataset_name: str,
    keep: bool = False,
) -> ScenarioEntry:
    problems: list[Problem] = []
    entry = ScenarioEntry(
        index=index,
        name=f"{dataset_name} #{index + 1}",
        node=node,
        named_by_index=True,
    )
    if not _is_mapping(node, None, "a dataset scenario", problems):
        entry.problems = problems
        return entry
    problems.extend(_unknown_keys(node, _RECORD_KEYS, "a dataset scenario"))
    entry.tags = [*ctx.tags, *_tags(node.get("tags"), problems)]
    interactions = node.get("interactions")
    if interactions is None:
        problems.append(
            Problem("missing-parameter", "a dataset scenario needs 'interactions'", start_of(node))
        )
    steps: list[Step] = []
    first_input: Any = None
    turns = _list(interactions, "interactions", problems)
    if interactions is not None and interactions.kind == "sequence" and not turns:
        problems.append(
            Problem(
                "invalid-value",
                "a dataset scenario needs at least one interaction (it would check nothing)",
                interactions.range,
            )
        )
    build = keep or _keep_scenarios
    known: dict[int, tuple[str, ...]] = {}  # selector paths by check node id (as in scenarios)
    for step_index, item in enumerate(turns):
        if not _is_mapping(item, None, "an interaction", problems):
            continue
        problems.extend(_unknown_keys(item, _INTERACTION_KEYS, "an interaction"))
        input_node, output_node = item.get("input"), item.get("output")
        if input_node is None:
            problems.append(
                Problem("missing-parameter", "an interaction needs an 'input'", start_of(item))
            )
            continue
        first_input = first_input if first_input is not None else input_node.value
        if schemas.input is not None:
            problems.extend(schemas.input.check(input_node))
        if output_node is not None and schemas.output is not None:
            problems.extend(schemas.output.check(output_node))
        checks = _step_checks(item.get("checks"), step_index, ctx, entry, problems, build, known)
        outputs = output_node.value if output_node is not None else MISSING
        steps.append(
            Step.model_construct(
                interacts=[
                    Interact.model_construct(inputs=input_node.value, outputs=outputs, metadata={})
                ],
                checks=checks,
            )
        )
    explicit = node.value.get("name")
    fallback = entry.name
    entry.name = explicit if isinstance(explicit, str) else record_name(first_input, fallback)
    entry.named_by_index = entry.name == fallback
    schema = schemas.output.schema if schemas.output is not None else None
    problems.extend(
        replay_path_problems(
            node,
            ctx.target,
            dataset=True,
            output_schema=schema,
            known=known.get,
        )
    )
    entry.problems = problems
    if not _has_errors(problems) and not (keep or _keep_scenarios):
        ctx = ctx.without_lines()
        entry.rebuild = partial(_rebuilt_record, node, ctx, index, dataset_name)
    elif not _has_errors(problems):
        description = node.value.get("description")
        entry.scenario = Scenario.model_construct(
            name=entry.name,
            description=description if isinstance(description, str) else None,
            target=ctx.target,
            tags=entry.tags,
            annotations={},
            steps=steps,
        )
    return entry


def _analyze_jsonl(
    text: str, path: str, workspace: Workspace, max_bytes: int, kind: FileKind | None
) -> Document:
    source = parse_source("", json=True)
    size = len(text.encode("utf-8", "replace"))
    if size > max_bytes:
        big = parse_source(text, json=True, max_bytes=max_bytes)
        return Document(path=path, kind=FileKind.DATASET, source=big, problems=big.problems)
    rows: list[Row] = []
    problems: list[Problem] = []
    budget = MAX_NODES
    index = index_of(text)
    for number, line in enumerate(LinesView(index)):
        if not line.strip():
            continue
        row = parse_jsonl_row(line, number, max_depth=200, max_nodes=budget)
        budget -= row.nodes
        if any(p.code == "too-many-nodes" for p in row.problems):  # the file's limit: stop
            message = too_many_message(MAX_NODES)
            problems.extend(
                replace(p, message=message) if p.code == "too-many-nodes" else p
                for p in row.problems
            )
            rows = []  # not read to the end: no layout
            break
        problems.extend(row.problems)
        rows.append(row)
    else:
        budget = -1  # read to the end
    doc = Document(path=path, kind=FileKind.DATASET, source=source, problems=problems)
    ctx = _Context(
        index=index,
        custom=workspace.custom_checks,
        dataset=True,
        target=workspace.config.target,
    )
    schemas = _Schemas(
        SchemaCheck("input_schema", CHAT_INPUT_SCHEMA, None, doc.problems),
        SchemaCheck("output_schema", CHAT_OUTPUT_SCHEMA, None, doc.problems),
    )
    read = EntryReader(ctx, schemas, "line")
    for row in rows:
        if row.root is not None:
            doc.scenarios.append(read(row.root, len(doc.scenarios), index))
    if budget == -1 and not read.stopped:
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


# ---------------------------------------------------------------------------------
# checkspec.yaml


def _config(root: Node) -> tuple[WorkspaceConfig, list[Problem]]:
    problems: list[Problem] = []
    if not _is_mapping(root, None, "checkspec.yaml", problems):
        return WorkspaceConfig(), problems
    data = dict(root.value)
    try:
        config = WorkspaceConfig.model_validate(data)
    except ValidationError as exc:
        problems.extend(
            problems_from_validation(
                exc, root, head=start_of(root), model=WorkspaceConfig, what="checkspec.yaml"
            )
        )
        config = WorkspaceConfig()
    if config.target and (why := describe_target_problem(config.target)):
        target_node = root.get("target")
        problems.append(
            Problem("bad-target", why, target_node.range if target_node else start_of(root))
        )
    customs = root.get("custom_checks")
    ctx = _Context(index=LineIndex(""), custom={}, dataset=False, target=None)
    for item in customs.items if customs is not None and customs.kind == "sequence" else []:
        params = item.get("params") if item.kind == "mapping" else None
        if params is None or params.kind != "mapping":
            continue
        as_check = {
            "kind": params.value.get("type"),
            **{k: v for k, v in params.value.items() if k != "type"},
        }
        type_node = params.get("type")
        head = type_node.range if type_node is not None else start_of(params)
        _check_problems = _custom_params(as_check, params, head, ctx)
        problems.extend(_check_problems)
    return config, problems


def _custom_params(
    as_check: dict[str, Any], params: Node, head: Range, ctx: _Context
) -> list[Problem]:
    kind = as_check.get("kind")
    if not isinstance(kind, str):
        return []
    if Check.kind_class(kind) is None:
        return [
            misnamed("unknown-kind", f"unknown check type '{kind}'", kind, Check.registry(), head)
        ]
    try:
        with lint_later():
            check: Check = Check.model_validate(as_check)
    except ValidationError as exc:
        return problems_from_validation(
            exc, params, head=head, model=Check.registry()[kind], what=kind
        )
    return _lint(check, params, head, ctx)
