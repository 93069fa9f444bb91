"""JSONPath selectors into a trace (new-check-conventions).

Every `*_key` field of a check is a `JSONPathStr`: it must start with `trace.` and
parse with jsonpath-ng. Paths are compiled once (cached by text) and simple dotted
paths (`trace.last.outputs.a[0].b`) are walked directly on the trace objects instead
of dumping the trace to a dict and running the general jsonpath machinery; both give
the same answer, the direct walk is ~50x cheaper.
"""

from __future__ import annotations

import warnings
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator, BaseModel
from pydantic_core import PydanticCustomError

from .sentinel import MISSING

if TYPE_CHECKING:
    from .trace import Trace

PREFIX = "trace."
# jsonpath-ng builds one nested node per step and walks them recursively (so do we): a path
# of 1,000 `[0]`s would exhaust Python's recursion limit. No real selector comes close.
MAX_STEPS = 100
_STEP_MARKS = ".[|&("

if TYPE_CHECKING:
    from jsonpath_ng.jsonpath import JSONPath


class _Nodes:
    """jsonpath-ng's parser and node classes, imported at the first selector compiled:
    its parser tables cost more at start-up than the rest of a file's validation."""

    def __init__(self) -> None:
        with warnings.catch_warnings():
            # jsonpath-ng warns on import about Union/Intersect, which its parser still
            # produces and which we need to tell multi-match paths apart.
            warnings.simplefilter("ignore", DeprecationWarning)
            from jsonpath_ng import jsonpath as jp
            from jsonpath_ng.parser import parse

            self.multi: tuple[type, ...] = (
                jp.Descendants,
                jp.Slice,
                # `[*]` parses to Wildcard in recent jsonpath-ng, to Fields('*') in older ones.
                *(getattr(jp, n) for n in ("Union", "Intersect", "Wildcard") if hasattr(jp, n)),
            )
        self.parse = parse
        self.child, self.fields, self.index = jp.Child, jp.Fields, jp.Index
        self.where = (jp.Where, jp.WhereNot)


@lru_cache(maxsize=1)
def _nodes() -> _Nodes:
    return _Nodes()


def parse_expression(text: str) -> JSONPath:
    """jsonpath-ng's parse (any JSONPath, not only trace selectors)."""
    return _nodes().parse(text)


class JSONPathMarker:
    """Metadata marker on JSONPathStr so tooling (schemas, completion) can find path fields."""

    def __repr__(self) -> str:
        return "JSONPathMarker()"

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> Any:
        schema = handler(core_schema)
        schema.update(pattern=r"^trace\.", format="jsonpath")
        schema.setdefault("examples", ["trace.last.outputs"])
        return schema


class JSONPathError(ValueError):
    """A selector that is not a valid trace JSONPath."""


class NoMatch:
    """A selector that matched nothing: checks turn it into an ERROR naming the key."""

    __slots__ = ("key",)

    def __init__(self, key: str) -> None:
        self.key = key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NoMatch) and other.key == self.key

    def __hash__(self) -> int:
        return hash(("NoMatch", self.key))

    def __str__(self) -> str:
        return f"No match for key: {self.key}"

    def __repr__(self) -> str:
        return f"NoMatch(key={self.key!r})"


# A step of the fast walk: ("field", name) or ("index", i).
_Step = tuple[str, Any]


class CompiledPath:
    """A parsed selector: the jsonpath-ng expression plus, when possible, a fast walk."""

    __slots__ = ("expression", "is_list", "output_fields", "steps", "text")

    def __init__(self, text: str, expression: JSONPath) -> None:
        self.text = text
        self.expression = expression
        self.is_list = _is_list_expression(expression)
        self.steps = _simple_steps(expression)
        # `trace.last.outputs.a.b` -> ("a", "b"): the shape nearly every check uses.
        self.output_fields: tuple[str, ...] | None = None
        steps = self.steps
        if (
            steps is not None
            and steps[:2] == (("field", "last"), ("field", "outputs"))
            and all(kind == "field" for kind, _ in steps[2:])
        ):
            self.output_fields = tuple(name for _, name in steps[2:])

    def find(self, trace: Trace) -> Any:
        if self.steps is not None:
            return _walk(trace, self.steps, self.text)
        matches = self.expression.find({"trace": trace.to_data()})
        if len(matches) > 1 or self.is_list:
            return [m.value for m in matches]
        return matches[0].value if matches else NoMatch(self.text)


@lru_cache(maxsize=4096)
def compile_path(text: str) -> CompiledPath:
    if not isinstance(text, str):
        raise JSONPathError(f"JSONPath must be a string, got {type(text).__name__}")
    if not text.startswith(PREFIX):
        raise JSONPathError(
            f"Invalid JSONPath expression {text!r}: path must start with 'trace.' "
            f"(for example 'trace.last.outputs')"
        )
    steps = sum(text.count(mark) for mark in _STEP_MARKS)
    if steps > MAX_STEPS:
        raise JSONPathError(
            f"Invalid JSONPath expression {_shortened(text)}: it has {steps} steps, more than "
            f"the {MAX_STEPS} a selector may have"
        )
    try:
        return CompiledPath(text, _nodes().parse(text))
    except RecursionError:  # belt and braces: MAX_STEPS keeps paths well below it
        raise JSONPathError(f"Invalid JSONPath expression {_shortened(text)}: too deep") from None
    except Exception as exc:  # jsonpath-ng's lexer and parser errors, and any other
        raise JSONPathError(f"Invalid JSONPath expression {text!r}: {exc}") from None


