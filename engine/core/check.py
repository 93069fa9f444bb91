"""The Check base class, its registry and kind-discriminated (de)serialization.

`@Check.register("kind")` records a subclass under its kind and pins its `kind` field
to that literal. `Check.model_validate({"kind": ...})` (and any field typed `Check`)
dispatches to the registered class, so one declaration drives validation, dumping,
JSON Schemas, completion, hover and `checkspec list checks`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any, ClassVar, Literal, NamedTuple, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

from .result import CheckResult
from .trace import Trace

C = TypeVar("C", bound="type[KindModel]")

# Placeholder for "any registered kind of this family" in generated JSON Schemas.
ANY_KIND_MARKER = "x-checkspec-any-kind"

# Older selector names (checks-reference) accepted for `target_key` (DESIGN.md).
DEPRECATED_TARGET_ALIASES = ("key", "text_key")


class KindModel(BaseModel):
    """A model family discriminated by `kind`; each root class keeps its own registry."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    kind: str = Field(default="", description="Which kind this is (its registered identifier).")

    _registry: ClassVar[dict[str, type[KindModel]]] = {}
    _kind: ClassVar[str | None] = None

    @classmethod
    def register(cls, kind: str) -> Callable[[C], C]:
        """Class decorator: register a subclass under `kind`."""
        registry = cls._registry

        def decorate(sub: C) -> C:
            existing = registry.get(kind)
            if existing is not None and existing.__qualname__ != sub.__qualname__:
                raise ValueError(f"kind {kind!r} is already registered by {existing!r}")
            sub.__pydantic_fields__["kind"] = FieldInfo(
                annotation=Literal[kind],  # type: ignore[valid-type]
                default=kind,
                description="Which kind this is (its registered identifier).",
            )
            sub._kind = kind
            sub.model_rebuild(force=True)
            registry[kind] = sub
            return sub

        return decorate

    @classmethod
    def registry(cls) -> dict[str, type[KindModel]]:
        """Every registered kind and its class, in registration order."""
        return dict(cls._registry)

    @classmethod
    def kind_name(cls) -> str | None:
        return cls._kind

    @model_validator(mode="wrap")
    @classmethod
    def _dispatch_kind(cls, data: Any, handler: Any) -> Any:
        # Runs once per check dict on the way in and once more in the target class, so
        # it avoids anything that costs a call when the dict is already well formed.
        if isinstance(data, dict):
            kind = data.get("kind", _NO_KIND)
            if kind is _NO_KIND:  # a registered class is its own default
                kind = cls._kind or cls._default_kind()
            if cls._kind is None or (kind is not None and kind != cls._kind):
                registry = cls._registry
                # The registered str kind is the usual case: one lookup, no call.
                target = registry.get(kind) if type(kind) is str else None
                if target is None:
                    target = _lookup_kind(registry, kind)
                if target is not cls:
                    if not issubclass(target, cls):
                        raise PydanticCustomError(
                            "kind_mismatch",
                            "kind '{kind}' is not a {expected}",
                            {"kind": kind, "expected": cls.__name__},
                        )
                    if _plain_validate.get(target) or _validates_plainly(target):
                        # model_validate minus its Python wrapper (same validator).
                        return target.__pydantic_validator__.validate_python(data)
                    return target.model_validate(data)
            if "target_key" in cls.__pydantic_fields__ and not data.keys().isdisjoint(
                DEPRECATED_TARGET_ALIASES
            ):
                data = _rename_deprecated(data)
        return handler(data)

    @classmethod
    def _default_kind(cls) -> str | None:
        """The kind assumed when a dict has none (None: `kind` is required)."""
        return None

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: Any) -> Any:
        # A field typed with a family's root (`checks: list[Check]`) means "any registered
        # kind": a marker the schema generator replaces with its union of kinds.
        if cls._kind is None and "_registry" in cls.__dict__:
            return {ANY_KIND_MARKER: cls.__name__}
        return super().__get_pydantic_json_schema__(core_schema, handler)


class FieldIssue(NamedTuple):
    """A problem a check finds in one of its own parameters without running.

    `line`/`column` (0-based) point inside the parameter's text when known, e.g. the
    position of a regex error within the pattern or a Rego error within the policy.
    """

    field: str
    code: str
    message: str
    line: int | None = None
    column: int | None = None


# Where dataset files point checks by default: the assistant message text.
DATASET_TEXT_KEY = "trace.last.outputs.response.content"


class Check(KindModel):
    """Base class of every check: `async run(trace) -> CheckResult`."""

    name: str | None = Field(default=None, description="Optional name shown in results.")
    description: str | None = Field(default=None, description="Optional description.")

    _registry: ClassVar[dict[str, type[KindModel]]] = {}

    # Parameter defaults that differ in dataset files (hub-datasets-and-checks).
    dataset_overrides: ClassVar[dict[str, Any]] = {}

    async def run(self, trace: Trace) -> CheckResult:
        raise NotImplementedError(f"{type(self).__name__}.run is not implemented")

    def lint(self) -> list[FieldIssue]:
        """Problems visible without running (bad regex, Rego, template...); cheap, pure."""
        return []

    @classmethod
    def dataset_defaults(cls) -> dict[str, Any]:
        """Defaults applied to this check's params in dataset files."""
        defaults: dict[str, Any] = {}
        if "target_key" in cls.model_fields:
            defaults["target_key"] = DATASET_TEXT_KEY
        defaults.update(cls.dataset_overrides)
        return defaults

    @property
    def display_name(self) -> str:
        return self.name or self.kind or type(self).__name__


_NO_KIND = object()
_plain_validate: dict[type, bool] = {}


def _validates_plainly(target: type[KindModel]) -> bool:
    """Whether `target.model_validate` is pydantic's own (cached per class)."""
    plain = target.model_validate.__func__ is BaseModel.model_validate.__func__  # type: ignore[attr-defined]
    _plain_validate[target] = plain
    return plain


def _lookup_kind(registry: dict[str, type[KindModel]], kind: Any) -> type[KindModel]:
    if kind is None:
        raise PydanticCustomError("missing_kind", "a 'kind' is required", {})
    target = registry.get(kind) if isinstance(kind, str) else None
    if target is None:
        hint = did_you_mean(str(kind), registry)
        raise PydanticCustomError(
            "unknown_kind",
            "unknown kind '{kind}'{hint}",
            {"kind": kind, "hint": f"; did you mean {hint!r}?" if hint else ""},
        )
    return target


def _rename_deprecated(data: dict[str, Any]) -> dict[str, Any]:
    present = [alias for alias in DEPRECATED_TARGET_ALIASES if alias in data]
    if not present:
        return data
    data = dict(data)
    if "target_key" in data or len(present) > 1:
        raise PydanticCustomError(
            "duplicate_target_key",
            "give the selector once: {names} are the same field (use 'target_key')",
            {"names": ", ".join(["target_key", *present] if "target_key" in data else present)},
        )
    data["target_key"] = data.pop(present[0])
    return data


def did_you_mean(word: str, candidates: Any) -> str | None:
    """The closest candidate to a misspelt word, if any is close enough."""
    matches = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return matches[0] if matches else None
