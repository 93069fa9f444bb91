"""The catalog: every file kind and every setting, described once.

Everything that shows users what a file may hold or what can be configured renders this
one description: the JSON Schemas (schema_gen.py), the spec-file analysis
(engine/spec/), the language server's completion and hover (server/analysis/schema.py),
the CLI's options and help, and the VS Code extension's settings and file patterns
(`checkspec catalog` writes the JSON its build reads). Adding a file kind or a setting is
one edit here (plus the model field it describes) and a regeneration.

Two halves, so importing this module costs nothing (the CLI's `--help` reads it):

- plain data: `FILE_KINDS` (names, schema; the model each kind's top level follows is
  spec/kinds.py's `root_model`, which the catalog does not import) and `SETTINGS` (type,
  default, description, where each can be given: checkspec.yaml, environment, CLI, editor);
- derived on demand from the models and the check registry: `fields_of(model)`, each
  field's accepted spellings (canonical, aliases, deprecated), whether it is a JSONPath,
  its default and description.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic.fields import FieldInfo


# File kinds -------------------------------------------------------------------------


class FileKind(StrEnum):
    SCENARIO = "scenario"
    SUITE = "suite"
    DATASET = "dataset"
    CONFIG = "config"


@dataclass(frozen=True)
class FileKindSpec:
    """One kind of file: how it is named, what its top level is, which schema it has."""

    kind: FileKind
    title: str
    patterns: tuple[str, ...]  # file-name globs (fnmatch), without folders
    runnable: bool  # holds scenarios (a folder run collects it)
    description: str

    @property
    def schema_file(self) -> str:
        return f"{self.kind.value}.schema.json"

    def matches(self, name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.patterns)


def _named(stem: str, *extensions: str) -> tuple[str, ...]:
    return tuple(f"*.{stem}.{ext}" for ext in extensions)


FILE_KINDS: tuple[FileKindSpec, ...] = (
    FileKindSpec(
        FileKind.SCENARIO,
        "scenario",
        _named("scenario", "yaml", "yml", "json"),
        True,
        "One conversation with the agent: its steps, each with interactions and checks.",
    ),
    FileKindSpec(
        FileKind.SUITE,
        "suite",
        _named("suite", "yaml", "yml", "json"),
        True,
        "A named list of scenarios sharing a target and tags.",
    ),
    FileKindSpec(
        FileKind.DATASET,
        "dataset",
        _named("dataset", "yaml", "yml", "json", "jsonl"),
        True,
        "Scenarios in the hub dataset format (in .jsonl, one scenario record a line).",
    ),
    FileKindSpec(
        FileKind.CONFIG,
        "workspace config",
        ("checkspec.yaml", "checkspec.yml"),
        False,
        "The workspace's settings and custom checks, at its root.",
    ),
)
KIND_SPECS: Mapping[FileKind, FileKindSpec] = {spec.kind: spec for spec in FILE_KINDS}
CONFIG_NAMES: tuple[str, ...] = KIND_SPECS[FileKind.CONFIG].patterns
SCHEMA_KEY = "$schema"  # a top-level key naming the file's schema (and so its kind)


def is_jsonl(path: str | PurePath) -> bool:
    """A JSON Lines file: one document per line (its limits apply per row)."""
    return PurePath(path).suffix == ".jsonl"


def kind_from_name(path: str | PurePath) -> FileKind | None:
    name = PurePath(path).name
    for spec in FILE_KINDS:
        if spec.matches(name):
            return spec.kind
    return None


def kind_from_schema(value: Any) -> FileKind | None:
    """`$schema: .../scenario.schema.json` (any URL or path ending like that)."""
    if not isinstance(value, str):
        return None
    for spec in FILE_KINDS:
        if value.rstrip("/").endswith(spec.schema_file):
            return spec.kind
    return None


# Settings ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    """One setting: its checkspec.yaml key, type, default and where else it can be given.

    Resolution (later wins): default < checkspec.yaml < `env` < CLI flag / editor setting.
    """

    name: str  # as in checkspec.yaml (snake_case)
    type: type  # str, int, float or bool
    default: Any
    description: str
    env: str | None = None  # CHECKSPEC_* variable
    flag: str | None = None  # `checkspec run` option
    editor: bool = False  # offered as an editor setting (camelCase under `checkspec.`)
    minimum: float | None = None
    exclusive_minimum: float | None = None
    maximum: float | None = None
    machine: bool = False  # a path on this machine (the editor scopes it so)
    # -- workspace diagnostics (issue 28 item 3): an enum, and an editor key of its own --
    choices: tuple[str, ...] | None = None  # the only values accepted (a string setting)
    editor_name: str | None = None  # the editor key when not the camelCased name
    # -- end workspace diagnostics --
    unit: str = "seconds"  # what a number setting counts (its flag's metavar, its errors)

    @property
    def editor_key(self) -> str:
        if self.editor_name is not None:
            return self.editor_name
        first, *rest = self.name.split("_")
        return first + "".join(part.title() for part in rest)

    def field_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of the pydantic `Field` that declares it in checkspec.yaml."""
        found: dict[str, Any] = {"default": self.default, "description": self.description}
        bounds = {"ge": self.minimum, "gt": self.exclusive_minimum, "le": self.maximum}
        found.update({k: v for k, v in bounds.items() if v is not None})
        return found


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "model",
        str,
        None,
        "LLM for judge checks, as litellm names it (openai/gpt-4o-mini).",
        env="CHECKSPEC_MODEL",
        flag="--model",
        editor=True,
    ),
    Setting(
        "llm_client",
        str,
        "auto",
        "How model calls are sent: auto (models written openai/NAME straight to their "
        "OpenAI-compatible endpoint through the openai SDK, any other through litellm) or "
        "litellm (every call through litellm).",
        env="CHECKSPEC_LLM_CLIENT",
    ),
    Setting(
        "embedding_model",
        str,
        None,
        "Embedding model for semantic_similarity (litellm name).",
        env="CHECKSPEC_EMBEDDING_MODEL",
        flag="--embedding-model",
        editor=True,
    ),
    Setting(
        "api_base",
        str,
        None,
        "Base URL of the model provider.",
        env="CHECKSPEC_API_BASE",
        editor=True,
    ),
    Setting(
        "embedding_api_base",
        str,
        None,
        "Base URL of the embedding model's provider (default: api_base).",
        env="CHECKSPEC_EMBEDDING_API_BASE",
        editor=True,
    ),
    Setting(
        "target",
        str,
        None,
        "Default target for files without one: python:module:function or a URL "
        "(none: recorded outputs are replayed).",
        env="CHECKSPEC_TARGET",
        editor=True,
    ),
    Setting(
        "concurrency",
        int,
        8,
        "Scenarios run at once, over all workers.",
        flag="--concurrency",
        editor=True,
        minimum=1,
        maximum=256,
    ),
    Setting(
        "target_timeout",
        float,
        60.0,
        "Seconds a target may take to answer one interaction.",
        editor=True,
        exclusive_minimum=0,
    ),
    Setting(
        "scenario_timeout",
        float,
        300.0,
        "Seconds a whole scenario may take (imports, targets and checks); past it its "
        "worker process is stopped and the scenario is an ERROR.",
        flag="--scenario-timeout",
        editor=True,
        exclusive_minimum=0,
    ),
    Setting(
        "rerun",
        bool,
        True,
        "Run again, once and alone, each scenario a worker process was running when it "
        "died alongside others (marked re-run in the report); false: they are ERROR "
        "instead (targets with side effects).",
    ),
    Setting(
        "jobs",
        int,
        0,
        "Worker processes of a run; 0: one per CPU.",
        flag="--jobs",
        editor=True,
        minimum=0,
        maximum=256,
    ),
    Setting(
        "python",
        str,
        None,
        "Python interpreter the worker processes run (the project's own environment, "
        "with checkspec installed); default: the one running checkspec.",
        flag="--python",
        editor=True,
        machine=True,
    ),
    Setting(
        "max_file_size",
        int,
        10_000_000,
        "Files larger than this many bytes are refused (JSON Lines datasets: see "
        "max_dataset_file_size).",
        editor=True,
        minimum=1,
    ),
    Setting(
        "max_dataset_file_size",
        int,
        100_000_000,
        "JSON Lines datasets larger than this many bytes are refused. Each row is read "
        "alone, under the node and depth limits of one row, so a dataset may be larger "
        "than a YAML file (max_file_size).",
        editor=True,
        minimum=1,
    ),
    Setting(
        "max_prompt_size",
        int,
        200_000,
        "Judge prompts rendering to more bytes than this are an error, not sent.",
        env="CHECKSPEC_MAX_PROMPT_SIZE",
        minimum=1,
        editor=True,
    ),
    Setting(
        "cache",
        bool,
        True,
        "Keep judge and embedding answers between runs (the verdict cache).",
    ),
    Setting(
        "cache_dir",
        str,
        None,
        "Folder of the verdict cache, from the workspace root (default .checkspec/cache).",
        env="CHECKSPEC_CACHE_DIR",
        flag="--cache-dir",
        editor=True,
        machine=True,
    ),
    Setting(
        "max_cost",
        float,
        None,
        "Dollars a run may spend on model calls: once what was spent plus what is in flight "
        "would pass it, no new call starts and the scenarios that needed one are ERROR "
        "'budget reached'. Unset: no budget.",
        env="CHECKSPEC_MAX_COST",
        flag="--max-cost",
        exclusive_minimum=0,
        unit="dollars",
    ),
    Setting(
        "cache_max_mb",
        float,
        500.0,
        "Size of the verdict cache before the oldest answers go.",
        exclusive_minimum=0,
        editor=True,
    ),
    Setting(
        "history",
        bool,
        True,
        "Keep every run in .checkspec/history.db at the workspace root (`checkspec history`, "
        "`checkspec compare`); `--no-history` leaves one run out.",
    ),
    Setting(
        "history_max_runs",
        int,
        200,
        "Runs the history keeps; the oldest go past it.",
        minimum=1,
    ),
    # -- capture (issue 51) --
    Setting(
        "capture",
        str,
        "off",
        "What a run records of each call of the target besides its answer: off, or otel "
        "(the OpenTelemetry spans the call produces, read into the interaction's metadata: "
        "tools_called, tool_calls, token_count, prompt_tokens, completion_tokens, latency_ms, "
        "model_calls, retrieved_docs, context; needs pip install 'checkspec[otel]').",
        flag="--capture",
        editor=True,
        choices=("off", "otel"),
    ),
    # -- end capture --
    # -- workspace diagnostics (issue 28 item 3) --
    Setting(
        "diagnostics_scope",
        str,
        "openFiles",
        "Which files the editor's Problems list shows checkspec's problems of: openFiles, or "
        "workspace (every spec file of the workspace, unopened ones read from disk; needs an "
        "editor with LSP pull diagnostics).",
        editor=True,
        choices=("openFiles", "workspace"),
        editor_name="diagnostics.scope",
    ),
    # -- end workspace diagnostics --
)
SETTINGS_BY_NAME: Mapping[str, Setting] = {s.name: s for s in SETTINGS}


