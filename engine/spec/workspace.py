"""The workspace: the nearest `checkspec.yaml` up the folder tree and what it defines.

`checkspec.yaml` holds the settings shared by the CLI, the language server and the
extension (model, embedding model, default target, limits) and the workspace's
`custom_*` checks: pre-configured built-in checks referenced by identifier.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .kinds import CONFIG_NAME
from .problems import Problem, Range

CUSTOM_PREFIX = "custom_"


class CustomCheck(BaseModel):
    """A built-in check with its parameters fixed, referenced by `identifier`."""

    model_config = ConfigDict(extra="forbid")

    identifier: str = Field(
        pattern=r"^custom_[A-Za-z0-9_]+$",
        description="Workspace-wide identifier; must start with custom_.",
    )
    name: str | None = Field(default=None, description="Human-readable name.")
    description: str | None = Field(default=None, description="What the check verifies.")
    params: dict[str, Any] = Field(
        description="`type`: the built-in check identifier, then that check's parameters."
    )

    @field_validator("params")
    @classmethod
    def _has_type(cls, params: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(params.get("type"), str):
            raise ValueError("params needs a 'type': the built-in check identifier to configure")
        return params

    @property
    def base_kind(self) -> str:
        return str(self.params["type"])

    def check_params(self) -> dict[str, Any]:
        return {k: v for k, v in self.params.items() if k != "type"}


class ProviderLimits(BaseModel):
    """Limits a model's provider sets, enforced across all workers of a run."""

    model_config = ConfigDict(extra="forbid")

    max_parallel_requests: int | None = Field(
        default=None, ge=1, description="Most requests in flight at once."
    )
    rpm: int | None = Field(default=None, ge=1, description="Most requests per minute.")
    tpm: int | None = Field(
        default=None, ge=1, description="Most tokens per minute (estimated from the prompts)."
    )


class WorkspaceConfig(BaseModel):
    """Settings in checkspec.yaml (CLI flags and editor settings override them)."""

    model_config = ConfigDict(extra="forbid")

    schema_: str | None = Field(default=None, alias="$schema", description="Schema reference.")
    model: str | None = Field(
        default=None, description="LLM for judge checks, as litellm names it (openai/gpt-4o-mini)."
    )
    embedding_model: str | None = Field(
        default=None, description="Embedding model for semantic_similarity (litellm name)."
    )
    api_base: str | None = Field(default=None, description="Base URL of the model provider.")
    embedding_api_base: str | None = Field(
        default=None,
        description="Base URL of the embedding model's provider (default: api_base).",
    )
    target: str | None = Field(
        default=None,
        description="Default target for files without one: python:module:function or a URL.",
    )
    concurrency: int = Field(default=8, ge=1, le=256, description="Scenarios run at once.")
    target_timeout: float = Field(
        default=60.0, gt=0, description="Seconds a target may take to answer one interaction."
    )
    scenario_timeout: float = Field(
        default=300.0,
        gt=0,
        description=(
            "Seconds a whole scenario may take (imports, targets and checks); past it its "
            "worker process is stopped and the scenario is an ERROR."
        ),
    )
    jobs: int = Field(
        default=0, ge=0, le=256, description="Worker processes of a run; 0: one per CPU."
    )
    python: str | None = Field(
        default=None,
        description=(
            "Python interpreter the worker processes run (the project's own environment, "
            "with checkspec installed); default: the one running checkspec."
        ),
    )
    max_file_size: int = Field(
        default=10_000_000, ge=1, description="Files larger than this many bytes are refused."
    )
    max_prompt_size: int = Field(
        default=200_000,
        ge=1,
        description="Judge prompts rendering to more bytes than this are an error, not sent.",
    )
    max_parallel_requests: int | None = Field(
        default=None,
        ge=1,
        description="Most judge (and embedding) requests in flight at once over all workers.",
    )
    rpm: int | None = Field(default=None, ge=1, description="Most judge requests per minute.")
    tpm: int | None = Field(
        default=None, ge=1, description="Most judge tokens per minute (estimated from prompts)."
    )
    models: dict[str, ProviderLimits] = Field(
        default_factory=dict,
        description="Limits per model (litellm name), for models other than the judge's.",
    )
    cache: bool = Field(
        default=True,
        description="Keep judge and embedding answers between runs (the verdict cache).",
    )
    cache_dir: str | None = Field(
        default=None,
        description="Folder of the verdict cache, from the workspace root (default .checkspec/cache).",
    )
    cache_max_mb: float = Field(
        default=500, gt=0, description="Size of the verdict cache before the oldest answers go."
    )
    custom_checks: list[CustomCheck] = Field(
        default_factory=list, description="Workspace checks referenced by their custom_ identifier."
    )

    def custom(self) -> dict[str, CustomCheck]:
        return {c.identifier: c for c in self.custom_checks}


@dataclass
class Workspace:
    """The folder of the nearest checkspec.yaml (or none) and its parsed config."""

    root: Path | None = None
    config: WorkspaceConfig = field(default_factory=WorkspaceConfig)
    config_path: Path | None = None
    problems: list[Problem] = field(default_factory=list)

    @property
    def custom_checks(self) -> dict[str, CustomCheck]:
        return self.config.custom()


def find_config(start: Path) -> Path | None:
    """The nearest checkspec.yaml in `start` (a file's folder) or above it."""
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        path = candidate / CONFIG_NAME
        if path.is_file():
            return path
    return None


_CACHE: dict[Path, tuple[float, Workspace]] = {}


def load_workspace(spec_path: Path) -> Workspace:
    """The workspace of a spec file; re-read only when checkspec.yaml changes."""
    config_path = find_config(spec_path.resolve())
    if config_path is None:
        return Workspace()
    mtime = config_path.stat().st_mtime
    cached = _CACHE.get(config_path)
    if cached and cached[0] == mtime:
        return cached[1]
    try:
        workspace = workspace_from_text(config_path.read_text(encoding="utf-8"), config_path)
    except (OSError, UnicodeDecodeError) as exc:  # a located problem, not a traceback
        reason = exc.reason if isinstance(exc, UnicodeDecodeError) else exc.strerror or exc
        what = "is not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else "cannot be read"
        problem = Problem("unreadable", f"checkspec.yaml {what}: {reason}", Range.point(0, 0))
        workspace = Workspace(root=config_path.parent, config_path=config_path, problems=[problem])
    _CACHE[config_path] = (mtime, workspace)
    return workspace


def workspace_from_text(text: str, config_path: Path) -> Workspace:
    """Parse checkspec.yaml text; problems are located, a bad config never raises."""
    from .document import analyze_config  # the config is a spec document too

    config, problems = analyze_config(text)
    return Workspace(
        root=config_path.parent, config=config, config_path=config_path, problems=problems
    )


def validate_config(data: Any) -> tuple[WorkspaceConfig | None, ValidationError | None]:
    try:
        return WorkspaceConfig.model_validate(data or {}), None
    except ValidationError as exc:
        return None, exc
