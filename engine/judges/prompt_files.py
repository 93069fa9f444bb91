"""The judges' own prompt templates (prompts/*.j2), shipped with the package."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def bundled_prompt(name: str) -> str:
    """The text of prompts/<name>.j2 shipped with the package."""
    return resources.files(__package__).joinpath("prompts", f"{name}.j2").read_text("utf-8")
