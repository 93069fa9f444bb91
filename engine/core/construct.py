"""A leaner `model_construct` for the engine's own hot-path models.

`BaseModel.model_construct` walks every field looking for aliases and defaults on each
call; results and traces are built thousands of times per run with values that are
ours and complete, so that walk was the single largest cost of running a scenario.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_new = object.__new__
# BaseModel keeps these in slots; their descriptors set them without going through
# BaseModel.__setattr__ (what object.__setattr__ does too, one lookup cheaper).
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_fields_set_slot = BaseModel.__dict__["__pydantic_fields_set__"]

# Number of fields of each class seen, or -1 when model_construct must be used.
_field_counts: dict[type, int] = {}


def field_count(cls: type[BaseModel]) -> int:
    """How many fields `cls` has, or -1 unless construct() may build it directly."""
    count = _field_counts.get(cls)
    return _field_count(cls) if count is None else count


def _field_count(cls: type[BaseModel]) -> int:
    """No post-init, private attributes, extras or root: nothing model_construct adds."""
    plain = (
        cls.__new__ is _new
        and not cls.__pydantic_post_init__
        and not cls.__pydantic_root_model__
        and not cls.__private_attributes__
        and cls.model_config.get("extra") != "allow"
    )
    count = len(cls.__pydantic_fields__) if plain else -1
    _field_counts[cls] = count
    return count


class Unread(frozenset[str]):
    """The fields set of a model built here that nobody has asked for yet (see
    `fields_set_on_demand`): shared by the models built alike, never handed out."""

    __slots__ = ()


def _read_fields_set(model: BaseModel) -> set[str]:
    value = _fields_set_slot.__get__(model, type(model))
    if type(value) is Unread:  # first read: this model's own set, from then on
        value = set(value)
        _fields_set_slot.__set__(model, value)
    return value


def _write_fields_set(model: BaseModel, value: Any) -> None:
    if type(value) is set:  # pydantic-core's (validation), a copy's, a pickle's
        # shared_fields_set's usual case inlined: this runs for every model validated.
        last = _last_shared.get(type(model))
        value = (
            last if last is not None and value == last else shared_fields_set(type(model), value)
        )
    _set_fields_set(model, value)


# Per class: the Unread given to the last set written, and every Unread given so far by
# the names it holds (at most SHARED_PER_CLASS of them).
_last_shared: dict[type, Unread] = {}
_shared_by_names: dict[type, dict[frozenset[str], Unread]] = {}
SHARED_PER_CLASS = 64


def shared_fields_set(cls: type[BaseModel], value: set[str]) -> Any:
    """The shared Unread holding the names of `value` (a fields set about to be stored in
    a `cls` that reads its set on demand), or `value` itself past the per-class limit."""
    last = _last_shared.get(cls)
    if last is not None and value == last:  # the usual case: built like the one before
        return last
    shared = _shared_by_names.setdefault(cls, {})
    names = frozenset(value)
    found = shared.get(names)
    if found is None:
        if len(shared) >= SHARED_PER_CLASS:
            return value
        found = shared[names] = Unread(names)
    _last_shared[cls] = found
    return found


def _delete_fields_set(model: BaseModel) -> None:
    _fields_set_slot.__delete__(model)


# `__pydantic_fields_set__` (what model_fields_set, copies, pickling, `exclude_unset`
# and pydantic-core read and write) as a property over BaseModel's slot.
_ON_DEMAND = property(_read_fields_set, _write_fields_set, _delete_fields_set)
# Classes that take an Unread in that slot: {the names left unset: the shared Unread}.
_unread: dict[type, dict[tuple[str, ...], Unread]] = {}


def fields_set_on_demand(cls: type[M]) -> type[M]:
    """Class decorator: models `construct()` builds get their fields set on first read.

    Results and traces are built in bulk and their fields set is seldom read, yet a set
    is the largest object of such a model (216 bytes and up, against 184 for its
    `__dict__`) and one more container the garbage collector keeps scanning. Their slot
    holds a shared, immutable `Unread` until the set is read through the attribute (which
    everything reading it does, pydantic and pydantic-core included); the first read puts
    the model's own `set` there. A set written through the attribute (pydantic-core's when
    it validates, a copy's, a pickle's) is swapped for the shared `Unread` of the same
    names (`shared_fields_set`): the models a scenario is built of (Scenario, Step, the
    checks and interaction specs) no longer keep a set each, eleven containers fewer per
    workload scenario for the collector to count and scan. Subclasses inherit the
    behaviour. Does nothing if BaseModel's slot is not as expected.
    """
    if type(_fields_set_slot).__name__ == "member_descriptor":
        type.__setattr__(cls, "__pydantic_fields_set__", _ON_DEMAND)
    return cls


def fields_set_writer(cls: type[BaseModel]) -> Any:
    """What stores a fields set in a `cls` without going through the attribute: shared
    when `cls` reads it on demand (see above), as it is otherwise."""
    if getattr(cls, "__pydantic_fields_set__", None) is _ON_DEMAND:
        return _write_fields_set
    return _set_fields_set


def unread_fields_set(cls: type[BaseModel], names: Any, unset: tuple[str, ...] = ()) -> Any:
    """What construct() puts in the fields-set slot of a `cls` built from `names` (the
    fields given) minus `unset`: a shared Unread when `cls` reads its set on demand,
    else a set of its own."""
    if getattr(cls, "__pydantic_fields_set__", None) is not _ON_DEMAND:  # inherited too
        fields_set = set(names)
        fields_set.difference_update(unset)
        return fields_set
    shared = _unread.setdefault(cls, {})
    found = shared.get(unset)
    if found is None:
        found = shared[unset] = Unread(set(names).difference(unset))
    return found


def construct(cls: type[M], values: dict[str, Any], unset: tuple[str, ...] = ()) -> M:
    """`cls.model_construct(**values)` where `values` gives every field in declaration order.

    The result is the same object model_construct makes: same `__dict__` (the fields in
    declaration order), same fields set. `values` becomes the instance `__dict__`. Names
    in `unset` carry their default but stay out of the fields set, as model_construct
    leaves a field that was not passed. (For classes under `fields_set_on_demand` the
    set is made when first read; every call for a class with the same `unset` names the
    same fields.)
    """
    count = _field_counts.get(cls)
    if count is None:
        count = _field_count(cls)
    # A field added later but not passed here: let model_construct fill its default.
    if len(values) != count:
        return cls.model_construct(**{k: v for k, v in values.items() if k not in unset})
    shared = _unread.get(cls)
    fields_set = None if shared is None else shared.get(unset)
    if fields_set is None:
        fields_set = unread_fields_set(cls, values, unset)
    model = _new(cls)
    _set_dict(model, values)
    _set_fields_set(model, fields_set)
    _set_extra(model, None)
    _set_private(model, None)
    return model
