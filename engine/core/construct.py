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


def construct(cls: type[M], values: dict[str, Any], unset: tuple[str, ...] = ()) -> M:
    """`cls.model_construct(**values)` where `values` gives every field in declaration order.

    The result is the same object model_construct makes: same `__dict__` (the fields in
    declaration order), same fields set. `values` becomes the instance `__dict__`. Names
    in `unset` carry their default but stay out of the fields set, as model_construct
    leaves a field that was not passed.
    """
    fields_set = set(values)
    count = _field_counts.get(cls)
    if count is None:
        count = _field_count(cls)
    # A field added later but not passed here: let model_construct fill its default.
    if len(fields_set) != count:
        return cls.model_construct(**{k: v for k, v in values.items() if k not in unset})
    if unset:
        fields_set.difference_update(unset)
    model = _new(cls)
    _set_dict(model, values)
    _set_fields_set(model, fields_set)
    _set_extra(model, None)
    _set_private(model, None)
    return model
