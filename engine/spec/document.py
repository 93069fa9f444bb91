"""The located document: spec text in, runnable scenarios + located problems out.

One pure function, `analyze`, serves the CLI and the language server, so they can
never disagree. It never imports user code and never touches the network: targets
are checked for shape only, `fn` references are not imported, LLM checks are not run.
Each scenario is analysed on its own, so one bad check never hides the others, and
results are cached by the scenario's text (a one-line edit re-analyses one scenario).
"""

from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import BaseModel, ValidationError

from ..catalog import SCHEMA_KEY, field_named, fields_of, jsonpath_fields
from ..core.check import Check, did_you_mean, lint_later
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
from .kinds import CONFIG_NAME, FileKind, is_json, is_jsonl, kind_from_name, kind_from_schema
from .lines import split_lines
from .locate import (
    head_range,
    issue_problem,
    misnamed,
    problems_from_validation,
    start_of,
    warning,
)
from .problems import Position, Problem, Range, Severity, TextEdit
from .replay_paths import replay_path_problems
from .schema_checks import SchemaCheck
from .source import Node, Source, parse_jsonl_lines, parse_source
from .suite import SuiteFile
from .workspace import CUSTOM_PREFIX, CustomCheck, Workspace, WorkspaceConfig
from .yaml_traps import comma_hint, comment_hints


def _keys(model: type[BaseModel]) -> frozenset[str]:
    """Every key a mapping of this model may hold (from the catalog, with every spelling)."""
    return frozenset(s for spec in fields_of(model).values() for s in spec.spellings)


_SCENARIO_KEYS = _keys(Scenario)
_SUITE_KEYS = _keys(SuiteFile) | {SCHEMA_KEY}
_DATASET_KEYS = _keys(DatasetFile) | {SCHEMA_KEY}
_RECORD_KEYS = _keys(DatasetScenario)
_INTERACTION_KEYS = _keys(DatasetInteraction)
_DATASET_CHECK_KEYS = _keys(DatasetCheck)
_TRACE_FIELDS = {"trace": ("interactions", "last", "annotations")}
_INTERACTION_FIELDS = ("inputs", "outputs", "metadata")


@dataclass
class CheckEntry:
    """A top-level check of a step, where it is written."""

    step: int
    index: int
    kind: str
    node: Node
    head: Range  # the `kind:` / `identifier:` value: where results are shown


@dataclass
class ScenarioEntry:
    """One scenario of a file: its runnable form (None when invalid) and its checks."""

    index: int
    name: str
    node: Node
    scenario: Scenario | None
    checks: list[CheckEntry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)

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

    def every_problem(self) -> list[Problem]:
        """Every problem found, in no particular order (may be very many)."""
        found = list(self.problems)
        for entry in self.scenarios:
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
    lines: tuple[str, ...]
    custom: dict[str, CustomCheck]
    dataset: bool
    target: str | None
    tags: tuple[str, ...] = ()

    @property
    def fingerprint(self) -> tuple[Any, ...]:
        """What a scenario's analysis depends on besides its own text."""
        custom = tuple(sorted((k, v.model_dump_json()) for k, v in self.custom.items()))
        return (self.dataset, self.target, self.tags, custom)


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
    kind = kind or kind_from_name(path)
    if is_jsonl(path):
        return _analyze_jsonl(text, path, workspace, max_bytes)
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
        lines=tuple(split_lines(text)),
        custom=workspace.custom_checks,
        dataset=doc.kind is FileKind.DATASET,
        target=workspace.config.target,
    )
    doc.problems.extend(comment_hints(source))
    if doc.kind is FileKind.CONFIG:
        doc.config, problems = _config(root)
        doc.problems.extend(problems)
    elif not _is_mapping(root, doc, f"a {doc.kind.value} file"):
        pass
    elif doc.kind is FileKind.SCENARIO:
        doc.scenarios.append(_scenario(root, ctx, 0, file_level=True))
    elif doc.kind is FileKind.SUITE:
        _suite(root, ctx, doc)
    else:
        _dataset(root, ctx, doc)
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