# What `capture: otel` records (issue 51) -------------------------------------------
# The keys engine/capture fills in an interaction's metadata, for completion of
# `trace.last.metadata.` paths and the docs; the mapping from spans is docs/capture.md.


@dataclass(frozen=True)
class CapturedKey:
    name: str
    detail: str  # its type, shown beside it
    description: str
    item_keys: tuple[str, ...] = ()  # the keys of each item of a list of records


CAPTURED_METADATA: tuple[CapturedKey, ...] = (
    CapturedKey("tools_called", "list of names", "The tools the agent called, in call order."),
    CapturedKey(
        "tool_calls",
        "list of calls",
        "Each tool call: its name, arguments (parsed from JSON), result and error.",
        ("name", "arguments", "result", "error"),
    ),
    CapturedKey("token_count", "number", "Tokens of every model call (prompt and completion)."),
    CapturedKey("prompt_tokens", "number", "Prompt (input) tokens of every model call."),
    CapturedKey("completion_tokens", "number", "Completion (output) tokens of every model call."),
    CapturedKey("latency_ms", "number", "Milliseconds the target call took."),
    CapturedKey(
        "model_calls",
        "list of calls",
        "Each model call: its model, tokens, latency and error.",
        ("model", "prompt_tokens", "completion_tokens", "token_count", "latency_ms", "error"),
    ),
    CapturedKey(
        "retrieved_docs",
        "list of documents",
        "The documents retriever spans reported: content, id, score, metadata.",
        ("content", "id", "score", "metadata"),
    ),
    CapturedKey("context", "list of texts", "The retrieved documents' contents (groundedness)."),
    CapturedKey("span_count", "number", "The spans the call made (0: nothing instrumented)."),
)


