"""One validator for a whole model tree whose check and interaction families dispatch in Rust.

`Check.model_validate` (and any field typed `Check` or `InteractionSpec`) dispatches on
`kind` in Python (`KindModel._dispatch_kind`, core/check.py): a Rust -> Python -> Rust
hop for every check dict, about as costly as validating the check's own fields. A
pydantic-core tagged union would dispatch in Rust but adds the kind to the location of
every error inside a check, so it cannot replace the dispatch. `BulkValidator` uses one
only to try: it validates with a copy of a model's schema in which every family root is a
tagged union over the kinds registered, and when that raises a ValidationError the caller
validates again with the model's own validator, whose errors (and whose dispatch of an
unknown kind, a missing `kind`, a deprecated selector spelling...) are the ones reported.
What the copy accepts, the model's validator accepts with the same result: each kind is
validated with its class's schema minus the dispatch wrap (core/check.py's
`_direct_validator` does the same for one check), and anything the dispatch would have
handled differently (a deprecated spelling is an extra key, a kind not registered yet is
not a tag) fails in the copy.

pydantic-core reuses the validator of a model class whose schema is that model (Scenario,
Step): the copy validates their fields and builds the instance here, as pydantic-core
does (`__dict__`, extra, fields set, then `post_init`), without their `__init__`
(`Scenario.__init__` only adds the positional name). The copy is rebuilt when a registry
or one of the validators it was made from changes.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined, SchemaValidator

from .check import _DISPATCH, _without_dispatch, family_changes
from .construct import _new, _set_dict, _set_extra, _set_private, fields_set_writer

_own_validator = operator.itemgetter("__pydantic_validator__")


def _family_root(node: dict[str, Any]) -> type | None:
    """The family root (Check, InteractionSpec...) whose dispatch wrap `node` is, if any."""
    if node.get("type") != "function-wrap":
        return None
    function = node.get("function")
    wrapped = function.get("function") if isinstance(function, dict) else None
    if getattr(wrapped, "__func__", None) is not _DISPATCH:
        return None
    cls: Any = wrapped.__self__  # type: ignore[union-attr]
    # Only a plain root: a registered class or a parametrized root keeps its own wrap.
    if cls._kind is None and "_registry" in cls.__dict__:
        return cls
    return None


def _builder(cls: type[BaseModel], post_init: str | None) -> Callable[[Any], Any]:
    """Make a `cls` from what its model-fields schema returns, as pydantic-core does."""
    set_fields_set = fields_set_writer(cls)
    private = _private_defaults(cls, post_init)
    if private is not None:
        post_init = None  # all it would do: give the instance `private`'s values

    def build(validated: Any) -> Any:
        values, extra, fields_set = validated
        model = _new(cls)
        _set_dict(model, values)
        _set_extra(model, extra)
        _set_private(model, None if private is None else private.copy())
        set_fields_set(model, fields_set)
        if post_init is not None:
            getattr(model, post_init)(None)
        return model

    return build


_ATOMS = (type(None), bool, int, float, complex, str, bytes)


def _atomic(value: Any) -> bool:
    return type(value) in _ATOMS or (type(value) is tuple and all(map(_atomic, value)))


def _private_defaults(cls: type[BaseModel], post_init: str | None) -> dict[str, Any] | None:
    """The private attributes `post_init` gives every `cls`, when that is all it does
    (pydantic's own `init_private_attributes`, no model_post_init of the class) and every
    default is an immutable atom or a tuple of them: then a copy of this dict is exactly
    what it makes (Scenario: ~2 us a scenario for its two private defaults). Else None."""
    try:
        from pydantic._internal._model_construction import init_private_attributes
    except ImportError:  # a pydantic without it: post_init runs as pydantic-core runs it
        return None
    if post_init is None or getattr(cls, post_init, None) is not init_private_attributes:
        return None
    defaults: dict[str, Any] = {}
    for name, attribute in cls.__private_attributes__.items():
        if getattr(attribute, "default_factory", None) is not None:
            return None
        default = getattr(attribute, "default", PydanticUndefined)
        if default is PydanticUndefined:
            continue  # left unset, as pydantic leaves it
        if not _atomic(default):
            return None
        defaults[name] = default
    return defaults


class _Copy:
    """A model's schema rewritten as the module docstring says, and what it was made from."""

    def __init__(self, model: type[BaseModel], own: tuple[type[BaseModel], ...]) -> None:
        for cls in own:  # a deferred build (defer_build) has no schema to copy yet
            if not cls.__pydantic_complete__:
                cls.model_rebuild()
        changes = family_changes()
        self.own = own
        self.definitions: dict[str, Any] = {}
        self.aliases: dict[str, str] = {}
        self.roots: dict[type, str] = {}
        reduced: Any = model.__pydantic_validator__.__reduce__()  # (class, (schema, config, ...))
        schema, config = reduced[1][:2]
        top = self._fix(self._rewrite(schema))
        definitions = [
            self._fix(node)
            for ref, node in self.definitions.items()
            if not (node.get("type") == "definition-ref" and ref in self.aliases)
        ]
        self.validator = SchemaValidator(
            {"type": "definitions", "schema": top, "definitions": definitions}, config
        )
        self.changes = changes
        # The models' own validators, read from their class dicts (no model_rebuild
        # override here to count their changes).
        self.namespaces = [cls.__dict__ for cls in own]
        self.validators = [namespace["__pydantic_validator__"] for namespace in self.namespaces]

    def current(self) -> bool:
        """False once a registry or a validator this copy was made from has changed."""
        return self.changes == family_changes() and all(
            map(operator.is_, map(_own_validator, self.namespaces), self.validators)
        )

    def _rewrite(self, node: Any) -> Any:
        if isinstance(node, list):
            return [self._rewrite(item) for item in node]
        if not isinstance(node, dict):
            return node
        root = _family_root(node)
        if root is not None:
            ref = self._root(root)
            if "ref" in node:
                self.aliases[node["ref"]] = ref
            return {"type": "definition-ref", "schema_ref": ref}
        kind = node.get("type")
        if kind == "definitions":
            for definition in node["definitions"]:
                ref = definition.get("ref")
                if ref not in self.definitions:
                    self.definitions[ref] = None  # recursion guard
                    self.definitions[ref] = self._rewrite(definition)
            return self._rewrite(node["schema"])
        if kind == "model" and node.get("cls") in self.own:
            if node.get("root_model"):
                raise ValueError("root models are not rewritten")
            fields = dict(self._rewrite(node["schema"]))
            if fields.get("type") != "model-fields":
                raise ValueError("unexpected model schema")
            config = node.get("config") or {}
            if "extra_behavior" not in fields and "extra_fields_behavior" in config:
                fields["extra_behavior"] = config["extra_fields_behavior"]
            rewritten = {
                "type": "function-after",
                "function": {
                    "type": "no-info",
                    "function": _builder(node["cls"], node.get("post_init")),
                },
                "schema": fields,
            }
            if "ref" in node:
                rewritten["ref"] = node["ref"]
            return rewritten
        return {key: self._rewrite(value) for key, value in node.items()}

    def _root(self, root: type) -> str:
        ref = self.roots.get(root)
        if ref is None:
            ref = self.roots[root] = f"checkspec-bulk:{root.__module__}.{root.__qualname__}"
            choices: dict[str, Any] = {}
            registry = root._registry  # type: ignore[attr-defined]  # noqa: SLF001 (the families' registry machinery)
            for kind, target in list(dict.items(registry)):
                if not isinstance(kind, str) or not issubclass(target, root):
                    continue
                if target.model_validate.__func__ is not BaseModel.model_validate.__func__:  # type: ignore[attr-defined]
                    continue  # validated its own way: left to the dispatch
                if target.model_config.get("extra") not in (None, "forbid"):
                    continue  # a deprecated spelling would not fail here
                stripped = _without_dispatch(target.__pydantic_core_schema__)
                if stripped is None:
                    continue
                choices[kind] = self._rewrite(stripped)
            self.definitions[ref] = {
                "type": "tagged-union",
                "choices": choices,
                "discriminator": "kind",
                "from_attributes": False,
                "ref": ref,
            }
        return ref

    def _fix(self, node: Any) -> Any:
        """References to a removed dispatch wrap point to its tagged union."""
        if isinstance(node, list):
            return [self._fix(item) for item in node]
        if not isinstance(node, dict):
            return node
        if node.get("type") == "definition-ref" and node.get("schema_ref") in self.aliases:
            return {**node, "schema_ref": self.aliases[node["schema_ref"]]}
        return {key: self._fix(value) for key, value in node.items()}


class BulkValidator:
    """`validate(data)`: the model built through the rewritten schema, or None when the
    caller must use the model's own validator (the copy rejected the data, or cannot be
    made for this model)."""

    def __init__(self, model: type[BaseModel], *own: type[BaseModel]) -> None:
        self._model = model
        self._own = (model, *own)
        self._copy: _Copy | None = None
        self._failed = False

    def validate(self, data: dict[str, Any]) -> Any:
        copy = self._copy
        if copy is None or not copy.current():
            if self._failed:
                return None
            copy = self._make()
            if copy is None:
                return None
        try:
            return copy.validator.validate_python(data)
        except ValueError:  # ValidationError: the model's own validator says why
            return None

    def _make(self) -> _Copy | None:
        try:
            self._copy = _Copy(self._model, self._own)
        except Exception:  # a schema of a shape this code does not know
            self._copy = None
            self._failed = True
        return self._copy
