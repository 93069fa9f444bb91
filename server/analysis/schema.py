"""The schema service: what a spec file may hold, read from the engine's own models.

Completion, hover, the check docs (docs.py) and the missing-parameter fix
(add_parameters.py) ask this module, and only this one, for schema facts; it alone reads
the engine's catalog (`fields_of`, `KIND_SPECS`, `SCHEMA_KEY`) and its kind registries.
Nothing here is written per check: registering a check class is enough for it to appear.

- Shapes: a path from the file's root (keys and list indexes, as `Source.path_at` gives
  them) gives a `MappingShape` (`shape_at`, `root_shape`): the keys allowed there with
  their documentation (`FieldDoc`) and, for checks, which key names the kind and which
  class it picks.
- Kinds: the kinds a family registers (`registered_kinds`), the class a kind or a custom
  check names (`check_class`, `named_class`) and back (`kind_of`).
- Parameters: a check's documented parameters (`check_fields`, `field_docs`), those it
  cannot do without, read from its own validation (`needed_parameters`), and a
  placeholder to write for each (`placeholder`).
"""

from __future__ import annotations

import collections.abc
import json
import re
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from checkspec.engine.catalog import SCHEMA_KEY, field_named, fields_of
from checkspec.engine.core.check import Check, KindModel
from checkspec.engine.core.input_generator import InputGenerator
from checkspec.engine.core.jsonpath import JSONPathMarker
from checkspec.engine.core.sentinel import MISSING
from checkspec.engine.interactions import Interact, InteractionSpec
from checkspec.engine.judges.backends import BaseJudge
from checkspec.engine.spec.datasets import DatasetCheck
from checkspec.engine.spec.kinds import FileKind, root_model
from checkspec.engine.spec.tree import Key
from checkspec.engine.spec.workspace_config import CUSTOM_PREFIX, CustomCheck

NOT_SET = "not set"  # the default of an optional key that has no value unless written
# The scenario model, as the catalog names it (a scenario file's top level).
_SCENARIO = root_model(FileKind.SCENARIO)


@dataclass(frozen=True)
class FieldDoc:
    """One key of a mapping: how to write it and what it means."""

    name: str
    type: str
    description: str
    default: str | None  # as written in a file; None when the key is required
    choices: tuple[str, ...] = ()  # the values a Literal / bool accepts
    jsonpath: bool = False
    spellings: tuple[str, ...] = ()  # every key it may be written under

    @property
    def required(self) -> bool:
        return self.default is None


@dataclass(frozen=True)
class Frame:
    """One node on the way from the root to a position.

    `step` is the key or index that reaches it from its parent (None for the root);
    `keys` holds a mapping's keys and their scalar values (None for a list).
    """

    step: Key | None
    keys: Mapping[Any, Any] | None


# What a value is expected to be, before its keys are known ------------------------------


@dataclass(frozen=True)
class _Model:
    model: type[BaseModel]


@dataclass(frozen=True)
class _Family:
    """A mapping whose `kind` picks the class (checks, interactions)."""

    root: type[KindModel]


@dataclass(frozen=True)
class _ListOf:
    item: _Value | None


@dataclass(frozen=True)
class _ParamsOf:
    """A dataset check's `params`: the sibling `identifier` picks the check class."""

    head: str


@dataclass(frozen=True)
class _CustomParams:
    """`params` of a custom check in checkspec.yaml: `type` plus that check's parameters."""


_Value = _Model | _Family | _ListOf | _ParamsOf | _CustomParams

# What a member of a kind family is called in titles ("user_simulator input generator").
_FAMILY_WORDS: dict[type[KindModel], str] = {
    Check: "check",
    InteractionSpec: "interaction",
    InputGenerator: "input generator",
    BaseJudge: "judge",
}

# Fields whose value the models type loosely (`dict[str, Any]`) but the files give a shape.
_OVERRIDES: dict[tuple[type[BaseModel], str], _Value] = {
    (DatasetCheck, "params"): _ParamsOf("identifier"),
    (CustomCheck, "params"): _CustomParams(),
    # Any value, and a mapping there is a simulated user or another input generator.
    (Interact, "inputs"): _Family(InputGenerator),
}