def _shortened(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _check(text: str) -> str:
    try:
        compile_path(text)
    except JSONPathError as exc:
        # A typed error so the file analyser can report `bad-jsonpath` at the value.
        raise PydanticCustomError("jsonpath", "{reason}", {"reason": str(exc)}) from None
    return text


JSONPathStr = Annotated[str, AfterValidator(_check), JSONPathMarker()]

# The reference library's names for the marker and the validator (core.extraction).
_JSONPathStrMarker = JSONPathMarker
_validate_jsonpath_syntax = _check


def resolve(trace: Trace, key: str) -> Any:
    """The value `key` selects in `trace`, a list for multi-match paths, or NoMatch."""
    path = compile_path(key)
    fields = path.output_fields
    if fields is not None and type(trace) is _trace_classes[0]:
        # `trace.last.outputs` then plain dict keys, read directly; any other shape on
        # the way (a model, a list, no interaction yet) takes the general walk below.
        interactions = trace.interactions
        if interactions and type(last := interactions[-1]) is _trace_classes[1]:
            current = last.outputs
            for name in fields:
                if type(current) is not dict:
                    break
                current = current.get(name, _MISSING_STEP)
                if current is _MISSING_STEP:
                    return NoMatch(path.text)
            else:
                if type(current) in _LEAF_TYPES:
                    return current
    if path.steps is not None:  # CompiledPath.find inlined: this runs for every check
        return _walk(trace, path.steps, path.text)
    return path.find(trace)


def provided_or_resolve(trace: Trace, key: Any = MISSING, value: Any = MISSING) -> Any:
    """An inline value wins; otherwise the selector is resolved."""
    if key is MISSING or value is not MISSING:
        return value
    return resolve(trace, key)


def _is_list_expression(expression: JSONPath) -> bool:
    # Paths that can match several values always resolve to a list, even with one match.
    nodes = _nodes()
    if isinstance(expression, nodes.multi):
        return True
    if isinstance(expression, nodes.child):
        return _is_list_expression(expression.left) or _is_list_expression(expression.right)
    if isinstance(expression, nodes.where):
        return _is_list_expression(expression.left)
    if isinstance(expression, nodes.fields):
        return len(expression.fields) > 1 or "*" in expression.fields
    return False


def _simple_steps(expression: JSONPath) -> tuple[_Step, ...] | None:
    """Flatten `a.b[0].c` into steps; None when the path needs the general machinery."""
    steps: list[_Step] = []
    nodes = _nodes()

    def visit(node: JSONPath) -> bool:
        if isinstance(node, nodes.child):
            return visit(node.left) and visit(node.right)
        if isinstance(node, nodes.fields) and len(node.fields) == 1 and node.fields[0] != "*":
            steps.append(("field", node.fields[0]))
            return True
        if isinstance(node, nodes.index) and len(node.indices) == 1:
            steps.append(("index", node.indices[0]))
            return True
        return False

    if not visit(expression) or not steps or steps[0] != ("field", "trace"):
        return None
    return tuple(steps[1:])


_MISSING_STEP = object()


# Values a walk commonly ends on: exact types, so the BaseModel check (an ABC
# isinstance, comparatively slow) is skipped for them.
_LEAF_TYPES = frozenset({str, int, float, bool, type(None), dict, list})


def _walk(trace: Trace, steps: tuple[_Step, ...], text: str) -> Any:
    current: Any = trace
    for kind, arg in steps:
        if kind == "field":
            # Plain dicts (below `outputs`) and the models seen before (Trace,
            # Interaction) by exact type; anything else takes the general step.
            cls = type(current)
            if cls is dict:
                current = current.get(arg, _MISSING_STEP)
            elif (attrs := _model_attrs.get(cls)) is not None:
                current = getattr(current, arg) if arg in attrs else _MISSING_STEP
            else:
                current = _step(current, kind, arg)
        else:
            current = _step(current, kind, arg)
        if current is _MISSING_STEP:
            return NoMatch(text)
    if type(current) not in _LEAF_TYPES and isinstance(current, BaseModel):
        return current.model_dump()
    return current


def _step(current: Any, kind: str, arg: Any) -> Any:
    if kind == "field":
        if isinstance(current, dict):
            return current.get(arg, _MISSING_STEP) if arg in current else _MISSING_STEP
        if isinstance(current, BaseModel):
            # Trace/Interaction expose their fields (and `last`) as the dump would.
            cls = type(current)
            attrs = _model_attrs.get(cls)
            if attrs is None:
                # Fields and computed fields, as model_dump shows them (custom and
                # parametrized traces such as Trace[str, str] included).
                computed = getattr(cls, "__pydantic_computed_fields__", None) or {}
                attrs = frozenset((*cls.__pydantic_fields__, *computed, *_COMPUTED.get(cls, ())))
                _model_attrs[cls] = attrs
            return getattr(current, arg) if arg in attrs else _MISSING_STEP
        return _MISSING_STEP
    # index
    if isinstance(current, list | tuple):
        try:
            return current[arg]
        except IndexError:
            return _MISSING_STEP
    return _MISSING_STEP


# Computed attributes the dumped form exposes, registered by the model modules.
_COMPUTED: dict[type, tuple[str, ...]] = {}
# Per model class: the field and computed names a selector may step into.
_model_attrs: dict[type, frozenset[str]] = {}


def register_computed(model: type, *names: str) -> None:
    _COMPUTED[model] = names
    _model_attrs.pop(model, None)


# The exact Trace and Interaction classes resolve() may read `last.outputs` from
# directly (set by trace.py, which imports this module).
_trace_classes: tuple[type, type] = (NoMatch, NoMatch)


def register_trace_classes(trace: type, interaction: type) -> None:
    global _trace_classes
    _trace_classes = (trace, interaction)
