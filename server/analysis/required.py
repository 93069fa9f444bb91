"""The parameters a check cannot do without, and a placeholder to write for each.

Read from the check's own validation (nothing is hard-coded): validating `{kind}` alone
says which fields are missing, and which "one of" pairs (`expected_value` or
`expected_value_key`) need one; the first of a pair is the one to write.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import ValidationError

from checkspec.engine.core.check import Check

from .schema import FieldDoc, check_fields


def needed_parameters(kind: str, given: tuple[str, ...] = ()) -> list[str]:
    """The parameters `kind` still needs when `given` are written (in the order to write)."""
    return [name for name in _needed(kind) if name not in given]


@lru_cache(maxsize=512)
def _needed(kind: str) -> tuple[str, ...]:
    cls: type[Check] | None = Check.kind_class(kind)
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


def field_docs(kind: str) -> dict[str, FieldDoc]:
    cls: type[Check] | None = Check.kind_class(kind)
    return check_fields(cls) if cls is not None else {}
