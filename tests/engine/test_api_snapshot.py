"""checkspec.engine against the public API of giskard-checks 1.0.6.

tests/data/giskard_checks_api.json is written by bench/giskard_api_snapshot.py from the
library itself (Python 3.13 only, so it is committed). Every public name must exist
with the same kind, number of type parameters, fields (and their defaults), methods
(async or not, parameter names, kinds and defaults), properties and enum members.
Ours may accept more (an extra optional parameter or field, a default where the
original requires a value); never less. The few deliberate differences are listed in
DIFFERENCES with their reason (docs/compatibility.md), and a listed difference that
no longer exists fails the test too, so the list stays true.
"""

from __future__ import annotations

import enum
import inspect
import json
import types
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

import checkspec.engine as engine
from tests.support.paths import DATA

SNAPSHOT = json.loads((DATA / "giskard_checks_api.json").read_text(encoding="utf-8"))

# What we do differently on purpose (docs/compatibility.md says why).
DIFFERENCES = {
    # docs/decisions.md, "Where the reference documents disagree": the seed's 1.0 s default.
    "RegexMatching.match_timeout_seconds: default 1.0, original 2.0",
}


def _default_text(value: Any) -> str:
    if value is inspect.Parameter.empty or value is PydanticUndefined:
        return "<required>"
    if repr(value) == "MISSING":
        return "MISSING"
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, type):
        return value.__name__
    if callable(value):
        return f"<callable {getattr(value, '__name__', type(value).__name__)}>"
    if isinstance(value, str | int | float | bool | type(None) | list | dict | tuple):
        return repr(value)
    return f"<{type(value).__name__}>"


def _field_default(info: Any) -> str:
    if info.default_factory is not None:
        try:
            return f"factory:{_default_text(info.default_factory())}"
        except Exception:
            return "factory:<needs data>"
    return _default_text(info.default)


def _same_default(ours: str, theirs: str) -> bool:
    # A factory that builds the same value is the same default (`[]` either way).
    strip = lambda text: text.removeprefix("factory:")  # noqa: E731
    return strip(ours) == strip(theirs)


def _type_params(cls: type) -> int:
    if issubclass(cls, BaseModel):
        return len(cls.__pydantic_generic_metadata__["parameters"])
    return len(getattr(cls, "__parameters__", ()) or ())


def _compare_params(where: str, theirs: list[dict[str, Any]], func: Any) -> list[str]:
    problems: list[str] = []
    try:
        ours = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return [f"{where}: no signature"]
    params = list(ours.values())
    if params and params[0].name in ("self", "cls"):
        params = params[1:]
    by_name = {p.name: p for p in params}
    takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in params)
    for expected in theirs:
        name, kind, default = expected["name"], expected["kind"], expected["default"]
        if kind in ("VAR_POSITIONAL", "VAR_KEYWORD"):
            if not any(p.kind.name == kind for p in params):
                problems.append(f"{where}: no *{name}" if kind == "VAR_POSITIONAL" else "")
            continue
        param = by_name.get(name)
        if param is None:
            if not takes_kwargs or kind == "POSITIONAL_ONLY":
                problems.append(f"{where}: parameter {name!r} missing")
            continue
        if kind == "POSITIONAL_OR_KEYWORD" and param.kind not in (param.POSITIONAL_OR_KEYWORD,):
            problems.append(f"{where}: parameter {name!r} is {param.kind.name}, original {kind}")
        if kind == "KEYWORD_ONLY" and param.kind is param.POSITIONAL_ONLY:
            problems.append(f"{where}: parameter {name!r} is positional-only")
        ours_default = _default_text(param.default)
        if default != "<required>" and ours_default != default:
            problems.append(f"{where}({name}): default {ours_default}, original {default}")
    known = {p["name"] for p in theirs}
    for param in params:
        extra = param.name not in known and param.kind not in (param.VAR_KEYWORD,)
        if extra and param.default is param.empty and param.kind is not param.VAR_POSITIONAL:
            problems.append(f"{where}: extra required parameter {param.name!r}")
    return [p for p in problems if p]


