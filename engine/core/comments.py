"""A review comment on a scenario, as the Hub keeps them (`ScenarioComment`)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field


class ScenarioComment(BaseModel):
    """One comment: its text, who wrote it and when (ISO 8601)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    content: str = Field(description="The comment's text.")
    author: str | None = Field(default=None, description="Who wrote it.")
    created: datetime | str | None = Field(default=None, description="When it was written.")
    updated: datetime | str | None = Field(default=None, description="When it was last edited.")
