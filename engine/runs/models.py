"""The models a run will call, checked before it starts: a name litellm cannot route is
an input error (exit 2) naming the model and where it was set, not an ERROR of every
check after their calls failed one by one.

Only the models the selected scenarios would call are checked, under the run's settings:
each check's declared calls (`Check.model_calls`, checks inside all_of/any_of/not
included) and each simulated user's (an LLM input generator). A run of deterministic
checks asks nothing. Where a model was set is the settings' origin (`checkspec.yaml:1`,
`--model`, `CHECKSPEC_MODEL`: settings.resolve) when it is the run's judge or embedding
model, else the line of the check (or step) that names its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..catalog import SETTINGS_BY_NAME
from ..core.check import checks_within
from ..core.input_generator import InputGenerator
from ..interactions import Interact
from ..llm.endpoints import Generator, resolve_generator
from ..settings import Settings, resolve, use_settings
from ..spec.document import Document
from ..spec.scenario_analysis import ScenarioEntry
from ..spec.workspace import Workspace


def model_problems(
    todo: Sequence[tuple[Document, ScenarioEntry]],
    settings: Settings,
    workspace: Workspace | None,
    **flags: Any,
) -> list[str]:
    """One message per model the run would call that cannot be called (none: go on);
    `flags`: the command's own settings (`model=`, `embedding_model=`), for their origin."""
    used = models_used(todo, settings)
    if not used:
        return []
    from ..llm.routable import route_problem  # litellm, only when a name needs it

    origins = resolve(workspace, flags=flags).origins
    named = {settings.model: origins.get("model"), settings.embedding_model: None}
    if settings.embedding_model:
        named[settings.embedding_model] = origins.get("embedding_model")
    problems = []
    for model, where in used.items():
        base = settings.api_base if model == settings.model else None
        if (problem := route_problem(model, base)) is not None:
            problems.append(_message(model, named.get(model) or where, problem))
    return problems


def setting_problems(
    settings: Settings,
    workspace: Workspace | None,
    names: Sequence[str],
    origins: Mapping[str, str] | None = None,
    **flags: Any,
) -> list[str]:
    """The same for the models of these settings (`model`, `embedding_model`), as a
    command that calls them itself uses them (`generate`, `calibrate --model`); `flags`
    override the settings as the command's options do. `origins`: where the settings
    came from when they were resolved elsewhere (the language server's, editor included);
    else resolved here."""
    from ..llm.routable import route_problem

    if origins is None:
        found = dict(resolve(workspace, flags=flags).origins)
    else:
        found = dict(origins)
        for name, value in flags.items():
            if value is not None and (flag := SETTINGS_BY_NAME[name].flag):
                found[name] = flag
    problems = []
    for name in names:
        model = flags.get(name) or getattr(settings, name, None)
        if not model:
            continue
        base = settings.api_base if name == "model" else settings.embedding_api_base
        if (problem := route_problem(model, base)) is not None:
            problems.append(_message(model, found.get(name, name), problem))
    return problems


def _message(model: str, where: str, problem: str) -> str:
    if where[-1:].isdigit():  # a place in a file: the CLI's `file:line:` form
        return f"{where}: error: model {model!r} cannot be called: {problem}"
    return f"error: model {model!r} (from {where}) cannot be called: {problem}"


def models_used(
    todo: Sequence[tuple[Document, ScenarioEntry]], settings: Settings
) -> dict[str, str]:
    """Each model the scenarios would call -> the first place asking for it (FILE:LINE)."""
    found: dict[str, str] = {}
    with use_settings(settings):  # the run's default models, as its checks resolve them
        for document, entry in todo:
            scenario = entry.scenario
            if scenario is None:
                continue
            lines = {(c.step, c.index): c.head.start.line + 1 for c in entry.checks}
            here = entry.head.start.line + 1
            for s, step in enumerate(scenario.steps):
                for i, check in enumerate(step.checks):
                    for inner in checks_within(check):
                        calls = inner.model_calls()
                        if calls.calls > 0 and calls.model:
                            line = lines.get((s, i), here)
                            found.setdefault(calls.model, f"{document.path}:{line}")
                for spec in step.interacts:
                    model = _simulated_user_model(spec)
                    if model:
                        found.setdefault(model, f"{document.path}:{here}")
    return found


def _simulated_user_model(spec: Any) -> str | None:
    inputs = spec.inputs if isinstance(spec, Interact) else None
    if not isinstance(inputs, InputGenerator):
        return None
    # Here only: the generators (and their templates) are not loaded for runs without one.
    from ..generators.base import BaseLLMGenerator

    if not isinstance(inputs, BaseLLMGenerator):
        return None
    generator = resolve_generator(inputs.generator)
    model = generator.model if isinstance(generator, Generator) else None
    return model if isinstance(model, str) and model else None


__all__ = ["model_problems", "models_used", "setting_problems"]
