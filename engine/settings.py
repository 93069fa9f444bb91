"""One settings snapshot for CLI, language server, pytest plugin and extension.

The settings themselves (names, types, defaults, variables, flags, editor keys) are the
catalog's (SETTINGS in engine/catalog.py). Resolution order (later wins): defaults <
checkspec.yaml < environment (CHECKSPEC_*) < editor settings < CLI flags, always
through `resolve` (which also says where each value came from: `checkspec settings`, the
editor's hover on checkspec.yaml) or its short form `resolve_settings`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, fields, replace
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from .catalog import EDITOR_SETTINGS, SETTINGS, SETTINGS_BY_NAME, Setting
from .core import redact
from .core.report_limits import (  # noqa: F401 (the reference library's name)
    MAX_REPORTED_FAILURES_ENV_VAR,
    normalize_max_reported_failures,
)
from .llm import limits as provider_limits
from .llm import snapshot

# The LLM defaults, also importable from here as from the reference library's settings.
from .llm.endpoints import (  # noqa: F401
    get_default_embedding_model,
    get_default_generator,
    set_default_embedding_model,
    set_default_generator,
)
from .spec.problems import Problem, Severity
from .spec.workspace import Workspace

# Where each variable-borne value comes from (`checkspec settings`): the catalog's
# CHECKSPEC_* variables, and the secrets and the SDK's base that no file holds.
_ENV_OF = {
    **{s.name: s.env for s in SETTINGS if s.env},
    "api_key": snapshot.API_KEY_ENV,
    "embedding_api_key": snapshot.EMBEDDING_API_KEY_ENV,
    "sdk_api_base": snapshot.SDK_API_BASE_ENV,
}
SECRETS = frozenset({"api_key", "embedding_api_key"})  # shown masked, never written


def _default(name: str) -> Any:
    return SETTINGS_BY_NAME[name].default


@dataclass(frozen=True)
class Settings:
    """Every setting of the catalog (defaults from there) plus the provider limits: one
    frozen snapshot, resolved once (`resolve`) and passed to what runs (`use_settings`)."""

    model: str | None = _default("model")
    llm_client: str = _default("llm_client")  # auto: openai/ models through the SDK
    embedding_model: str | None = _default("embedding_model")
    api_base: str | None = _default("api_base")
    embedding_api_base: str | None = _default("embedding_api_base")  # unset: api_base
    target: str | None = _default("target")
    concurrency: int = _default("concurrency")
    target_timeout: float = _default("target_timeout")
    scenario_timeout: float = _default("scenario_timeout")
    rerun: bool = _default("rerun")  # re-run once what a dead worker ran with others
    jobs: int = _default("jobs")  # worker processes of a run; 0: one per CPU
    python: str | None = _default("python")  # the workers' interpreter; None: this one
    max_file_size: int = _default("max_file_size")
    max_dataset_file_size: int = _default("max_dataset_file_size")
    max_prompt_size: int = _default("max_prompt_size")
    limits: provider_limits.Limits = ()  # provider limits by model, "" for the judge's
    prices: tuple[tuple[str, tuple[float, float]], ...] = ()  # $ per token (in, out) by model
    cache: bool = _default("cache")  # keep judge and embedding answers between runs
    cache_dir: str | None = _default("cache_dir")  # None: .checkspec/cache at the root
    cache_max_mb: float = _default("cache_max_mb")
    max_cost: float | None = _default("max_cost")  # dollars a run may spend; None: no budget
    history: bool = _default("history")  # keep the run in .checkspec/history.db
    history_max_runs: int = _default("history_max_runs")
    capture: str = _default("capture")  # off | otel: spans of each target call (engine/capture)
    diagnostics_scope: str = _default("diagnostics_scope")  # openFiles | workspace (editor)
    # From the environment only (no file holds a secret): CHECKSPEC_API_KEY,
    # CHECKSPEC_EMBEDDING_API_KEY, and OPENAI_API_BASE for `openai/` models without api_base.
    api_key: str | None = field(default=None, repr=False)
    embedding_api_key: str | None = field(default=None, repr=False)
    sdk_api_base: str | None = None


class ConfigUnreadable(Exception):
    """The workspace's checkspec.yaml has errors (an unknown key, a wrong type, a YAML
    error) or is not trusted (engine/spec/trust.py): nothing that would use its settings
    runs, rather than run with defaults in its place (exit 2 on the CLI, a usage error in
    pytest, a refused run in the editor)."""

    def __init__(
        self, path: Path | None, problems: list[Problem], variables: list[str] | None = None
    ) -> None:
        self.path = path
        self.problems = problems
        self.variables = variables or []  # `CHECKSPEC_JOBS='four': not a whole number...`
        super().__init__("\n".join(self.lines()))

    def lines(self, shown: str | None = None) -> list[str]:
        """Each problem as `checkspec.yaml:LINE:COL: error: ...`, then what it means."""
        found = [f"error: {variable}" for variable in self.variables]
        if self.variables:
            found.append(
                "error: fix or unset these variables (nothing runs with defaults in their place)"
            )
        if self.path is not None and self.problems:
            where = shown or str(self.path)
            found = [p.format(where) for p in self.problems] + found
            found.append(
                f"error: {where} cannot be used as it is: fix it (nothing runs with defaults "
                "in its place)"
            )
        return found


def config_errors(workspace: Workspace) -> list[Problem]:
    """The errors of the workspace's checkspec.yaml (none without one)."""
    return [p for p in workspace.problems if p.severity is Severity.ERROR]