EDITOR_SETTINGS: tuple[Setting, ...] = tuple(s for s in SETTINGS if s.editor)


# Editor-only settings (issue 28 item 2) ----------------------------------------------
# Settings only the language server reads, from the editor: not in checkspec.yaml, the
# environment or the CLI. A choice among named values, each with its description.


@dataclass(frozen=True)
class EditorChoice:
    key: str  # under `checkspec.` (camelCase)
    default: str
    choices: tuple[tuple[str, str], ...]  # (value, what it does)
    description: str

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(value for value, _ in self.choices)

    def read(self, raw: Mapping[str, Any]) -> str:
        """The value an editor gave (camelCase key or snake_case), else the default."""
        snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in self.key)
        value = raw.get(self.key, raw.get(snake))
        return value if isinstance(value, str) and value in self.values else self.default


RUN_ON_SAVE = EditorChoice(
    "runOnSave",
    "off",
    (
        ("off", "Saving runs nothing."),
        ("scenario", "Saving a spec file runs the scenario last edited."),
        ("file", "Saving a spec file runs all its scenarios."),
    ),
    "Run scenarios when a spec file is saved, in the language server (every editor): the "
    "scenario at the last edit (`scenario`) or the whole file (`file`). Runs import the "
    "workspace's code: VS Code sends it only in a trusted workspace.",
)
EDITOR_CHOICES: tuple[EditorChoice, ...] = (RUN_ON_SAVE,)
# End of the editor-only settings (issue 28 item 2) --------------------------------------