def _list(node: Node | None, what: str, problems: list[Problem]) -> list[Node]:
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
    problems.extend(_deprecated_aliases(base, cls))
    try:
        with lint_later():
            check: Check = Check.model_validate({"kind": resolved_kind, **merged})
    except ValidationError as exc:
        problems.extend(
            problems_from_validation(exc, base, head=head, model=cls, what=resolved_kind)
        )
        return None, problems, identifier, head
    problems.extend(_lint(check, base, head, ctx))
    return check, problems, identifier, head


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


def _deprecated_aliases(node: Node, cls: type[Check]) -> list[Problem]:
    """Deprecated names (`key` / `text_key` for `target_key`) still work, but say so,
    with a rename fix."""
    if node.kind != "mapping":
        return []
    problems = []
    for spec in fields_of(cls).values():
        for old in spec.deprecated:
            key = node.key_node(old)
            if key is not None:
                problems.append(
                    warning(
                        "deprecated-alias",
                        spec.deprecation_message(old),
                        key.range,
                        fix=(TextEdit(key.range, spec.name),),
                        fix_title=f"Rename to '{spec.name}'",
                    )
                )
    return problems


def _lint(check: Check, node: Node, head: Range, ctx: _Context) -> list[Problem]:
    """The check's own static issues, trace-path sanity, then its nested checks."""
    problems = [issue_problem(i, node, head, list(ctx.lines)) for i in check.lint()]
    selectors = jsonpath_fields(type(check))
    for name, info in type(check).model_fields.items():
        value = getattr(check, name)
        if name in selectors and isinstance(value, str):
            value_node = _field_node(node, type(check), name)
            if value_node is not None:
                problems.extend(_trace_path_problems(value, value_node))
        for child, child_node in _nested(value, node.get(name) if node.kind == "mapping" else None):
            child_head = head_range(child_node, "kind") if child_node else head
            problems.extend(_deprecated_aliases(child_node, type(child)) if child_node else [])
            problems.extend(_lint(child, child_node or node, child_head, ctx))
        del info
    return problems


def _field_node(node: Node, cls: type[Check], name: str) -> Node | None:
    """The value node of a parameter, also when written under an alias or deprecated name."""
    if node.kind != "mapping":
        return None
    spec = field_named(cls, name)
    for spelling in spec.spellings if spec is not None else (name,):
        found = node.get(spelling)
        if found is not None:
            return found
    return None


def _nested(value: Any, node: Node | None) -> list[tuple[Check, Node | None]]:
    if isinstance(value, Check):
        return [(value, node)]
    if isinstance(value, list) and value and all(isinstance(v, Check) for v in value):
        items = node.items if node is not None and node.kind == "sequence" else []
        return [(v, items[i] if i < len(items) else None) for i, v in enumerate(value)]
    return []


def _trace_path_problems(path: str, node: Node) -> list[Problem]:
    """Warn when a selector names a trace field that does not exist (`outputz`)."""
    try:
        steps = compile_path(path).steps
    except JSONPathError:
        return []
    if not steps:
        return []
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
            return [
                warning(
                    "unknown-trace-field",
                    f"{where} has no field '{arg}' (it has {', '.join(expected)})"
                    + (f"; did you mean '{hint}'?" if hint else ""),
                    node.range,
                )
            ]
        names.append(str(arg))
        if arg == "last":
            expected = _INTERACTION_FIELDS
        elif arg in ("inputs", "outputs", "metadata", "annotations"):
            break  # user data from here on: anything goes
        else:
            expected = ()
    return []


# ---------------------------------------------------------------------------------
# Scenarios and suites

_CACHE: dict[tuple[Any, ...], ScenarioEntry] = {}
_CACHE_LIMIT = 20_000