@dataclass(frozen=True)
class MappingShape:
    """What one mapping may hold."""

    title: str
    fields: dict[str, FieldDoc]
    head: str | None = None  # the key naming a kind here: kind / identifier / type
    family: type[KindModel] | None = None  # where `head` values come from
    check: type[KindModel] | None = None  # the class the head picked, if known
    custom: CustomCheck | None = None  # the custom check the head named, if any
    custom_allowed: bool = False  # custom_ identifiers may be used as the head value
    children: dict[str, _Value | None] = field(default_factory=dict)

    def field_for(self, key: Any) -> FieldDoc | None:
        """The field written under `key` (its name, an alias or a deprecated name)."""
        if not isinstance(key, str):
            return None
        found = self.fields.get(key)
        if found is not None:
            return found
        return next((f for f in self.fields.values() if key in f.spellings), None)

    def present(self, keys: Mapping[Any, Any]) -> set[str]:
        """Names of the fields already written in a mapping with these keys."""
        written = {k for k in keys if isinstance(k, str)}
        return {name for name, doc in self.fields.items() if written & {name, *doc.spellings}}


# Walking a path -----------------------------------------------------------------------


def shape_at(
    kind: FileKind | None,
    frames: Sequence[Frame],
    custom: Mapping[str, CustomCheck] | None = None,
) -> MappingShape | None:
    """The shape of the mapping the last frame is (None when unknown or not a mapping)."""
    if kind is None or not frames:
        return None
    custom = custom or {}
    dataset = kind is FileKind.DATASET
    current: _Value | None = _root(kind)
    mapping: MappingShape | None = None
    parent_keys: Mapping[Any, Any] = {}
    for index, frame in enumerate(frames):
        if index > 0:
            if isinstance(current, _ListOf):
                current = current.item if isinstance(frame.step, int) else None
            elif mapping is not None and isinstance(frame.step, str):
                doc = mapping.field_for(frame.step)
                current = mapping.children.get(doc.name) if doc else None
            else:
                current = None
        if current is None:
            return None
        if frame.keys is None:
            if not isinstance(current, _ListOf):
                return None
            mapping = None
            continue
        mapping = _mapping(current, frame.keys, parent_keys, custom, dataset)
        if mapping is None:
            return None
        if index == 0 and SCHEMA_KEY not in mapping.fields:  # any file may name its schema
            mapping = replace(mapping, fields={**mapping.fields, SCHEMA_KEY: _schema_doc()})
        parent_keys = frame.keys
    return mapping


def root_shape(kind: FileKind) -> MappingShape | None:
    """The keys at the top of a file of this kind."""
    return shape_at(kind, [Frame(None, {})])


def _root(kind: FileKind) -> _Value:
    """The model of a file kind's top level, as the catalog names it."""
    return _Model(root_model(kind))


def _mapping(
    value: _Value,
    keys: Mapping[Any, Any],
    parent_keys: Mapping[Any, Any],
    custom: Mapping[str, CustomCheck],
    dataset: bool,
) -> MappingShape | None:
    if isinstance(value, _Model):
        if value.model is DatasetCheck and "kind" in keys:  # datasets also take {kind: ...}
            return _family(_Family(Check), keys, custom, dataset)
        return _model_shape(value.model)
    if isinstance(value, _Family):
        return _family(value, keys, custom, dataset=False)
    if isinstance(value, _ParamsOf):
        cls, named = _check_named(parent_keys.get(value.head), custom)
        if cls is None:
            return None
        fields, children = _fields(cls, dataset=dataset)
        fields.pop("kind", None)
        title = f"parameters of {_name_of(parent_keys.get(value.head))}"
        return MappingShape(title, fields, check=cls, custom=named, children=children)
    if isinstance(value, _CustomParams):
        type_doc = FieldDoc(
            "type", "string", "The built-in check this custom check configures.", None
        )
        cls, _ = _check_named(keys.get("type"), {})
        fields, children = _fields(cls) if cls is not None else ({}, {})
        fields.pop("kind", None)
        return MappingShape(
            "custom check parameters",
            {"type": type_doc, **fields},
            head="type",
            family=Check,
            check=cls,
            children=children,
        )
    return None


