"""The prompt templates of the input generators (Jinja2, rendered in the sandbox)."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def generator_prompt(name: str) -> str:
    """The text of <name>.j2 shipped with the package."""
    return resources.files(__package__).joinpath(f"{name}.j2").read_text("utf-8")