def require_readable(workspace: Workspace, environ: Mapping[str, str] | None = None) -> Workspace:
    """The workspace, if its checkspec.yaml and the CHECKSPEC_* variables can be used;
    else ConfigUnreadable naming every problem of both."""
    errors = config_errors(workspace) if workspace.config_path is not None else []
    variables = snapshot.environment_problems(environ)
    if errors or variables:
        raise ConfigUnreadable(workspace.config_path, errors, variables)
    return workspace


def resolve_settings(workspace: Workspace | None = None, **overrides: Any) -> Settings:
    """The settings: defaults < checkspec.yaml < environment < `overrides` (flags)."""
    return resolve(workspace, flags=overrides).settings


@dataclass(frozen=True)
class Resolved:
    """The resolved settings and where each came from (`checkspec settings`, hover)."""

    settings: Settings
    origins: Mapping[str, str]  # name -> `checkspec.yaml:3`, `CHECKSPEC_MODEL`, `--model`...


def resolve(
    workspace: Workspace | None = None,
    *,
    flags: Mapping[str, Any] | None = None,
    editor: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Resolved:
    """The settings with the origin of each: flags (the CLI's, as `--model`) > editor
    settings (`editor: checkspec.model`) > environment (`CHECKSPEC_MODEL`) > checkspec.yaml
    (`checkspec.yaml:3`, the key's line) > `default`. The environment is read here only
    (`environ`: os.environ) through engine/llm/snapshot.py's `environment_values`."""
    settings = Settings()
    origins = {f.name: "default" for f in fields(Settings)}
    if workspace is not None:
        config = workspace.config
        given = config.model_fields_set if workspace.config_path is not None else set()
        from_file = {
            f.name: getattr(config, f.name)
            for f in fields(Settings)
            if getattr(config, f.name, None) is not None
        }
        settings = replace(settings, **from_file)
        lines = _key_lines(workspace)
        file_name = workspace.config_path.name if workspace.config_path else "checkspec.yaml"

        def at(key: str) -> str:
            line = lines.get(key)
            return f"{file_name}:{line + 1}" if line is not None else file_name

        for key in from_file:
            if key in given:
                origins[key] = at(key)
        judge = provider_limits.ModelLimits(config.max_parallel_requests, config.rpm, config.tpm)
        per_model = {
            name: provider_limits.ModelLimits(m.max_parallel_requests, m.rpm, m.tpm)
            for name, m in config.models.items()
        }
        found = provider_limits.limits_from_config(judge, per_model)
        prices = tuple(
            (name, (m.input_cost_per_token or 0.0, m.output_cost_per_token or 0.0))
            for name, m in sorted(config.models.items())
            if m.input_cost_per_token is not None or m.output_cost_per_token is not None
        )
        settings = replace(settings, limits=found, prices=prices)
        for key in ("limits", "prices"):
            if getattr(settings, key):
                origins[key] = at("models") if key == "prices" or "models" in lines else file_name
    from_env = snapshot.environment_values(environ)
    settings = replace(settings, **from_env)
    origins.update({key: _ENV_OF[key] for key in from_env})
    by_editor = {k: v for k, v in (editor or {}).items() if v is not None}
    settings = replace(settings, **by_editor)
    origins.update({key: f"editor: checkspec.{_editor_key(key)}" for key in by_editor})
    by_flag = {k: v for k, v in (flags or {}).items() if v is not None}
    settings = replace(settings, **by_flag)
    origins.update({key: _flag(key) for key in by_flag})
    snapshot.remember_secrets(  # held now: every output masks them (core/redact.py)
        (settings.api_key, settings.embedding_api_key),
        (settings.api_base, settings.embedding_api_base, settings.sdk_api_base),
    )
    return Resolved(settings, origins)


def _key_lines(workspace: Workspace) -> Mapping[str, int]:
    """The 0-based line of each top-level key of the workspace's checkspec.yaml."""
    if workspace.config_path is None:
        return {}
    from .spec.config_analysis import key_lines

    if workspace.text is not None:
        return key_lines(workspace.text)
    try:
        return key_lines(workspace.config_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return {}


def _editor_key(name: str) -> str:
    setting = SETTINGS_BY_NAME.get(name)
    return setting.editor_key if setting is not None else name


def _flag(name: str) -> str:
    setting = SETTINGS_BY_NAME.get(name)
    return setting.flag if setting is not None and setting.flag else f"--{name.replace('_', '-')}"


def masked(secret: str | None) -> str | None:
    """A secret as shown: its last four characters at most."""
    return redact.mask(secret) if secret else secret


def run_settings(workspace: Workspace, **overrides: Any) -> Settings:
    """The settings of a run (the CLI's, the pytest plugin's): resolved as above, with the
    paths made absolute from the workspace root. A checkspec.yaml with errors raises
    ConfigUnreadable: a run never goes on with defaults in place of a file it cannot use."""
    require_readable(workspace)
    return for_workspace(resolve_settings(workspace, **overrides), workspace.root)


def for_workspace(settings: Settings, root: Path | None) -> Settings:
    """The settings with their paths made absolute: the workers' interpreter and the
    verdict cache's folder are relative to the workspace root (else the current folder)."""
    base = root or Path.cwd()
    cache_dir = Path(settings.cache_dir) if settings.cache_dir else base / ".checkspec" / "cache"
    return replace(
        settings,
        python=worker_python(settings.python, root),
        cache_dir=str(cache_dir if cache_dir.is_absolute() else base / cache_dir),
    )


def worker_python(python: str | None, root: Path | None = None) -> str:
    """The interpreter to start workers with; a relative path is from the workspace root."""
    if not python:
        return sys.executable
    path = Path(python).expanduser()
    if not path.is_absolute() and root is not None and ("/" in python or "\\" in python):
        path = root / path
    return str(path)


def llm_snapshot(settings: Settings) -> snapshot.LLMSettings:
    """What model calls need of the settings (engine/llm/snapshot.py), for `use_settings`.

    The embedding model's endpoint falls back to the judge's (get_default_embedding_model).
    With a run-wide limit, a process may use all of it (the run's limiter shares it out);
    without one, each process keeps the endpoint's own default.
    """
    judge = dict(settings.limits).get("")
    return snapshot.LLMSettings(
        model=settings.model,
        api_base=settings.api_base,
        api_key=settings.api_key,
        embedding_model=settings.embedding_model,
        embedding_api_base=settings.embedding_api_base,
        embedding_api_key=settings.embedding_api_key,
        max_concurrency=(judge.max_parallel_requests or None) if judge is not None else None,
        llm_client=settings.llm_client,
        max_prompt_size=settings.max_prompt_size,
        prices=settings.prices,
        cache_dir=settings.cache_dir if settings.cache else None,
        cache_max_mb=settings.cache_max_mb,
        sdk_api_base=settings.sdk_api_base,
    )


def use_settings(settings: Settings) -> AbstractContextManager[snapshot.LLMSettings]:
    """Run the block (an executor job, `generate`) with these settings: the model, its
    key, the prompt limit, the prices and the verdict cache. Nothing global is written."""
    return snapshot.using(llm_snapshot(settings))


def editor_overrides(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The catalog's editor settings given by an editor (camelCase like `embeddingModel`,
    or snake_case).

    Values of the wrong type or out of the setting's bounds are ignored, and editors send
    "" for "unset".
    """
    found: dict[str, Any] = {}
    for setting in EDITOR_SETTINGS:
        value = raw.get(setting.editor_key, raw.get(setting.name))
        if value is None and "." in setting.editor_key:  # nested, as workspace/configuration
            value = _dotted(raw, setting.editor_key)
        if setting.choices is not None:
            if value in setting.choices:
                found[setting.name] = value
            continue
        if setting.type in (int, float):
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if number and setting.type is int and value != int(value):
                number = False
            if number and _within(setting, value):
                found[setting.name] = setting.type(value)
        elif setting.type is str and isinstance(value, str) and value.strip():
            found[setting.name] = value.strip()
    return found


def _dotted(raw: Mapping[str, Any], key: str) -> Any:
    """`diagnostics.scope` in `{"diagnostics": {"scope": ...}}`."""
    value: Any = raw
    for part in key.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value


def _within(setting: Setting, value: float) -> bool:
    """A finite number within the setting's bounds."""
    if value != value or value in (float("inf"), float("-inf")):
        return False
    if setting.minimum is not None and value < setting.minimum:
        return False
    if setting.maximum is not None and value > setting.maximum:
        return False
    return setting.exclusive_minimum is None or value > setting.exclusive_minimum


# -- the reference library's settings module (giskard.checks.settings) ------------------
# Code written for giskard-checks reads its settings object and the module's defaults;
# they are here under the same names. Models stay configured by the catalog's CHECKSPEC_*
# variables (docs/compatibility.md): `GiskardChecksSettings` reads the GISKARD_CHECKS_*
# variables for code that inspects them, the engine does not use them.

DEFAULT_MODEL: str | None = None  # no built-in default model: an LLM check says how to set one
DEFAULT_EMBEDDING_MODEL: str | None = None


@cache
def _reference_settings_class() -> type:
    # pydantic-settings is imported only by code that asks for these settings.
    from pydantic import Field, field_validator
    from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

    from .core.environment import reference_values

    class _ReferenceSource(PydanticBaseSettingsSource):
        def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
            return None, field_name, False  # unused: __call__ gives them all

        def __call__(self) -> dict[str, Any]:
            config = self.settings_cls.model_config
            found = reference_values(env_file=config.get("env_file"))
            return {k: v for k, v in found.items() if k in self.settings_cls.model_fields}

    class GiskardChecksSettings(BaseSettings):
        """giskard-checks' environment settings (GISKARD_CHECKS_* variables, `.env`), read
        through the one reader of the environment (core/environment.py)."""

        model_config = SettingsConfigDict(
            env_prefix="GISKARD_CHECKS_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
        )

        @classmethod
        def settings_customise_sources(
            cls, settings_cls: type[BaseSettings], init_settings: Any, *_: Any, **__: Any
        ) -> tuple[Any, ...]:
            # Arguments first, then the variables over `.env` as pydantic-settings orders
            # them; read by core/environment.py, not by pydantic-settings' own sources.
            return (init_settings, _ReferenceSource(settings_cls))

        default_model: str | None = Field(default=DEFAULT_MODEL)
        default_judge: str | None = Field(default=None)
        default_embedding_model: str | None = Field(default=DEFAULT_EMBEDDING_MODEL)
        disable_rich_pretty: bool = Field(default=False)
        max_reported_failures: int | None = Field(default=None)

        _max = field_validator("max_reported_failures", mode="before")(
            lambda value: normalize_max_reported_failures(value)
        )

    GiskardChecksSettings.__module__ = __name__
    return GiskardChecksSettings


def get_settings() -> Any:
    """giskard-checks' settings read from the environment (a `GiskardChecksSettings`)."""
    return _reference_settings_class()()


# The reference library's judge defaults, also importable from here: loaded when asked
# for, so that reading settings (a worker unpickling its run's options) imports no judge.
_JUDGE_DEFAULTS = frozenset({"get_default_judge", "set_default_judge"})


def __getattr__(name: str) -> Any:
    if name == "GiskardChecksSettings":
        return _reference_settings_class()
    if name in _JUDGE_DEFAULTS:
        from .judges import backends

        return getattr(backends, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _SettingsModule(ModuleType):
    """This module, with the reference library's `_default_generator` and
    `_default_embedding_model` globals read and written through to what user code set
    (engine/llm/snapshot.py's CodeDefaults: tests reset them by assigning)."""

    @property
    def _default_generator(self) -> Any:
        return snapshot.code_defaults().generator

    @_default_generator.setter
    def _default_generator(self, value: Any) -> None:
        snapshot.set_code_defaults(generator=value)

    @property
    def _default_embedding_model(self) -> Any:
        return snapshot.code_defaults().embedding_model

    @_default_embedding_model.setter
    def _default_embedding_model(self, value: Any) -> None:
        snapshot.set_code_defaults(embedding_model=value)


sys.modules[__name__].__class__ = _SettingsModule
