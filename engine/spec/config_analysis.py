"""Reading checkspec.yaml: its config (defaults where invalid) and located problems.

Its settings are validated against `WorkspaceConfig`, and each custom check's parameters
against the built-in check it configures, as a check in a spec file would be.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from pydantic import ValidationError

from ..core.check import Check, lint_later
from ..core.gcpause import gc_paused
from ..llm.env_secrets import API_KEY_ENV, EMBEDDING_API_KEY_ENV
from ..targets import describe_target_problem
from .check_analysis import Context, lint_check
from .fields import is_mapping
from .lines import LineIndex
from .locate import misnamed, problems_from_validation, start_of
from .problems import Problem, Range, internal_error, shown_problems
from .source import parse_source
from .tree import Node
from .workspace_config import WorkspaceConfig
from .yaml_traps import comment_hints


def analyze_config(text: str) -> tuple[WorkspaceConfig, list[Problem]]:
    """checkspec.yaml text -> its config (defaults where invalid) and located problems.

    What `document.analyze` finds in it, without the document. Never raises.
    """
    try:
        with gc_paused():  # bulk acyclic allocation: see gcpause.py
            source = parse_source(text, max_bytes=WorkspaceConfig().max_file_size)
            problems = list(source.problems)
            config = WorkspaceConfig()
            if source.root is not None:
                problems.extend(comment_hints(source))
                config, found = config_of(source.root)
                problems.extend(found)
            return config, shown_problems(problems)
    except Exception as exc:  # a bug: say so at the file, never a traceback or silence
        return WorkspaceConfig(), [internal_error(exc)]


def _secret_message(key: str, variable: str) -> str:
    return (
        f"'{key}' does not go in checkspec.yaml (a file ends up in commits and reports): set "
        f"the {variable} environment variable (or the provider's own, as OPENAI_API_KEY) "
        "where checkspec runs"
    )


_SECRETS = {
    "api_key": _secret_message("api_key", API_KEY_ENV),
    "embedding_api_key": _secret_message("embedding_api_key", EMBEDDING_API_KEY_ENV),
}


def config_of(root: Node) -> tuple[WorkspaceConfig, list[Problem]]:
    """The config a read checkspec.yaml gives (defaults where invalid) and its problems."""
    problems: list[Problem] = []
    if not is_mapping(root, "checkspec.yaml", problems):
        return WorkspaceConfig(), problems
    data = dict(root.value)
    for key_node, _value in root.entries:
        if isinstance(key_node.value, str) and key_node.value in _SECRETS:
            # A key in a file ends up in a commit: say where keys go, not "did you mean".
            problems.append(Problem("secret-in-config", _SECRETS[key_node.value], key_node.range))
            data.pop(key_node.value, None)
    try:
        config = WorkspaceConfig.model_validate(data)
    except ValidationError as exc:
        problems.extend(
            problems_from_validation(
                exc, root, head=start_of(root), model=WorkspaceConfig, what="checkspec.yaml"
            )
        )
        config = WorkspaceConfig()
    if config.target and (why := describe_target_problem(config.target)):
        target_node = root.get("target")
        problems.append(
            Problem("bad-target", why, target_node.range if target_node else start_of(root))
        )
    customs = root.get("custom_checks")
    ctx = Context(index=LineIndex(""), custom={}, dataset=False, target=None)
    for item in customs.items if customs is not None and customs.kind == "sequence" else []:
        params = item.get("params") if item.kind == "mapping" else None
        if params is None or params.kind != "mapping":
            continue
        as_check = {
            "kind": params.value.get("type"),
            **{k: v for k, v in params.value.items() if k != "type"},
        }
        type_node = params.get("type")
        head = type_node.range if type_node is not None else start_of(params)
        problems.extend(_custom_params(as_check, params, head, ctx))
    return config, problems


def _custom_params(
    as_check: dict[str, Any], params: Node, head: Range, ctx: Context
) -> list[Problem]:
    kind = as_check.get("kind")
    if not isinstance(kind, str):
        return []
    if Check.kind_class(kind) is None:
        return [
            misnamed("unknown-kind", f"unknown check type '{kind}'", kind, Check.registry(), head)
        ]
    try:
        with lint_later():
            check: Check = Check.model_validate(as_check)
    except ValidationError as exc:
        return problems_from_validation(
            exc, params, head=head, model=Check.registry()[kind], what=kind
        )
    return lint_check(check, params, head, ctx)


@lru_cache(maxsize=8)  # every open document of a workspace resolves its settings
def key_lines(text: str) -> Mapping[str, int]:
    """The 0-based line of each top-level key of checkspec.yaml text, by the name of the
    setting it gives (any accepted spelling; the last one wins, as when it is read)."""
    from ..catalog import fields_of

    try:
        source = parse_source(text, max_bytes=WorkspaceConfig().max_file_size)
    except Exception:
        return {}
    root = source.root
    if root is None or root.kind != "mapping":
        return {}
    spelling = {
        key: spec.attribute
        for spec in fields_of(WorkspaceConfig).values()
        for key in (spec.name, *spec.aliases, *spec.deprecated)
    }
    found: dict[str, int] = {}
    for key_node, _value in root.entries:
        if isinstance(key_node.value, str) and key_node.value in spelling:
            found[spelling[key_node.value]] = key_node.line
    return found
