"""The Check base class, its registry and kind-discriminated (de)serialization.

`@Check.register("kind")` records a subclass under its kind and pins its `kind` field
to that literal. `Check.model_validate({"kind": ...})` (and any field typed `Check`)
dispatches to the registered class, so one declaration drives validation, dumping,
JSON Schemas, completion, hover and `checkspec list checks`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, ClassVar, Generic, Literal, NamedTuple, Self, TypeVar, cast, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError, SchemaValidator

from .construct import fields_set_on_demand
from .result import CheckResult
from .trace import Trace, TraceType
from .typevars import InputType, OutputType

C = TypeVar("C", bound="type[KindModel]")

# Placeholder for "any registered kind of this family" in generated JSON Schemas.
ANY_KIND_MARKER = "x-checkspec-any-kind"

# Older selector names (checks-reference) accepted for `target_key` (docs/decisions.md,
# "Deprecated spellings"): the one list of deprecated spellings, which the validator
# renames and the catalog describes (engine/catalog.py, fields_of).
DEPRECATED_SPELLINGS: Mapping[str, tuple[str, ...]] = {"target_key": ("key", "text_key")}
DEPRECATED_TARGET_ALIASES = DEPRECATED_SPELLINGS["target_key"]

# Set by the located document (engine/spec) while it builds checks: checks that reject
# bad static content when built (a Rego policy that does not compile) leave it to
# lint(), which the document reports at the line inside the parameter's text. A context
# variable rather than pydantic's validation context, which would cost every check of
# every scenario an info object in the dispatch below.
_LINT_LATER: ContextVar[bool] = ContextVar("checkspec_lint_later", default=False)


@contextmanager
def lint_later() -> Iterator[None]:
    """Within: static problems of checks are left to lint() instead of rejected."""
    token = _LINT_LATER.set(True)
    try:
        yield
    finally:
        _LINT_LATER.reset(token)


def linting_later() -> bool:
    return _LINT_LATER.get()


_CHECKS, _JUDGES = "checkspec.engine.checks", "checkspec.engine.judges"
# Each built-in check kind and the module (a check) or package (the judges) that registers
# it, in the order a full import registers them (tests/cli/test_startup.py compares this with
# the registry after one).
BUILT_IN_CHECKS: dict[str, str] = {
    "string_matching": f"{_CHECKS}.text_matching",
    "regex_matching": f"{_CHECKS}.text_matching",
    "equals": f"{_CHECKS}.comparison",
    "not_equals": f"{_CHECKS}.comparison",
    "greater_than": f"{_CHECKS}.comparison",
    "greater_than_equals": f"{_CHECKS}.comparison",
    "less_than": f"{_CHECKS}.comparison",
    "less_than_equals": f"{_CHECKS}.comparison",
    "all_of": f"{_CHECKS}.composition",
    "any_of": f"{_CHECKS}.composition",
    "not": f"{_CHECKS}.composition",
    "fn": f"{_CHECKS}.fn",
    "hub_metadata": f"{_CHECKS}.hub_metadata",
    "json_valid": f"{_CHECKS}.json_valid",
    "readability": f"{_CHECKS}.readability",
    "rego_policy": f"{_CHECKS}.rego_policy",
    **dict.fromkeys(
        ("tool_called", "tools_in_order", "no_span_errors", "max_model_calls"),
        f"{_CHECKS}.agent_actions",
    ),
    **dict.fromkeys(
        (
            "answer_relevance",
            "conformity",
            "contradiction",
            "groundedness",
            "hub_correctness",
            "hub_groundedness",
            "hub_conformity",
            "llm_judge",
            "semantic_similarity",
            "toxicity",
        ),
        _JUDGES,
    ),
}


class _BuiltIns(dict):
    """A registry that imports the built-in kinds when they are read.

    `checkspec.engine` loads its names on first use (engine/__init__.py). Looking up one
    kind imports the package that registers it (`where`: the deterministic checks, the
    judges, the input generators), so validating a file of deterministic checks never
    imports the judges and their templates; anything that lists the kinds (iteration,
    `len`, `keys`, an unknown kind's did-you-mean) gets them all, built-ins first in
    `where`'s order, as when importing the package imported every check. Registering
    writes without reading.
    """

    def __init__(self, where: dict[str, str]) -> None:
        super().__init__()
        self._where = where
        self._state = "unloaded"

    def _load(self) -> None:
        if self._state == "unloaded":
            self._state = "loading"  # reads while the built-ins import must not recurse
            try:
                for package in dict.fromkeys(self._where.values()):
                    importlib.import_module(package)
                order = {kind: i for i, kind in enumerate(self._where)}
                items = sorted(super().items(), key=lambda kv: order.get(kv[0], len(order)))
                super().clear()
                super().update(items)  # built-ins first, then others as registered
            finally:
                self._state = "loaded"

    def _find(self, kind: object) -> None:
        if self._state == "unloaded" and not super().__contains__(kind):
            package = self._where.get(kind) if isinstance(kind, str) else None
            if package is not None:
                importlib.import_module(package)

    def __getitem__(self, kind: str) -> Any:
        self._find(kind)
        return super().__getitem__(kind)

    def get(self, kind: str, default: Any = None) -> Any:
        self._find(kind)
        return super().get(kind, default)

    def __contains__(self, kind: object) -> bool:
        self._find(kind)
        return super().__contains__(kind)

    def __iter__(self) -> Iterator[str]:
        self._load()
        return super().__iter__()

    def __len__(self) -> int:
        self._load()
        return super().__len__()

    def keys(self) -> Any:
        self._load()
        return super().keys()

    def values(self) -> Any:
        self._load()
        return super().values()

    def items(self) -> Any:
        self._load()
        return super().items()

    def copy(self) -> dict[str, Any]:
        self._load()
        return dict(super().items())


# Counts the changes of every family: a kind registered or unregistered, a member's
# validator rebuilt (model_rebuild). core/bulk.py remakes what it derived from them.
_changes = [0]


def family_changes() -> int:
    """How many times a registry or a validator of a KindModel family has changed."""
    return _changes[0]


@fields_set_on_demand
class KindModel(BaseModel):
    """A model family discriminated by `kind`; each root class keeps its own registry."""

    model_config = ConfigDict(defer_build=True, extra="forbid", arbitrary_types_allowed=True)

    kind: str = Field(default="", description="Which kind this is (its registered identifier).")

    _registry: ClassVar[dict[str, type[KindModel]]] = {}
    _kind: ClassVar[str | None] = None

    @classmethod
    def register(cls, kind: str) -> Callable[[C], C]:
        """Class decorator: register a subclass under `kind`."""
        registry = cls._registry

        def decorate(sub: C) -> C:
            existing = dict.get(registry, kind)  # not a read that loads the built-ins
            if existing is not None and existing.__qualname__ != sub.__qualname__:
                raise ValueError(f"kind {kind!r} is already registered by {existing!r}")
            sub.__pydantic_fields__["kind"] = _kind_field(kind)
            sub._kind = kind  # noqa: SLF001 (the registry machinery of this module)
            if sub.__pydantic_complete__:
                sub.model_rebuild(force=True)
            # else its build is deferred (defer_build): the first validation builds it, with
            # the kind field set here; start-up does not pay for kinds a run never uses.
            dict.__setitem__(registry, kind, cast(Any, sub))
            _changes[0] += 1
            return sub

        return decorate

    @classmethod
    def registry(cls) -> dict[str, type[KindModel]]:
        """Every registered kind and its class, in registration order."""
        return dict(cls._registry)

    @classmethod
    def unregister(cls, kind: str) -> None:
        """Forget the class registered under `kind` (a test's or a plugin's own)."""
        cls._registry.pop(kind, None)
        _changes[0] += 1

    @classmethod
    def model_rebuild(
        cls,
        *,
        force: bool = False,
        raise_errors: bool = True,
        _parent_namespace_depth: int = 2,
        _types_namespace: Any = None,
    ) -> bool | None:
        """BaseModel.model_rebuild, counted in `family_changes()`."""
        try:
            return super().model_rebuild(
                force=force,
                raise_errors=raise_errors,
                _parent_namespace_depth=_parent_namespace_depth + 1,  # this frame
                _types_namespace=_types_namespace,
            )
        finally:
            _changes[0] += 1

    @classmethod
    def kind_name(cls) -> str | None:
        return cls._kind

    @classmethod
    def kinds(cls) -> frozenset[str]:
        """The kinds registered in this family (the same set from any class of it)."""
        return frozenset(cls._registry)

    @classmethod
    def kind_class(cls, kind: object) -> type[Self] | None:
        """The class registered under `kind` in this family, if any."""
        found = cls._registry.get(kind) if isinstance(kind, str) else None
        return found if found is not None and issubclass(found, cls) else None

    @classmethod
    def default_kind(cls) -> str | None:
        """The kind assumed when a mapping of this family has none (None: required)."""
        return cls._default_kind()

    @model_validator(mode="wrap")
    @classmethod
    def _dispatch_kind(cls, data: Any, handler: Any) -> Any:
        # Runs for every check dict of every scenario built: it avoids anything that
        # costs a call when the dict is well formed, and validates with the target's
        # validator minus this wrap (_direct_validator), so it runs once per dict.
        if isinstance(data, dict):
            kind = data.get("kind", _NO_KIND)
            own = cls._kind
            if kind is _NO_KIND:  # a registered class is its own default
                if own is None and not _is_root(cls):
                    return handler(data)  # an unregistered subclass (see below)
                kind = own or cls._default_kind()
            if own is None or (kind is not None and kind != own):
                registry = cls._registry
                # The registered str kind is the usual case: one lookup, no call.
                # dict.get skips _BuiltIns.get (two Python calls), which differs only
                # for an absent kind: it may import the package registering it (below).
                target = dict.get(registry, kind) if type(kind) is str else None
                if target is None and type(kind) is str:
                    target = registry.get(kind)
                if target is None:
                    if not kind and not _is_root(cls):
                        # A subclass nobody registered (a user's own check or spec
                        # class, dumped with kind ""): it validates itself.
                        return handler(data)
                    target = _lookup_kind(registry, kind)
                if target is not cls:
                    # (A parametrized root such as Check[str, str, Trace] is checked
                    # through its origin; the plain root, the usual case, needs no call.)
                    if not issubclass(target, cls) and not issubclass(target, _origin(cls)):
                        raise PydanticCustomError(
                            "kind_mismatch",
                            "kind '{kind}' is not a {expected}",
                            {"kind": kind, "expected": cls.__name__},
                        )
                    cached = _direct_validators.get(target)
                    if cached is None or cached[0] is not target.__pydantic_validator__:
                        cached = _direct_validator(target)
                    direct = cached[1]  # the usual case: found without a call
                    if direct is not None:
                        # What the target's own _dispatch_kind would do for its own kind,
                        # done here so its validator can skip that wrap (see below).
                        if cached[2] and not data.keys().isdisjoint(DEPRECATED_TARGET_ALIASES):
                            data = _rename_deprecated(data)
                        return direct.validate_python(data)
                    return target.model_validate(data)
            if "target_key" in cls.__pydantic_fields__ and not data.keys().isdisjoint(
                DEPRECATED_TARGET_ALIASES
            ):
                data = _rename_deprecated(data)
        elif (
            isinstance(data, KindModel)
            and not isinstance(data, cls)
            and isinstance(data, _origin(cls))
        ):
            # An `Equals` where `Check[str, str, Trace]` is expected: any member of the
            # family is accepted as it is (parametrizing makes a distinct class).
            return data
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


_DISPATCH = KindModel._dispatch_kind.__func__  # noqa: SLF001 (the registry machinery of this module)


class ModelCalls(NamedTuple):
    """What one run of a check asks of a model: `calls` requests to `model` (None: the
    default model, unknown until settings are applied)."""

    model: str | None
    calls: int


NO_MODEL_CALLS = ModelCalls(None, 0)


class Check(KindModel, Generic[InputType, OutputType, TraceType]):
    """Base class of every check: `async run(trace) -> CheckResult`.

    Generic like the reference library's (`Check[str, str, Trace[str, str]]`); the
    parameters document what the check reads and change nothing at run time.
    """

    name: str | None = Field(default=None, description="Optional name shown in results.")
    description: str | None = Field(default=None, description="Optional description.")
    enabled: bool = Field(
        default=True,
        exclude_if=lambda value: value is True,  # written only when turned off
        description="false: runs skip the check (`checkspec checks disable`).",
    )
    expect: Literal["pass", "fail"] | None = Field(
        default=None,
        exclude_if=lambda value: value is None,  # written only when a person labelled it
        description=(
            "A person's verdict on the recorded output (pass or fail): `checkspec calibrate` "
            "measures how often the judge agrees. Only on checks that call a model, in "
            "scenarios with recorded outputs."
        ),
    )

    _registry: ClassVar[dict[str, type[KindModel]]] = _BuiltIns(BUILT_IN_CHECKS)

    # Parameter defaults that differ in dataset files (hub-datasets-and-checks).
    dataset_overrides: ClassVar[dict[str, Any]] = {}
    # Pairs of parameters of which exactly one must be given (an inline value and its
    # selector): the check's validator enforces them and the catalog renders them.
    exactly_one_of: ClassVar[tuple[tuple[str, str], ...]] = ()

    async def run(self, trace: Trace[Any, Any]) -> CheckResult:
        raise NotImplementedError(f"{type(self).__name__}.run is not implemented")

    def model_calls(self) -> ModelCalls:
        """The model requests one run of this check sends itself (no answer cached), and
        to which model: none here. Each model-calling check declares its own (a judge 1,
        a judge per rule, an embedding request); checks inside this one declare theirs.
        `checkspec run --dry-run` (scenarios/estimate.py) counts what is declared."""
        return NO_MODEL_CALLS

    @classmethod
    def declares_model_calls(cls) -> bool:
        """Whether checks of this class ask a model themselves: the class declares its
        model requests (`model_calls`, as every judge and embedding check does)."""
        return cls.model_calls is not Check.model_calls

    @classmethod
    def may_call_model(cls) -> bool:
        """Whether a check of this class may call a model: it declares model calls, or
        it holds checks (all_of, any_of, not) that may. What `expect:` is offered on."""
        return cls.declares_model_calls() or bool(nested_check_fields(cls))

    def calls_model(self) -> bool:
        """Whether this check, or a check inside it, asks a model (a judge, an embedding):
        a check a person's `expect:` label may calibrate."""
        if type(self).declares_model_calls():
            return True
        for name in nested_check_fields(type(self)):
            value = getattr(self, name, None)
            for item in value if isinstance(value, list | tuple) else (value,):
                if isinstance(item, Check) and item.calls_model():
                    return True
        return False

    def to_spec(self) -> dict[str, Any]:
        """The check's configuration as JSON data, without name, description and label."""
        return self.model_dump(
            mode="json",
            exclude={"name", "description", "expect"},
            exclude_none=True,
            fallback=str,
        )

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

_NESTED_FIELDS: dict[type, tuple[str, ...]] = {}


def checks_within(check: Any) -> Iterator[Check]:
    """The check and every check inside it (all_of, any_of, not, a custom check holding
    checks), outermost first; nothing for what is not a check."""
    if not isinstance(check, Check):
        return
    yield check
    for name in type(check).model_fields:
        value = getattr(check, name, None)
        for item in value if isinstance(value, list | tuple) else (value,):
            if isinstance(item, Check):
                yield from checks_within(item)


def nested_check_fields(cls: type[BaseModel]) -> tuple[str, ...]:
    """The fields of a check class that may hold checks (all_of's `checks`, not's
    `check`), found from their annotations once per class."""
    found = _NESTED_FIELDS.get(cls)
    if found is None:
        found = _NESTED_FIELDS[cls] = tuple(
            name for name, info in cls.model_fields.items() if _may_hold_checks(info.annotation)
        )
    return found


def _may_hold_checks(annotation: Any) -> bool:
    if isinstance(annotation, type):
        return issubclass(annotation, Check)
    return any(_may_hold_checks(arg) for arg in get_args(annotation))


# Per class: (its validator, the same validator without the _dispatch_kind wrap or None,
# whether it has a `target_key` field that deprecated spellings are renamed to).
_Direct = tuple[Any, SchemaValidator | None, bool]
_direct_validators: dict[type, _Direct] = {}


def _direct_validator(target: type[KindModel]) -> _Direct:
    """`target`'s cache entry (above): its validator minus its outer `_dispatch_kind`
    wrap, or None to use `target.model_validate`.

    Dispatching from a family root re-enters the target's own `_dispatch_kind`, which
    then only renames deprecated selectors (the caller does that instead). The
    Rust -> Python -> Rust hop of that wrap cost about as much as validating the check's
    fields, for every check of every scenario. The validator is derived from the
    target's (same schema and config, one layer fewer) and rebuilt when the target's
    changes (model_rebuild); anything unusual (a plugin's validator, an overridden
    model_validate, a schema of another shape) keeps the plain model_validate path.
    """
    validator = target.__pydantic_validator__
    cached = _direct_validators.get(target)
    if cached is not None and cached[0] is validator:
        return cached
    direct = None
    overridden = target.model_validate.__func__ is not BaseModel.model_validate.__func__  # type: ignore[attr-defined]
    if type(validator) is SchemaValidator and not overridden:
        reduced = validator.__reduce__()  # (class, (schema, config, ...)): what it was built from
        args: Any = reduced[1] if isinstance(reduced, tuple) else ()
        schema = _without_dispatch(args[0])
        if schema is not None:
            try:
                direct = SchemaValidator(schema, *args[1:])
            except Exception:  # a shape this code does not know: keep the plain path
                direct = None
    entry = (validator, direct, "target_key" in target.__pydantic_fields__)
    _direct_validators[target] = entry
    return entry


def _without_dispatch(schema: Any) -> Any:
    """`schema` with the `_dispatch_kind` wrap of its model removed; None if not found.

    Only the chain of wrappers around the model is walked (definitions, function-*),
    never the definitions, where nested families keep their own dispatch.
    """
    stripped, ref = _strip_dispatch(schema)
    # A schema that refers back to the removed layer would skip dispatch in there.
    if stripped is None or (ref is not None and ref in repr(stripped)):
        return None
    return stripped


def _strip_dispatch(schema: Any) -> tuple[Any, str | None]:
    if not isinstance(schema, dict):
        return None, None
    kind = schema.get("type")
    function = schema.get("function")
    if (
        kind == "function-wrap"
        and isinstance(function, dict)
        and getattr(function.get("function"), "__func__", None) is _DISPATCH
    ):
        return schema["schema"], schema.get("ref")
    if kind in ("definitions", "function-after", "function-before", "function-wrap"):
        inner, ref = _strip_dispatch(schema.get("schema"))
        if inner is None:
            return None, None
        return {**schema, "schema": inner}, ref
    return None, None


def _kind_field(kind: str) -> FieldInfo:
    """The `kind` field pinned to one literal, as if declared `kind: Literal[kind] = kind`.

    The original annotation and assignment are recorded as pydantic records them for a
    declared field: parametrizing the class (`Equals[str, str, Trace, int]`) rebuilds
    its fields from them.
    """
    annotation = Literal[kind]  # type: ignore[valid-type]
    assignment = Field(default=kind, description="Which kind this is (its registered identifier).")
    field = FieldInfo.from_annotated_attribute(annotation, assignment)
    field._original_annotation = annotation  # noqa: SLF001 (the registry machinery of this module)
    field._original_assignment = assignment  # noqa: SLF001 (the registry machinery of this module)
    return field


def _is_root(cls: type) -> bool:
    """True for a family's base (Check, InteractionSpec...), parametrized or not."""
    return "_registry" in _origin(cls).__dict__


def _origin(cls: type) -> type:
    """The class a parametrized generic (`Check[str, str, Trace]`) was made from."""
    metadata = getattr(cls, "__pydantic_generic_metadata__", None)
    return (metadata or {}).get("origin") or cls


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
    import difflib  # here: only a misspelt word needs it (start-up of every command)

    matches = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return matches[0] if matches else None