def editor_catalog() -> dict[str, Any]:
    """What the VS Code extension reads (schemas/catalog.json, written by `checkspec
    schema`): the file kinds' names and the editor settings. Its build and its manifest
    (package.json) are generated from it; a test fails when they drift."""
    type_names = {str: "string", int: "integer", float: "number", bool: "boolean"}

    def setting(s: Setting) -> dict[str, Any]:
        found: dict[str, Any] = {
            "key": s.editor_key,
            "name": s.name,
            "type": type_names[s.type],
            "default": s.default,
            "description": s.description,
        }
        bounds = {
            "minimum": s.minimum,
            "exclusiveMinimum": s.exclusive_minimum,
            "maximum": s.maximum,
        }
        found.update({k: v for k, v in bounds.items() if v is not None})
        if s.env:
            found["env"] = s.env
        if s.machine:
            found["machine"] = True
        if s.choices:
            found["enum"] = list(s.choices)
        return found

    return {
        "fileKinds": [
            {
                "kind": spec.kind.value,
                "title": spec.title,
                "patterns": list(spec.patterns),
                "runnable": spec.runnable,
                "schema": spec.schema_file,
            }
            for spec in FILE_KINDS
        ],
        "settings": [setting(s) for s in EDITOR_SETTINGS],
        # Editor-only settings (issue 28 item 2).
        "editorChoices": [
            {
                "key": c.key,
                "default": c.default,
                "enum": list(c.values),
                "enumDescriptions": [what for _, what in c.choices],
                "description": c.description,
            }
            for c in EDITOR_CHOICES
        ],
    }


def setting_field(name: str) -> Any:
    """The pydantic `Field` of a setting in checkspec.yaml (see WorkspaceConfig)."""
    from pydantic import Field

    return Field(**SETTINGS_BY_NAME[name].field_kwargs())


def cli_help(name: str, text: str | None = None) -> str:
    """A setting's CLI help: its description (or `text`), then where it comes from when the
    option is not given, in resolution order."""
    setting = SETTINGS_BY_NAME[name]
    about = (text or setting.description).rstrip(".")
    sources = [*([setting.env] if setting.env else []), f"{name}: in checkspec.yaml"]
    default = "unset" if setting.default is None else str(setting.default)
    return f"{about} (else {', else '.join(sources)}, else {default})".replace("%", "%%")


# Fields of the models ---------------------------------------------------------------


@dataclass(frozen=True)
class FieldSpec:
    """One key of a mapping in a file."""

    attribute: str  # the model's attribute
    name: str  # the canonical key in a file
    aliases: tuple[str, ...]  # other accepted keys
    deprecated: tuple[str, ...]  # accepted with a warning (renamed to `name`)
    jsonpath: bool  # its value is a `trace.` selector
    required: bool
    description: str
    info: FieldInfo

    @property
    def spellings(self) -> tuple[str, ...]:
        """Every key it may be written under, canonical first."""
        return (self.name, *self.aliases, *self.deprecated)

    def deprecation_message(self, spelling: str) -> str:
        return f"'{spelling}' is a deprecated name for '{self.name}'"


def fields_of(model: type[BaseModel]) -> Mapping[str, FieldSpec]:
    """The keys a model's mapping holds, by canonical name, in declaration order."""
    return _fields_of(model)