def _family(
    value: _Family, keys: Mapping[Any, Any], custom: Mapping[str, CustomCheck], dataset: bool
) -> MappingShape:
    root = value.root
    is_check = issubclass(root, Check)
    written = keys.get("kind")
    if written is None or written == "":
        written = root.default_kind()
    cls: type[KindModel] | None
    named: CustomCheck | None = None
    if is_check:
        cls, named = _check_named(written, custom)
    else:
        cls = root.kind_class(written)
    what = _FAMILY_WORDS.get(root, "interaction")
    if cls is None:
        kind_doc = FieldDoc("kind", "string", f"Which {what} this is.", None)
        return MappingShape(
            what, {"kind": kind_doc}, head="kind", family=root, custom_allowed=is_check
        )
    fields, children = _fields(cls, dataset=dataset and is_check)
    return MappingShape(
        f"{_name_of(written)} {what}",
        fields,
        head="kind",
        family=root,
        check=cls,
        custom=named,
        custom_allowed=is_check,
        children=children,
    )


# Kinds ---------------------------------------------------------------------------------


def registered_kinds(family: type[KindModel]) -> dict[str, type[KindModel]]:
    """Every kind registered in a family and its class, in registration order."""
    return family.registry()


def is_check_family(family: type[KindModel]) -> bool:
    """Checks (the family custom checks belong to), not interactions, judges, generators."""
    return issubclass(family, Check)


def check_class(kind: object) -> type[Check] | None:
    """The check class registered under `kind`, if any."""
    found: type[Check] | None = Check.kind_class(kind)
    return found


def kind_of(cls: type[KindModel] | None) -> str | None:
    """The kind a check class is registered under (None for another class)."""
    return next((k for k, c in Check.registry().items() if c is cls), None)


def named_class(
    family: type[KindModel], name: Any, custom: Mapping[str, CustomCheck] | None = None
) -> tuple[type[KindModel] | None, CustomCheck | None]:
    """The class a kind names in a family, and the custom check it names (checks only)."""
    if issubclass(family, Check):
        return _check_named(name, custom or {})
    return family.kind_class(name), None


def _check_named(
    name: Any, custom: Mapping[str, CustomCheck]
) -> tuple[type[Check] | None, CustomCheck | None]:
    """The check class an identifier names (a custom check names its base check)."""
    if not isinstance(name, str):
        return None, None
    named = custom.get(name) if name.startswith(CUSTOM_PREFIX) else None
    kind = named.base_kind if named is not None else name
    return check_class(kind), named


def _name_of(value: Any) -> str:
    return value if isinstance(value, str) and value else "?"


def _model_shape(model: type[BaseModel]) -> MappingShape:
    fields, children = _fields(model)
    head = family = None
    if model is DatasetCheck:
        head, family = "identifier", Check
    title = yaml_name(model)
    return MappingShape(
        title,
        fields,
        head=head,
        family=family,
        custom_allowed=head is not None,
        children=children,
    )


def yaml_name(model: type) -> str:
    """What a model is called in a file: `a scenario`, `an interaction`, `a dataset check`."""
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", model.__name__).lower()
    words = words.removesuffix(" spec").removesuffix(" file").removesuffix(" config")
    words = {"workspace": "checkspec.yaml", "interact": "interaction"}.get(words, words)
    return (
        f"in {'an' if words[:1] in 'aeio' else 'a'} {words}"
        if words != "checkspec.yaml"
        else "in checkspec.yaml"
    )


def _schema_doc() -> FieldDoc:
    return FieldDoc(SCHEMA_KEY, "string", "The JSON Schema of this file (editors use it).", NOT_SET)


# Fields of a model --------------------------------------------------------------------


