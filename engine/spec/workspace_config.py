"""checkspec.yaml's models: the workspace's settings and the custom checks it defines.

`checkspec.yaml` holds the settings shared by the CLI, the language server and the
extension (model, embedding model, default target, limits) and the workspace's
`custom_*` checks: pre-configured built-in checks referenced by identifier.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..catalog import is_jsonl, setting_field
from ..targets import TargetText

CUSTOM_PREFIX = "custom_"


class CustomCheck(BaseModel):
    """A built-in check with its parameters fixed, referenced by `identifier`."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

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
    """A model's provider limits (enforced across all workers of a run) and its price."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    max_parallel_requests: int | None = Field(
        default=None, ge=1, description="Most requests in flight at once."
    )
    rpm: int | None = Field(default=None, ge=1, description="Most requests per minute.")
    tpm: int | None = Field(
        default=None, ge=1, description="Most tokens per minute (estimated from the prompts)."
    )
    input_cost_per_token: float | None = Field(
        default=None,
        ge=0,
        description="Dollars per prompt token (default: litellm's price map, if it knows the model).",
    )
    output_cost_per_token: float | None = Field(
        default=None,
        ge=0,
        description="Dollars per answer token (default: litellm's price map, if it knows the model).",
    )


class AgentDescription(BaseModel):
    """The agent under test, as generation prompts describe it (`checkspec generate`)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    description: str = Field(
        min_length=1, description="What the agent does, for whom, and what it must not do."
    )


class Preset(BaseModel):
    """A prompt preset (the Hub's): a persona or behaviour pattern scenarios are made for."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    description: str = Field(min_length=1, description="The persona or behaviour, in a sentence.")
    rules: list[str] = Field(
        default_factory=list,
        description="Rules the agent's answers to this persona must follow (hub_conformity).",
    )


class GenerateDefaults(BaseModel):
    """What `checkspec generate` reads from checkspec.yaml besides the agent and presets."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    exclude: list[str] = Field(
        default_factory=list,
        description=(
            "Globs of knowledge-base files and folders `--from-docs` leaves out, matched "
            "against each path inside the folder given and its name (CHANGELOG.md, "
            "drafts/*, **/internal/**); added to --exclude."
        ),
    )


class WorkspaceConfig(BaseModel):
    """Settings in checkspec.yaml (CLI flags and editor settings override them).

    Each setting's default, description and bounds come from the catalog (SETTINGS in
    engine/catalog.py); a test holds the two to the same names.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid")

    schema_: str | None = Field(default=None, alias="$schema", description="Schema reference.")
    model: str | None = setting_field("model")
    llm_client: Literal["auto", "litellm"] = setting_field("llm_client")
    embedding_model: str | None = setting_field("embedding_model")
    api_base: str | None = setting_field("api_base")
    embedding_api_base: str | None = setting_field("embedding_api_base")
    target: TargetText = setting_field("target")
    concurrency: int = setting_field("concurrency")
    target_timeout: float = setting_field("target_timeout")
    scenario_timeout: float = setting_field("scenario_timeout")
    rerun: bool = setting_field("rerun")
    jobs: int = setting_field("jobs")
    python: str | None = setting_field("python")
    max_file_size: int = setting_field("max_file_size")
    max_dataset_file_size: int = setting_field("max_dataset_file_size")
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
        description=(
            "Per model (litellm name): provider limits (for models other than the judge's) "
            "and prices."
        ),
    )
    cache: bool = setting_field("cache")
    cache_dir: str | None = setting_field("cache_dir")
    cache_max_mb: float = setting_field("cache_max_mb")
    max_cost: float | None = setting_field("max_cost")
    history: bool = setting_field("history")
    history_max_runs: int = setting_field("history_max_runs")
    capture: Literal["off", "otel"] = setting_field("capture")
    diagnostics_scope: Literal["openFiles", "workspace"] = setting_field("diagnostics_scope")
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
    generate: GenerateDefaults | None = Field(
        default=None, description="Defaults of `checkspec generate` (exclude globs)."
    )

    def custom(self) -> dict[str, CustomCheck]:
        return {c.identifier: c for c in self.custom_checks}

    def size_limit(self, path: str | PurePath) -> tuple[int, str]:
        """The size limit of the file at `path` and the setting that holds it.

        A JSON Lines dataset is read row by row, each row under the limits of one row
        (source.MAX_NODES nodes, 200 levels): its own, larger limit. Any other file is
        parsed whole and stays under max_file_size.
        """
        if is_jsonl(path):
            return self.max_dataset_file_size, "max_dataset_file_size"
        return self.max_file_size, "max_file_size"