@cache
def _fields_of(model: type[BaseModel]) -> dict[str, FieldSpec]:
    from pydantic import AliasChoices
    from pydantic.json_schema import SkipJsonSchema

    from .core.check import DEPRECATED_SPELLINGS, Check

    found: dict[str, FieldSpec] = {}
    # A person's label (`expect:`) goes only on checks that may call a model (the check
    # registry's classes declaring model calls, and those holding checks).
    unlabelled = issubclass(model, Check) and not model.may_call_model()
    for attribute, info in model.model_fields.items():
        if any(isinstance(m, SkipJsonSchema) for m in info.metadata):
            continue  # Python-only (e.g. Scenario.trace_type): never written in a file
        if unlabelled and attribute == "expect":
            continue
        name = info.alias or attribute
        by_name = model.model_config.get("populate_by_name") or model.model_config.get(
            "validate_by_name"
        )
        spellings: list[str] = [name, attribute] if by_name else [name]
        alias = info.validation_alias
        if isinstance(alias, AliasChoices):
            spellings.extend(c for c in alias.choices if isinstance(c, str))
        elif isinstance(alias, str):
            spellings.append(alias)
        if info.serialization_alias:
            spellings.append(info.serialization_alias)
        deprecated = DEPRECATED_SPELLINGS.get(attribute, ()) if issubclass(model, Check) else ()
        aliases = tuple(s for s in dict.fromkeys(spellings) if s != name and s not in deprecated)
        found[name] = FieldSpec(
            attribute=attribute,
            name=name,
            aliases=aliases,
            deprecated=tuple(deprecated),
            jsonpath=is_jsonpath(info),
            required=info.is_required(),
            description=info.description or "",
            info=info,
        )
    return found


def field_named(model: type[BaseModel], attribute: str) -> FieldSpec | None:
    """The field of a model attribute."""
    for spec in _fields_of(model).values():
        if spec.attribute == attribute:
            return spec
    return None


def jsonpath_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """The attributes of a model whose value is a `trace.` selector."""
    return tuple(s.attribute for s in _fields_of(model).values() if s.jsonpath)


def exactly_one_of(model: type[BaseModel]) -> tuple[tuple[str, str], ...]:
    """Pairs of fields of which a file gives exactly one (an inline value or its selector)."""
    pairs: tuple[tuple[str, str], ...] = getattr(model, "exactly_one_of", ())
    return pairs


# kind -> (the registry it was found in, its class there, its keys): the analysis asks for
# every check of every scenario. A hit holds while the registry maps the kind to that class.
_KEYS_BY_KIND: dict[str, tuple[dict[str, Any], type[BaseModel], frozenset[str]]] = {}


def jsonpath_keys(kind: object) -> frozenset[str]:
    """Every key under which the check of this kind takes a `trace.` selector (none for a
    kind that is not registered). Only that kind's class is looked up."""
    if isinstance(kind, str):
        hit = _KEYS_BY_KIND.get(kind)
        # dict.get: a plain read of what is registered (a hit's kind was registered).
        if hit is not None and dict.get(hit[0], kind) is hit[1]:
            return hit[2]
    from .core.check import Check

    cls: type[BaseModel] | None = Check.kind_class(kind)
    if cls is None:
        return frozenset()
    keys = _jsonpath_keys(cls)
    if isinstance(kind, str):
        _KEYS_BY_KIND[kind] = (Check._registry, cls, keys)  # noqa: SLF001
    return keys


@cache
def _jsonpath_keys(cls: type[BaseModel]) -> frozenset[str]:
    return frozenset(
        spelling
        for spec in _fields_of(cls).values()
        if spec.jsonpath
        for spelling in spec.spellings
    )


def is_jsonpath(info: FieldInfo) -> bool:
    """A field typed JSONPathStr (also inside Optional / a union)."""
    from typing import Annotated, Union, get_args, get_origin

    from .core.jsonpath import JSONPathMarker

    def marked(annotation: Any) -> bool:
        origin = get_origin(annotation)
        if origin is Annotated:
            metadata = getattr(annotation, "__metadata__", ())
            return any(isinstance(m, JSONPathMarker) for m in metadata) or marked(
                get_args(annotation)[0]
            )
        if origin is Union or type(annotation).__name__ == "UnionType":
            return any(marked(a) for a in get_args(annotation))
        return False

    return any(isinstance(m, JSONPathMarker) for m in info.metadata) or marked(info.annotation)
