"""The workspace: the nearest `checkspec.yaml` up the folder tree and what it defines.

`checkspec.yaml` holds the settings shared by the CLI, the language server and the
extension (model, embedding model, default target, limits) and the workspace's
`custom_*` checks: pre-configured built-in checks referenced by identifier.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..catalog import CONFIG_NAMES, setting_field
from ..scenario import TargetText
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
    """Settings in checkspec.yaml (CLI flags and editor settings override them).

    Each setting's default, description and bounds come from the catalog (SETTINGS in
    engine/catalog.py); a test holds the two to the same names.
    """

    model_config = ConfigDict(extra="forbid")

    schema_: str | None = Field(default=None, alias="$schema", description="Schema reference.")
    model: str | None = setting_field("model")
    embedding_model: str | None = setting_field("embedding_model")
    api_base: str | None = setting_field("api_base")
    embedding_api_base: str | None = setting_field("embedding_api_base")
    target: TargetText = setting_field("target")
    concurrency: int = setting_field("concurrency")
    target_timeout: float = setting_field("target_timeout")
    scenario_timeout: float = setting_field("scenario_timeout")
    jobs: int = setting_field("jobs")
    python: str | None = setting_field("python")
    max_file_size: int = setting_field("max_file_size")
    max_prompt_size: int = setting_field("max_prompt_size")
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
    cache: bool = setting_field("cache")
    cache_dir: str | None = setting_field("cache_dir")
    cache_max_mb: float = setting_field("cache_max_mb")
    custom_checks: list[CustomCheck] = Field(
        default_factory=list, description="Workspace checks referenced by their custom_ identifier."
    )
    agent: AgentDescription | None = Field(
        default=None, description="The agent under test, described for `checkspec generate`."
    )
    presets: dict[str, Preset] = Field(
        default_factory=dict,
        description="Prompt presets for `checkspec generate --preset NAME`, by name.",
    )

    def custom(self) -> dict[str, CustomCheck]:
        return {c.identifier: c for c in self.custom_checks}


class AgentDescription(BaseModel):
    """The agent under test, as generation prompts describe it (`checkspec generate`)."""

    model_config = ConfigDict(extra="forbid")

    description: str = Field(
        min_length=1, description="What the agent does, for whom, and what it must not do."
    )


class Preset(BaseModel):
    """A prompt preset (the Hub's): a persona or behaviour pattern scenarios are made for."""

    model_config = ConfigDict(extra="forbid")

    description: str = Field(min_length=1, description="The persona or behaviour, in a sentence.")
    rules: list[str] = Field(
        default_factory=list,
        description="Rules the agent's answers to this persona must follow (hub_conformity).",
    )


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
    """The nearest checkspec.yaml (or checkspec.yml) in `start` (a file's folder) or above."""
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        for name in CONFIG_NAMES:
            path = candidate / name
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