def _fields(
    model: type[BaseModel], *, dataset: bool = False
) -> tuple[dict[str, FieldDoc], dict[str, _Value | None]]:
    """Field docs in reading order (a class's own fields before inherited ones), from the
    catalog: only what a file can hold (Python-only fields such as Scenario.trace_type
    are not there)."""
    written = [spec.attribute for spec in fields_of(model).values()]
    own = [n for n in written if n not in _inherited(model)]
    order = own + [n for n in written if n not in own]
    defaults = model.dataset_defaults() if dataset and issubclass(model, Check) else {}
    docs: dict[str, FieldDoc] = {}
    children: dict[str, _Value | None] = {}
    for name in order:
        info = model.model_fields[name]
        doc = field_doc(model, name, info, defaults.get(name, MISSING))
        docs[doc.name] = doc
        children[doc.name] = _OVERRIDES.get((model, name)) or value_shape(info.annotation)
    return docs, children


def _inherited(model: type[BaseModel]) -> set[str]:
    # A check's shared base fields (kind, name, description) read best after its own.
    return set(Check.model_fields) if issubclass(model, Check) else set()


def field_doc(
    model: type[BaseModel], name: str, info: FieldInfo, override_default: Any = MISSING
) -> FieldDoc:
    spec = field_named(model, name)
    key = spec.name if spec is not None else info.alias or name
    spellings = set(spec.spellings) if spec is not None else {key}
    annotation = info.annotation
    jsonpath = spec.jsonpath if spec is not None else False
    if override_default is not MISSING:
        default: str | None = render_value(override_default)
    else:
        default = _default_text(info)
    return FieldDoc(
        name=key,
        type="JSONPath" if jsonpath and _is_plain_str(annotation) else type_text(annotation),
        description=info.description or "",
        default=default,
        choices=choices_of(annotation),
        jsonpath=jsonpath,
        spellings=tuple(sorted(spellings - {key})),
    )


def _default_text(info: FieldInfo) -> str | None:
    if info.is_required():
        return None
    if info.default_factory is not None:
        try:
            return render_value(info.default_factory())  # type: ignore[call-arg]
        except Exception:  # a factory that needs arguments: say it is computed
            return "computed"
    if info.default is MISSING:
        return NOT_SET
    return render_value(info.default)


def render_value(value: Any) -> str:
    """A default as it would be written in a file (JSON-like)."""
    if value is MISSING:
        return NOT_SET
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _has_jsonpath(metadata: Sequence[Any]) -> bool:
    return any(isinstance(m, JSONPathMarker) for m in metadata)


def _is_plain_str(annotation: Any) -> bool:
    args = [a for a in _union_args(_unwrap(annotation)) if a is not MISSING]
    return all(_unwrap(a) is str for a in args)


def _is_union(annotation: Any) -> bool:
    return get_origin(annotation) in (Union, types.UnionType)


def _unwrap(annotation: Any) -> Any:
    while get_origin(annotation) is typing.Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _union_args(annotation: Any) -> tuple[Any, ...]:
    return get_args(annotation) if _is_union(annotation) else (annotation,)


def value_shape(annotation: Any) -> _Value | None:
    """What a field's value looks like, when it is a mapping or a list of them."""
    for arg in _union_args(_unwrap(annotation)):
        arg = _unwrap(arg)
        if arg is MISSING or arg is type(None):
            continue
        origin = get_origin(arg)
        if origin in (list, tuple, set, frozenset, Sequence):
            items = get_args(arg)
            return _ListOf(value_shape(items[0]) if items else None)
        if isinstance(arg, type) and issubclass(arg, KindModel):
            return _Family(_family_root(arg))
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return _Model(arg)
    return None


def _family_root(cls: type[KindModel]) -> type[KindModel]:
    for base in cls.__mro__:
        if base is not KindModel and "_registry" in base.__dict__:
            return base
    return cls


def choices_of(annotation: Any) -> tuple[str, ...]:
    """The values a Literal (also inside a list or optional) or a bool accepts."""
    found: list[str] = []
    for arg in _union_args(_unwrap(annotation)):
        arg = _unwrap(arg)
        if get_origin(arg) is Literal:
            found.extend(str(v).lower() if isinstance(v, bool) else str(v) for v in get_args(arg))
        elif arg is bool:
            found.extend(("true", "false"))
        elif get_origin(arg) in (list, tuple, set, frozenset) and get_args(arg):
            found.extend(choices_of(get_args(arg)[0]))
    return tuple(dict.fromkeys(found))


