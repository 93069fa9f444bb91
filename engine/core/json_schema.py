"""JSON Schema validation that never reads the network and never runs unbounded.

Schemas come from spec files people did not necessarily write, and are checked on every
keystroke. So:

- `$ref`s are resolved only inside the schema itself (and the bundled meta-schemas): the
  `referencing` registry refuses every retrieval, and `remote_refs` lists the others so the
  analysis can point at them;
- every keyword runs under one deadline per validation, and `pattern`, `patternProperties`
  and `additionalProperties` match with the `regex` module's timeout (Python's `re`, which
  jsonschema uses, cannot be interrupted: `^(a|aa)+$` on 50 `a`s runs for hours);
- `uniqueItems` is linear, not quadratic, on lists of objects.

`unevaluatedProperties` next to `patternProperties` is refused (`unsupported`): jsonschema
matches those patterns with `re`, out of reach of any timeout.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import urldefrag, urljoin

from .timed_regex import search as timed_search

if TYPE_CHECKING:
    import regex

__all__ = [
    "SchemaTimeout",
    "bounded_errors",
    "offline_validator",
    "quick_check",
    "remote_refs",
    "schema_problem",
    "unsupported",
]

_REF_KEYS = ("$ref", "$dynamicRef")
_ID_KEYS = ("$id", "id")
_deadline: ContextVar[float] = ContextVar("checkspec_schema_deadline", default=float("inf"))


class SchemaTimeout(Exception):
    """Validation ran past its deadline; `pattern` is the regex being matched, if one was."""

    def __init__(self, seconds: float, pattern: str | None = None) -> None:
        self.seconds = seconds
        self.pattern = pattern
        what = f"matching the pattern {pattern!r}" if pattern is not None else "validation"
        super().__init__(f"{what} took more than {seconds:g} s")


# -- what a schema refers to ----------------------------------------------------------------


def remote_refs(schema: Any) -> list[tuple[list[str | int], str]]:
    """(path of the `$ref` key, its value) for every reference outside `schema` itself."""
    ids: set[str] = set()
    refs: list[tuple[list[str | int], str, str]] = []  # path, ref, base it is read against
    stack: list[tuple[Any, list[str | int], str]] = [(schema, [], "")]
    while stack:  # iterative: a schema may nest as deep as the file allows
        node, path, base = stack.pop()
        if isinstance(node, dict):
            for key in _ID_KEYS:
                if isinstance(node.get(key), str) and not node[key].startswith("#"):
                    base = urldefrag(urljoin(base, node[key])).url
                    ids.add(base)
            for key in _REF_KEYS:
                if isinstance(node.get(key), str):
                    refs.append(([*path, key], node[key], base))
            stack.extend((value, [*path, key], base) for key, value in node.items())
        elif isinstance(node, list):
            stack.extend((value, [*path, i], base) for i, value in enumerate(node))
    found = []
    for path, ref, base in refs:
        target = urldefrag(urljoin(base, ref)).url
        if target and target != base and target not in ids and target not in _specifications():
            found.append((path, ref))
    return sorted(found, key=lambda item: [str(p) for p in item[0]])


def unsupported(schema: Any) -> str | None:
    """Why `schema` cannot be checked with a time limit, or None."""
    keys: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            keys.update(k for k in node if isinstance(k, str))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    if {"unevaluatedProperties", "patternProperties"} <= keys:
        return (
            "unevaluatedProperties together with patternProperties is not supported: those "
            "patterns could not be matched with a time limit"
        )
    return None


def schema_problem(schema: Any) -> str | None:
    """Why `schema` is not a usable JSON Schema, or None when it is."""
    if not isinstance(schema, dict | bool):
        return f"a JSON Schema must be an object, got {type(schema).__name__}"
    from jsonschema import SchemaError
    from jsonschema.validators import validator_for

    try:
        validator_for(schema).check_schema(schema)  # type: ignore[arg-type]  # the stubs omit bool schemas
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.path)
        return f"invalid JSON Schema{f' at {where}' if where else ''}: {exc.message}"
    except RecursionError:
        return "the JSON Schema nests too deeply to check"
    refs = remote_refs(schema)
    if refs:
        return (
            f"$ref {refs[0][1]!r} points outside this schema: checkspec never fetches schemas "
            "(no network, no files); copy it under $defs and refer to it as '#/$defs/...'"
        )
    return unsupported(schema)  # patterns were checked above: format 'regex'


# -- validating ---------------------------------------------------------------------------


def offline_validator(schema: Any) -> Any:
    """A validator for `schema` whose references resolve offline and whose keywords are bounded."""
    from jsonschema.validators import validator_for

    return _bounded_class(validator_for(schema))(schema, registry=_offline_registry())


def bounded_errors(
    validator: Any, instance: Any, seconds: float, *, first: bool = False
) -> list[Any]:
    """The validation errors of `instance` (only the first with `first`), within `seconds`.

    Raises SchemaTimeout past the deadline, and referencing's Unresolvable for a `$ref` that
    is neither in the schema nor a bundled meta-schema.
    """
    token = _limit.set((time.perf_counter() + seconds, seconds))
    try:
        errors = []
        for error in validator.iter_errors(instance):
            errors.append(error)
            if first:
                break
        return errors
    except RecursionError:  # a $ref cycle the instance keeps descending into
        raise SchemaTimeout(seconds) from None
    finally:
        _limit.reset(token)


# (deadline on the perf_counter clock, the seconds it was given) of the current validation
_limit: ContextVar[tuple[float, float]] = ContextVar(
    "checkspec_schema_limit", default=(float("inf"), 0.0)
)


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> regex.Pattern[str]:
    import regex  # deferred: validating a file needs no regex engine

    return regex.compile(pattern)


def _check_deadline(pattern: str | None = None) -> float:
    """Seconds left before the deadline; SchemaTimeout when none are."""
    deadline, seconds = _limit.get()
    left = deadline - time.perf_counter()
    if left <= 0:
        raise SchemaTimeout(seconds, pattern)
    return left


def _search(pattern: str, text: str) -> bool:
    left = _check_deadline(pattern)
    try:
        return timed_search(_compiled(pattern), text, left) is not None
    except TimeoutError:
        raise SchemaTimeout(_limit.get()[1], pattern) from None


def _guarded(keyword: Callable[..., Any]) -> Callable[..., Any]:
    """The keyword, after checking the deadline (every subschema passes through here)."""

    def run(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        _check_deadline()
        return keyword(validator, value, instance, schema)

    return run


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: Any
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Any, allowed: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = [
        key
        for key in instance
        if key not in properties and not any(_search(p, key) for p in patterns)
    ]
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        names = ", ".join(repr(each) for each in sorted(extras, key=str))
        if patterns:
            verb = "does" if len(extras) == 1 else "do"
            shown = ", ".join(repr(each) for each in sorted(patterns))
            yield ValidationError(f"{names} {verb} not match any of the regexes: {shown}")
        else:
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(
                f"Additional properties are not allowed ({names} {verb} unexpected)"
            )


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not unique or not validator.is_type(instance, "array"):
        return
    seen: set[str] = set()
    for item in instance:
        key = _canonical(item)
        if key in seen:
            yield ValidationError(f"{instance!r} has non-unique elements")
            return
        seen.add(key)


def _canonical(value: Any) -> str:
    """One text for equal JSON values, compared as JSON Schema does (1 == 1.0, true != 1)."""
    return json.dumps(_numbers_as_floats(value), sort_keys=True, default=str)


def _numbers_as_floats(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        try:
            return float(value)
        except OverflowError:  # an int too large for a float equals no float
            return value
    if isinstance(value, dict):
        return {str(k): _numbers_as_floats(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_numbers_as_floats(v) for v in value]
    return value


_OVERRIDES = {
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
    "uniqueItems": _unique_items,
}


@cache
def _bounded_class(base: Any) -> type:
    from jsonschema.validators import extend

    keywords = {name: _guarded(_OVERRIDES.get(name, fn)) for name, fn in base.VALIDATORS.items()}
    return extend(base, validators=keywords)


@cache
def _offline_registry() -> Any:
    from jsonschema_specifications import REGISTRY
    from referencing import Registry
    from referencing.exceptions import NoSuchResource

    def refuse(uri: str) -> Any:
        # (attrs' field aliases, which mypy's attrs support does not read)
        raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # never fetched: no network, no files

    return REGISTRY.combine(Registry(retrieve=refuse))  # type: ignore[call-arg]


@cache
def _specifications() -> frozenset[str]:
    from jsonschema_specifications import REGISTRY

    return frozenset(urldefrag(uri).url for uri in REGISTRY)


# -- a quick yes for the common value ---------------------------------------------------------

# The keywords `quick_check` understands; a schema with any other is not quick-checked.
_QUICK_KEYWORDS = frozenset(
    {"type", "required", "properties", "items", "minItems", "enum"}
    | {"$schema", "title", "description", "$comment", "default", "examples"}
)
_QUICK_DRAFTS = frozenset(
    f"http://json-schema.org/draft-0{n}/schema{end}" for n in (4, 6, 7) for end in ("", "#")
) | frozenset(
    f"https://json-schema.org/draft/{year}/schema{end}"
    for year in ("2019-09", "2020-12")
    for end in ("", "#")
)
# Each JSON Schema type, by the exact Python types of json values it surely is.
_QUICK_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "null": (type(None),),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
}


def quick_check(schema: Any) -> Callable[[Any], bool] | None:
    """A plain-Python test that says True only of values `schema` surely accepts.

    For the few keywords most dataset schemas use (the chat format's: type, required,
    properties, items, minItems, enum of strings); None for a schema with any other. A
    value it says False of may still be valid: ask the validator then, which also words
    the errors. Checking a well-formed row this way costs a few microseconds, where
    jsonschema's validator costs a hundred and more.
    """
    if not isinstance(schema, dict):
        return None
    draft = schema.get("$schema")
    if draft is not None and draft not in _QUICK_DRAFTS:
        return None
    return _quick(schema, 0)


def _quick(schema: Any, depth: int) -> Callable[[Any], bool] | None:
    if not isinstance(schema, dict) or depth > 20 or not _QUICK_KEYWORDS.issuperset(schema):
        return None
    tests: list[Callable[[Any], bool]] = []
    kind = schema.get("type")
    if kind is not None:
        names = kind if isinstance(kind, list) else [kind]
        if not all(isinstance(name, str) and name in _QUICK_TYPES for name in names):
            return None
        allowed = frozenset(t for name in names for t in _QUICK_TYPES[name])
        tests.append(lambda value: type(value) in allowed)
    if "enum" in schema:
        choices = schema["enum"]
        if not isinstance(choices, list):
            return None
        words = frozenset(choice for choice in choices if isinstance(choice, str))
        tests.append(lambda value: type(value) is str and value in words)
    required = schema.get("required", [])
    properties = schema.get("properties", {})
    if not isinstance(required, list) or not isinstance(properties, dict):
        return None
    children: dict[str, Callable[[Any], bool]] = {}
    for name, child in properties.items():
        test = _quick(child, depth + 1)
        if test is None:
            return None
        children[name] = test
    if required or children:
        needed = tuple(required)

        def fields(value: Any) -> bool:
            if type(value) is not dict:
                return False  # (not an object: the validator decides)
            for name in needed:
                if name not in value:
                    return False
            for name, test in children.items():
                if name in value and not test(value[name]):
                    return False
            return True

        tests.append(fields)
    if "items" in schema or "minItems" in schema:
        item = _quick(schema.get("items", {}), depth + 1)
        least = schema.get("minItems", 0)
        if item is None or type(least) is not int:
            return None

        def elements(value: Any) -> bool:
            return type(value) is list and len(value) >= least and all(map(item, value))

        tests.append(elements)
    if len(tests) == 1:
        return tests[0]
    return lambda value: all(test(value) for test in tests)