def _compare_class(name: str, theirs: dict[str, Any], cls: Any) -> list[str]:
    if not isinstance(cls, type):
        return [f"{name}: not a class"]
    problems: list[str] = []
    if theirs["generic_params"] and _type_params(cls) != theirs["generic_params"]:
        problems.append(
            f"{name}: {_type_params(cls)} type parameters, original {theirs['generic_params']}"
        )
    if theirs["is_exception"] and not issubclass(cls, BaseException):
        problems.append(f"{name}: not an exception")
    if "enum_members" in theirs:
        ours = {m.name: m.value for m in cls} if issubclass(cls, enum.Enum) else {}
        if ours != theirs["enum_members"]:
            problems.append(f"{name}: enum members {ours}, original {theirs['enum_members']}")
        return problems
    if theirs["is_pydantic"]:
        fields = cls.model_fields if issubclass(cls, BaseModel) else {}
        computed = set(getattr(cls, "model_computed_fields", {}) or {})
        for field, spec in theirs["fields"].items():
            info = fields.get(field)
            if info is None:
                problems.append(f"{name}.{field}: field missing")
                continue
            ours = _field_default(info)
            if spec["default"] != "<required>" and not _same_default(ours, spec["default"]):
                problems.append(
                    f"{name}.{field}: default {ours.removeprefix('factory:')}, "
                    f"original {spec['default'].removeprefix('factory:')}"
                )
        for field in theirs["computed_fields"]:
            # `kind` is a computed field there and a (dumped) field here: same data.
            if field not in computed and field not in fields and not hasattr(cls, field):
                problems.append(f"{name}.{field}: computed field missing")
    for prop in theirs.get("properties", []):
        if not hasattr(cls, prop) and prop not in getattr(cls, "model_fields", {}):
            problems.append(f"{name}.{prop}: property missing")
    for method, spec in theirs.get("methods", {}).items():
        func = inspect.getattr_static(cls, method, None)
        if func is None:
            problems.append(f"{name}.{method}: method missing")
            continue
        raw = func.__func__ if isinstance(func, classmethod | staticmethod) else func
        if spec["kind"] == "classmethod" and not isinstance(func, classmethod):
            problems.append(f"{name}.{method}: not a classmethod")
        is_async = inspect.iscoroutinefunction(raw) or inspect.isasyncgenfunction(raw)
        if is_async != spec["async"] and method != "generate":
            problems.append(f"{name}.{method}: async={is_async}, original async={spec['async']}")
        if method == "__init__" and issubclass(cls, BaseModel) and raw is BaseModel.__init__:
            continue
        problems += _compare_params(f"{name}.{method}", spec["params"], raw)
    return problems


def _compare(name: str, theirs: dict[str, Any]) -> list[str]:
    if not hasattr(engine, name):
        return [f"{name}: missing"]
    value = getattr(engine, name)
    kind = theirs["kind"]
    if kind == "module":
        if not isinstance(value, types.ModuleType):
            return [f"{name}: not a module"]
        ours = set(getattr(value, "__all__", ()))
        return [f"{name}.{n}: missing from the module" for n in theirs["all"] if n not in ours]
    if kind == "str":
        return [] if isinstance(value, str) else [f"{name}: not a str"]
    if kind == "type_alias":
        params = getattr(value, "__type_params__", None)
        if params is None or len(params) != theirs["generic_params"]:
            return [f"{name}: not a generic type alias of {theirs['generic_params']} parameters"]
        return []
    if kind == "function":
        if not callable(value):
            return [f"{name}: not callable"]
        is_async = inspect.iscoroutinefunction(value)
        problems = [] if is_async == theirs["async"] else [f"{name}: async={is_async}"]
        return problems + _compare_params(name, theirs["params"], value)
    return _compare_class(name, theirs, value)


def api_problems() -> dict[str, list[str]]:
    return {name: _compare(name, spec) for name, spec in SNAPSHOT["names"].items()}


def test_snapshot_is_of_the_reference_release() -> None:
    assert SNAPSHOT["package"] == "giskard-checks"
    assert SNAPSHOT["version"] == "1.0.6"
    assert len(SNAPSHOT["all"]) == 71


def test_every_public_name_of_the_original_is_exported() -> None:
    missing = [name for name in SNAPSHOT["all"] if name not in engine.__all__]
    assert missing == []


@pytest.mark.parametrize("name", SNAPSHOT["all"])
def test_name_matches_the_original(name: str) -> None:
    problems = set(_compare(name, SNAPSHOT["names"][name]))
    allowed = {d for d in DIFFERENCES if d.startswith(f"{name}.")}
    assert problems - allowed == set()


def test_listed_differences_still_exist() -> None:
    found = {p for problems in api_problems().values() for p in problems}
    assert DIFFERENCES - found == set()
