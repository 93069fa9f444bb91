"""A suite file: named scenarios sharing a target and tags.

Only its shape is a model (the schemas, the analysis's keys, completion and hover read
it through the catalog); the analysis builds the runnable scenarios itself.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..scenarios.scenario import Scenario
from ..targets import TargetText


class SuiteFile(BaseModel):
    """A named list of scenarios sharing a target and tags."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    name: str = Field(description="Suite name.")
    description: str | None = Field(default=None, description="What the suite covers.")
    target: TargetText = Field(
        default=None,
        description="The agent every scenario calls unless it names its own: "
        "'python:package.module:function' or an http(s) URL.",
    )
    tags: list[str] = Field(default_factory=list, description="Tags added to every scenario.")
    scenarios: list[Scenario] = Field(
        description="The scenarios of this suite, each run on its own."
    )
    schema_: str | None = Field(
        default=None,
        alias="$schema",
        description="The JSON Schema of this file (also tells its kind).",
    )