def _scenario(node: Node, ctx: _Context, index: int, *, file_level: bool = False) -> ScenarioEntry:
    """One scenario, cached by its text (and the context it depends on)."""
    key = (_text_of(node, ctx.lines), node.range.start.character, ctx.fingerprint, file_level)
    cached = _CACHE.get(key)
    if cached is not None:
        return _shifted(cached, node, index)
    entry = _analyze_scenario(node, ctx, index, file_level)
    if len(_CACHE) >= _CACHE_LIMIT:
        _CACHE.clear()
    _CACHE[key] = entry
    return entry


def _text_of(node: Node, lines: tuple[str, ...]) -> str:
    start, end = node.range.start, node.range.end
    if start.line == end.line:
        return lines[start.line][start.character : end.character] if lines else ""
    chunk = [lines[start.line][start.character :], *lines[start.line + 1 : end.line]]
    if end.line < len(lines):
        chunk.append(lines[end.line][: end.character])
    return "\n".join(chunk)


def _analyze_scenario(node: Node, ctx: _Context, index: int, file_level: bool) -> ScenarioEntry:
    problems: list[Problem] = []
    name_node = node.get("name") if node.kind == "mapping" else None
    fallback = f"scenario {index + 1}"
    entry = ScenarioEntry(index=index, name=fallback, node=node, scenario=None)
    if not _is_mapping(node, None, "a scenario", problems):
        entry.problems = problems
        return entry
    allowed = _SCENARIO_KEYS | {SCHEMA_KEY} if file_level else _SCENARIO_KEYS
    problems.extend(_unknown_keys(node, allowed, "a scenario"))
    name = _string(name_node, "name", problems)
    if name is None and name_node is None:
        problems.append(Problem("missing-parameter", "a scenario needs a 'name'", start_of(node)))
    entry.name = name or fallback
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
    for step_index, step_node in enumerate(_list(steps_node, "steps", problems)):
        step = _step(step_node, step_index, ctx, entry, problems)
        if step is not None:
            steps.append(step)
    problems.extend(replay_path_problems(node, target))
    entry.problems = problems
    if not _has_errors(problems):
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
    node: Node, step_index: int, ctx: _Context, entry: ScenarioEntry, problems: list[Problem]
) -> Step | None:
    if not _is_mapping(node, None, "a step", problems):
        return None
    problems.extend(_unknown_keys(node, frozenset(Step.model_fields), "a step"))
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
    checks = _step_checks(node.get("checks"), step_index, ctx, entry, problems)
    return Step.model_construct(interacts=interacts, checks=checks)


def _step_checks(
    node: Node | None, step_index: int, ctx: _Context, entry: ScenarioEntry, problems: list[Problem]
) -> list[Check]:
    """The valid checks of one step; every check, valid or not, is recorded with its place."""
    checks: list[Check] = []
    for check_index, check_node in enumerate(_list(node, "checks", problems)):
        check, check_problems, kind, head = _check(check_node, ctx)
        problems.extend(check_problems)
        entry.checks.append(CheckEntry(step_index, check_index, kind, check_node, head))
        if check is not None:
            checks.append(check)
    return checks


