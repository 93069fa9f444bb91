"""Write a snapshot of giskard-checks' public API to tests/data/giskard_checks_api.json.

Runs only under the oracle (Python 3.13 with `pip install 'giskard-checks[all]==1.0.6'`):

    /path/to/oracle/bin/python bench/giskard_api_snapshot.py [--out FILE]

For every name of `giskard.checks.__all__` it records what a caller relies on: for
classes their generic parameters, pydantic fields (annotation, required, default),
public methods with their parameters (kind, default) and whether they are async,
properties and enum members; for functions their parameters; for modules their
`__all__`. tests/engine/test_api_snapshot.py compares checkspec.engine against the file, so
CI needs no Python 3.13. Annotations are recorded for the reader; the test compares
names, parameter kinds, defaults and required-ness.
"""

from __future__ import annotations

import argparse
import enum
import inspect
import json
import os
import re
import sys
import types
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "giskard_checks_api.json"

# Bases whose members are pydantic's or the standard library's, not the library's API.
_FOREIGN_MODULES = ("pydantic", "builtins", "typing", "abc", "enum", "rich", "collections")


def _text(value: Any) -> str:
    """A stable text for a default value (no memory addresses)."""
    if value is inspect.Parameter.empty:
        return "<required>"
    name = type(value).__name__
    if name == "MISSING" or repr(value) == "MISSING":
        return "MISSING"
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, type):
        return value.__name__
    if callable(value):
        return f"<callable {getattr(value, '__name__', name)}>"
    if isinstance(value, str | int | float | bool | type(None) | list | dict | tuple):
        return repr(value)
    return f"<{name}>"


def _annotation(annotation: Any) -> str:
    if annotation is inspect.Parameter.empty:
        return ""
    if isinstance(annotation, type):
        text = annotation.__qualname__
    else:
        text = annotation if isinstance(annotation, str) else repr(annotation)
    text = re.sub(r" at 0x[0-9a-f]+", "", text)  # function reprs inside Annotated[...]
    text = re.sub(r"<class '([\w.]+)'>", r"\1", text)
    return text.replace("typing.", "").replace("giskard.checks.", "")


def _params(func: Any) -> list[dict[str, Any]] | None:
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    return [
        {
            "name": p.name,
            "kind": p.kind.name,
            "default": _text(p.default),
            "annotation": _annotation(p.annotation),
        }
        for p in signature.parameters.values()
    ]


def _is_async(func: Any) -> bool:
    return inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func)


def _own_module(obj: Any) -> bool:
    module = getattr(obj, "__module__", "") or ""
    return module.startswith("giskard.")


def _members(cls: type) -> dict[str, Any]:
    methods: dict[str, Any] = {}
    properties: list[str] = []
    for klass in reversed(cls.__mro__):
        if not _own_module(klass) or klass.__module__.startswith(_FOREIGN_MODULES):
            continue
        for name, raw in vars(klass).items():
            public = not name.startswith("_") or name in ("__init__", "__call__")
            if not public or name in ("model_config", "model_fields"):
                continue
            if isinstance(raw, property) or type(raw).__name__ == "PydanticDescriptorProxy":
                wrapped = getattr(raw, "wrapped", raw)
                if isinstance(wrapped, property):
                    properties.append(name)
                    methods.pop(name, None)
                continue
            if isinstance(raw, classmethod | staticmethod):
                func = raw.__func__
                kind = "classmethod" if isinstance(raw, classmethod) else "staticmethod"
            elif inspect.isfunction(raw):
                func, kind = raw, "method"
            else:
                continue
            params = _params(func)
            if params is None:
                continue
            if kind == "classmethod" or kind == "method":
                params = params[1:]  # cls / self
            methods[name] = {"kind": kind, "async": _is_async(func), "params": params}
    return {"methods": dict(sorted(methods.items())), "properties": sorted(set(properties))}


def _fields(cls: type) -> dict[str, Any]:
    from pydantic_core import PydanticUndefined

    fields: dict[str, Any] = {}
    for name, info in cls.model_fields.items():
        if info.default_factory is not None:
            try:
                default = f"factory:{_text(info.default_factory())}"
            except Exception:
                default = "factory:<needs data>"
        elif info.default is PydanticUndefined:
            default = "<required>"
        else:
            default = _text(info.default)
        fields[name] = {
            "required": info.is_required(),
            "default": default,
            "annotation": _annotation(info.annotation),
            "alias": info.alias,
            "exclude": bool(info.exclude),
        }
    computed = sorted(getattr(cls, "model_computed_fields", {}) or {})
    return {"fields": fields, "computed_fields": computed}


def _class(cls: type) -> dict[str, Any]:
    from pydantic import BaseModel

    entry: dict[str, Any] = {
        "kind": "class",
        "generic_params": len(getattr(cls, "__type_params__", ()) or ())
        or len(getattr(cls, "__parameters__", ()) or ()),
        "bases": [b.__name__ for b in cls.__mro__[1:] if _own_module(b)],
        "is_exception": issubclass(cls, BaseException),
        "is_pydantic": issubclass(cls, BaseModel),
    }
    if issubclass(cls, enum.Enum):
        entry["enum_members"] = {m.name: m.value for m in cls}
        entry["is_str_enum"] = issubclass(cls, str)
        return entry
    if issubclass(cls, BaseModel):
        entry.update(_fields(cls))
        entry["kind_id"] = (
            getattr(cls, "_kind", None) if isinstance(getattr(cls, "_kind", None), str) else None
        )
    entry.update(_members(cls))
    if issubclass(cls, BaseModel) and "__init__" in entry["methods"]:
        # pydantic's own (**data) __init__ says nothing; a custom one does.
        init = entry["methods"]["__init__"]
        if [p["kind"] for p in init["params"]] == ["VAR_KEYWORD"]:
            del entry["methods"]["__init__"]
    return entry


def describe(name: str, value: Any) -> dict[str, Any]:
    if isinstance(value, types.ModuleType):
        return {"kind": "module", "all": sorted(getattr(value, "__all__", []))}
    if isinstance(value, str):
        return {"kind": "str"}
    if isinstance(value, type):
        return _class(value)
    if type(value).__name__ == "TypeAliasType":
        return {"kind": "type_alias", "generic_params": len(value.__type_params__)}
    if callable(value):
        return {"kind": "function", "async": _is_async(value), "params": _params(value)}
    return {"kind": type(value).__name__}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    for var in ("DO_NOT_TRACK", "GISKARD_TELEMETRY_DISABLED", "GISKARD_QUIET"):
        os.environ.setdefault(var, "1")
    os.environ.setdefault("GISKARD_CHECKS_DISABLE_RICH_PRETTY", "true")
    from importlib.metadata import version

    import giskard.checks as gc

    names = list(gc.__all__)
    snapshot = {
        "package": "giskard-checks",
        "version": version("giskard-checks"),
        "python": sys.version.split()[0],
        "all": names,
        "names": {name: describe(name, getattr(gc, name)) for name in names},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(snapshot, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"{len(names)} names -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
