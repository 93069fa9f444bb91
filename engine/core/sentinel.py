"""The MISSING sentinel: "not given" as distinct from an explicit None."""

try:  # pydantic >= 2.14 exports it from the top level
    from pydantic import MISSING
except ImportError:  # pragma: no cover - pydantic 2.12/2.13
    from pydantic.experimental.missing_sentinel import MISSING

__all__ = ["MISSING"]