def _shifted(entry: ScenarioEntry, node: Node, index: int) -> ScenarioEntry:
    """A cached entry moved to where the same text now sits."""
    delta = node.range.start.line - entry.node.range.start.line
    if delta == 0 and entry.index == index:
        return replace(entry, node=node)

    def move(rng: Range) -> Range:
        return Range(
            Position(rng.start.line + delta, rng.start.character),
            Position(rng.end.line + delta, rng.end.character),
        )

    def move_problem(p: Problem) -> Problem:
        fix = tuple(replace(e, range=move(e.range)) for e in p.fix)
        return replace(p, range=move(p.range), fix=fix)

    fresh = _locate_checks(node)
    checks = [
        replace(c, node=fresh.get((c.step, c.index), c.node), head=move(c.head))
        for c in entry.checks
    ]
    return replace(
        entry,
        index=index,
        node=node,
        checks=checks,
        problems=[move_problem(p) for p in entry.problems],
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


def _suite(root: Node, ctx: _Context, doc: Document) -> None:
    doc.problems.extend(_unknown_keys(root, _SUITE_KEYS, "a suite"))
    if root.get("name") is None:
        doc.problems.append(Problem("missing-parameter", "a suite needs a 'name'", start_of(root)))
    target = _target(root.get("target"), doc.problems) or ctx.target
    tags = tuple(_tags(root.get("tags"), doc.problems))
    inner = replace(ctx, target=target, tags=tags)
    scenarios = root.get("scenarios")
    if scenarios is None:
        doc.problems.append(
            Problem("missing-parameter", "a suite needs 'scenarios'", start_of(root))
        )
    for index, node in enumerate(_list(scenarios, "scenarios", doc.problems)):
        doc.scenarios.append(_scenario(node, inner, index))


# ---------------------------------------------------------------------------------
# Datasets


@dataclass
class _Schemas:
    input: SchemaCheck | None
    output: SchemaCheck | None


def _dataset(root: Node, ctx: _Context, doc: Document) -> None:
    doc.problems.extend(_unknown_keys(root, _DATASET_KEYS, "a dataset"))
    target = _target(root.get("target"), doc.problems) or ctx.target
    tags = tuple(_tags(root.get("tags"), doc.problems))
    schemas = _Schemas(
        SchemaCheck.of(root, "input_schema", CHAT_INPUT_SCHEMA, doc.problems),
        SchemaCheck.of(root, "output_schema", CHAT_OUTPUT_SCHEMA, doc.problems),
    )
    name = _string(root.get("name"), "name", doc.problems) or "dataset"
    if root.get("name") is None:
        doc.problems.append(
            Problem("missing-parameter", "a dataset needs a 'name'", start_of(root))
        )
    inner = replace(ctx, target=target, tags=tags)
    scenarios = root.get("scenarios")
    if scenarios is None:
        doc.problems.append(
            Problem("missing-parameter", "a dataset needs 'scenarios'", start_of(root))
        )
    for index, node in enumerate(_list(scenarios, "scenarios", doc.problems)):
        doc.scenarios.append(_record(node, inner, index, schemas, name))


def _record(
    node: Node, ctx: _Context, index: int, schemas: _Schemas, dataset_name: str
) -> ScenarioEntry:
    problems: list[Problem] = []
    entry = ScenarioEntry(
        index=index, name=f"{dataset_name} #{index + 1}", node=node, scenario=None
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
        checks = _step_checks(item.get("checks"), step_index, ctx, entry, problems)
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
    entry.name = explicit if isinstance(explicit, str) else record_name(first_input, entry.name)
    schema = schemas.output.schema if schemas.output is not None else None
    problems.extend(replay_path_problems(node, ctx.target, dataset=True, output_schema=schema))
    entry.problems = problems
    if not _has_errors(problems):
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


def _analyze_jsonl(text: str, path: str, workspace: Workspace, max_bytes: int) -> Document:
    source = parse_source("", json=True)
    if len(text.encode("utf-8", "replace")) > max_bytes:
        big = parse_source(text, json=True, max_bytes=max_bytes)
        return Document(path=path, kind=FileKind.DATASET, source=big, problems=big.problems)
    records, problems = parse_jsonl_lines(text)
    doc = Document(path=path, kind=FileKind.DATASET, source=source, problems=list(problems))
    ctx = _Context(
        lines=tuple(split_lines(text)),
        custom=workspace.custom_checks,
        dataset=True,
        target=workspace.config.target,
    )
    schemas = _Schemas(
        SchemaCheck("input_schema", CHAT_INPUT_SCHEMA, None, doc.problems),
        SchemaCheck("output_schema", CHAT_OUTPUT_SCHEMA, None, doc.problems),
    )
    for index, (_line, node) in enumerate(records):
        doc.scenarios.append(_record(node, ctx, index, schemas, "line"))
    return doc


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
    ctx = _Context(lines=(), custom={}, dataset=False, target=None)
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
