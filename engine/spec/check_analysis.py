"""A check's analysis: its problems (kind, parameters, lint, trace paths), found once per text.

A check is validated against its class (`{kind: ...}`, or `{identifier, params}` in
datasets, custom checks resolved from checkspec.yaml), then linted: its own static issues,
its trace selectors, its nested checks. When only problems are wanted, a check's problems
are reused by its text, column and context (`check_problems`): suites repeat checks.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from typing import Any, get_args

from pydantic import ValidationError

from ..catalog import field_named, fields_of, jsonpath_fields
from ..core.check import _LINT_LATER, Check, did_you_mean
from ..core.jsonpath import JSONPathError, compile_path
from .fields import keys_of, unknown_keys
from .lines import LineIndex, LinesView
from .locate import head_range, issue_problem, misnamed, problems_from_validation, warning
from .problems import Problem, Range, Severity, TextEdit, moved, moved_problem
from .replay_paths import selector_paths
from .tree import Node
from .workspace_config import CUSTOM_PREFIX, CustomCheck

_TRACE_FIELDS = {"trace": ("interactions", "last", "annotations")}
_INTERACTION_FIELDS = ("inputs", "outputs", "metadata")
_NO_LINES = LineIndex("")


@dataclass(frozen=True)
class Context:
    """What a check's or scenario's analysis depends on besides its own text."""

    index: LineIndex
    custom: dict[str, CustomCheck]
    dataset: bool
    target: str | None
    tags: tuple[str, ...] = ()
    # Whether each scenario's runnable form is made with its analysis (a run uses it at
    # once) or when first asked for (validation, the editor: memory for the rare run).
    keep: bool = field(default=True, compare=False)
    # What a scenario's analysis depends on besides its own text (made once).
    fingerprint: tuple[Any, ...] = field(init=False, compare=False)
    # Checks looked up by their text, and found (see `check_problems`).
    reuse: list[int] = field(default_factory=lambda: [0, 0], compare=False)

    def __post_init__(self) -> None:
        custom = tuple(sorted((k, v.model_dump_json()) for k, v in self.custom.items()))
        object.__setattr__(self, "fingerprint", (self.dataset, self.target, self.tags, custom))

    def without_lines(self) -> Context:
        """This context without its text's line index, for a rebuild kept for later (so it
        does not keep the text alive); made once per context, not once per scenario."""
        found: Context | None = self.__dict__.get("_without_lines")
        if found is None:
            found = replace(self, index=_NO_LINES)
            object.__setattr__(self, "_without_lines", found)
        return found

    @property
    def lines(self) -> LinesView:
        return LinesView(self.index)


@cache
def _dataset_check_keys() -> frozenset[str]:
    """A dataset check's keys: its model loads with the first dataset (validating a
    scenario file loads no dataset model)."""
    from .datasets import DatasetCheck

    return keys_of(DatasetCheck)


def analyze_check(node: Node, ctx: Context) -> tuple[Check | None, list[Problem], str, Range]:
    """Validate one check written as `{kind: ...}` or, in datasets, `{identifier, params}`."""
    problems: list[Problem] = []
    if node.kind != "mapping":
        problems.append(Problem("invalid-structure", "a check must be a mapping", node.range))
        return None, problems, "?", node.range
    if ctx.dataset and "kind" not in node.value:
        head_key, params = "identifier", node.get("params")
        problems.extend(unknown_keys(node, _dataset_check_keys(), "a dataset check"))
        if params is not None and params.kind != "mapping" and params.value is not None:
            problems.append(Problem("invalid-structure", "params must be a mapping", params.range))
            return None, problems, "?", params.range
        given = dict(params.value) if params is not None and params.value else {}
        if "enabled" in node.value:  # beside identifier and params, as the Hub has it
            given["enabled"] = node.value["enabled"]
        if "expect" in node.value:  # a person's label, beside identifier as enabled is
            given["expect"] = node.value["expect"]
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
    problems.extend(lint_check(check, base, head, ctx))
    if check.expect is not None and not check.calls_model():
        problems.append(_label_problem(node, resolved_kind, cls.may_call_model(), ctx.lines))
    if not check.enabled:  # shown greyed in editors (DiagnosticTag.Unnecessary)
        problems.append(
            Problem(
                "disabled-check",
                "disabled (enabled: false): runs skip this check "
                "(`checkspec checks enable` turns it back on)",
                node.range,
                Severity.HINT,
            )
        )
    return check, problems, identifier, head


def _label_problem(node: Node, kind: str, holds_checks: bool, lines: LinesView) -> Problem:
    """`expect:` on a check that calls no model: there is no judge to calibrate."""
    key = node.key_node("expect") if node.kind == "mapping" else None
    why = (
        f"no check in '{kind}' calls a model"
        if holds_checks
        else f"'{kind}' calls no model (its verdict is computed, not judged)"
    )
    fix = label_removal(node, lines)
    return Problem(
        "label-not-allowed",
        f"expect: labels a judge's verdict, but {why}: remove the label",
        key.range if key is not None else node.range,
        fix=fix,
        fix_title="Remove the label" if fix else None,
    )


def label_removal(node: Node, lines: LinesView) -> tuple[TextEdit, ...]:
    """The edit removing a check's `expect:` line, when it has a line of its own (block
    style, nothing else on it but a comment); none otherwise."""
    key = node.key_node("expect") if node.kind == "mapping" else None
    value = node.get("expect") if key is not None else None
    if key is None or value is None or value.range.end.line != key.line:
        return ()
    line = key.line
    if line >= len(lines):
        return ()
    text = lines[line]
    before, after = text[: key.range.start.character], text[value.range.end.character :]
    if before.strip() or (after.strip() and not after.strip().startswith("#")):
        return ()
    return (TextEdit(Range.of(line, 0, line + 1, 0), ""),)


# Checks as found, by their text (see `check_problems`): problems, kind name, head range
# and the line they were found on.
_CHECKS: dict[tuple[Any, ...], tuple[tuple[Problem, ...], str, Range, int, tuple[str, ...]]] = {}
_CHECKS_LIMIT = 20_000
_CHECK_TEXT_KEPT = 256  # longer texts are kept as a digest
# Lookups after which an analysis stops looking checks up if under a tenth were found.
REUSE_TRIAL = 1000


def text_of(node: Node, ctx: Context) -> str:
    """The text a node was read from (the key of the analyses reused by text)."""
    return ctx.index.cut(node.line, node._sc, node.end_line, node._ec)


def check_problems(node: Node, ctx: Context) -> tuple[list[Problem], str, Range, tuple[str, ...]]:
    """`analyze_check` without the check itself, reusing what the same text gave before.

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
        text = text_of(node, ctx)
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
    _, problems_list, kind, head = analyze_check(node, ctx)
    paths = selector_paths(node, ctx.dataset)
    if key is not None:
        if len(_CHECKS) >= _CHECKS_LIMIT:
            _CHECKS.clear()
        _CHECKS[key] = (tuple(problems_list), kind, head, line, paths)
    return problems_list, kind, head, paths


def _resolve_identifier(
    identifier: str, given: dict[str, Any], ctx: Context, head: Range
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


def lint_check(check: Check, node: Node, head: Range, ctx: Context) -> list[Problem]:
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
            problems.extend(lint_check(child, child_node or node, child_head, ctx))
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