def type_text(annotation: Any) -> str:
    """A short, readable type: `string`, `'any' | 'all'`, `list[check]`, `JSONPath`."""
    if get_origin(annotation) is typing.Annotated:
        if _has_jsonpath(annotation.__metadata__):
            return "JSONPath"
        return type_text(get_args(annotation)[0])
    if _is_union(annotation):
        # Callables can be given in Python, never in a file: only what a file can hold.
        parts = [
            type_text(a) for a in get_args(annotation) if a is not MISSING and not _is_callable(a)
        ]
        return " | ".join(dict.fromkeys(parts))
    origin = get_origin(annotation)
    if origin is Literal:
        return " | ".join(repr(v) for v in get_args(annotation))
    if origin in (list, tuple, set, frozenset, Sequence):
        args = get_args(annotation)
        return f"list[{type_text(args[0])}]" if args else "list"
    if origin in (dict, Mapping) or annotation is dict:
        return "mapping"
    simple = {
        str: "string",
        bool: "boolean",
        int: "integer",
        float: "number",
        type(None): "null",
        Any: "any",
    }
    if annotation in simple:
        return simple[annotation]
    if isinstance(annotation, type) and issubclass(annotation, Check):
        return "check"
    if isinstance(annotation, type) and issubclass(annotation, InteractionSpec):
        return "interaction"
    if annotation is _SCENARIO:
        return "scenario"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation.__name__
    return getattr(annotation, "__name__", str(annotation))


def _is_callable(annotation: Any) -> bool:
    return get_origin(annotation) is collections.abc.Callable


def _first_line(text: str | None) -> str:
    return (text or "").strip().split("\n", 1)[0].strip()


def summary_of(cls: type) -> str:
    """The first line of a class's docstring."""
    return _first_line(cls.__doc__)


def check_fields(cls: type[BaseModel], *, dataset: bool = False) -> dict[str, FieldDoc]:
    """The parameters of a check class (without `kind`), own ones first."""
    fields, _ = _fields(cls, dataset=dataset)
    fields.pop("kind", None)
    return fields


def field_docs(kind: str) -> dict[str, FieldDoc]:
    """The parameters of the check registered under `kind` (none for an unknown kind)."""
    cls = check_class(kind)
    return check_fields(cls) if cls is not None else {}


# Parameters a check cannot do without ----------------------------------------------------
# Read from the check's own validation (nothing is hard-coded): validating `{kind}` alone
# says which fields are missing, and which "one of" pairs (`expected_value` or
# `expected_value_key`) need one; the first of a pair is the one to write.


def needed_parameters(kind: str, given: tuple[str, ...] = ()) -> list[str]:
    """The parameters `kind` still needs when `given` are written (in the order to write)."""
    return [name for name in _needed(kind) if name not in given]


@lru_cache(maxsize=512)
def _needed(kind: str) -> tuple[str, ...]:
    cls = check_class(kind)
    if cls is None:
        return ()
    try:
        Check.model_validate({"kind": kind})
    except ValidationError as exc:
        names: list[str] = []
        for error in exc.errors():
            loc, ctx = error.get("loc", ()), error.get("ctx") or {}
            if error["type"] == "missing" and len(loc) == 1 and isinstance(loc[0], str):
                names.append(loc[0])
            elif error["type"] == "exactly_one" and not loc and ctx.get("value_field"):
                names.append(str(ctx["value_field"]))
        order = list(check_fields(cls))
        return tuple(
            sorted(dict.fromkeys(names), key=lambda n: order.index(n) if n in order else 99)
        )
    except Exception:  # a check whose validation needs more than its kind: none known
        return ()
    return ()


def placeholder(doc: FieldDoc | None) -> str:
    """A value to write for a parameter until the user writes the real one (YAML)."""
    if doc is None:
        return '""'
    if doc.choices:
        return doc.choices[0]
    kind = doc.type
    if kind.startswith("list"):
        return "[]"
    if kind == "check":
        return "{kind: string_matching, keyword: TODO}"
    if kind in ("integer", "number") or kind.startswith(("integer", "number")):
        return "0"
    if kind == "mapping":
        return "{}"
    return "TODO"
