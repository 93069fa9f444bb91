"""One generation request, as `checkspec generate` and the editor's `checkspec.generate`
both give it: a frozen value of plain data (the editor's is pickled to a worker of the
language server's pool), built and checked by one constructor per front end, and turned
into the service's request (service.Request) by one function both use.

- `GenerationRequest.from_args`: the CLI's argparse namespace (argparse checked the types).
- `GenerationRequest.from_editor`: the editor's JSON object (camelCase keys:
  `agentDescription`, `embeddingModel`, `similarityThreshold`, `selfCheck`...), or a
  one-line message saying what is wrong with it.
- `service_request`: the value and the workspace's checkspec.yaml as a service.Request,
  the `like` examples chosen through the one selection language (curate/select.py).

Cheap to import: nothing of the service or curation loads until `service_request` runs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from ..spec.status import ACTIVE, DRAFT
from .constants import CONCURRENCY, DEFAULT_SIMILARITY

if TYPE_CHECKING:
    import argparse

    from ..spec.workspace_config import WorkspaceConfig
    from .service import Request

STATUSES = (DRAFT, ACTIVE)  # what `status` (--status) narrows `like` to


@dataclass(frozen=True)
class GenerationRequest:
    """Every option of one generation, whichever front end gave it."""

    persona: str | None = None
    preset: str | None = None
    docs: tuple[str, ...] = ()
    like: tuple[str, ...] = ()  # selectors of the example scenarios (files, FILE::NAME...)
    query: str | None = None  # query, tags and status narrow the scenarios `like` chooses
    tags: tuple[str, ...] = ()
    status: str | None = None
    exclude: tuple[str, ...] = ()  # globs of knowledge-base files left out
    output: str | None = None  # the file written (none for a listing)
    count: int = 10
    turns: int = 1
    seed: int = 0
    topics: tuple[str, ...] = ()
    types: tuple[str, ...] | None = None  # None: the default mix; () given empty (refused)
    append: bool = False
    force: bool = False
    simulate: bool = False
    agent_description: str | None = None  # else `agent: {description}` of checkspec.yaml
    model: str | None = None  # settings flags: over the editor's, environment's, file's
    embedding_model: str | None = None
    similarity_threshold: float = DEFAULT_SIMILARITY
    self_check: bool = True
    target: str | None = None  # else `target:` of checkspec.yaml
    concurrency: int = CONCURRENCY  # requests in flight (the CLI's --concurrency)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> GenerationRequest:
        """`checkspec generate`'s options (engine/cli/generate.py's parser)."""
        types = None
        if args.types is not None:  # an empty --types is kept empty: service_request says so
            types = tuple(t.strip() for t in args.types.split(",") if t.strip())
        return cls(
            persona=args.persona,
            preset=args.preset,
            docs=tuple(args.docs),
            like=tuple(args.like),
            query=args.query,
            tags=tuple(args.tag),
            status=args.status,
            exclude=tuple(args.exclude),
            output=args.output or default_output(args.simulate),
            count=args.count,
            turns=args.turns,
            seed=args.seed,
            topics=tuple(args.topic),
            types=types,
            append=args.append,
            force=args.force,
            simulate=args.simulate,
            agent_description=args.agent_description,
            model=args.model,
            embedding_model=args.embedding_model,
            similarity_threshold=args.similarity_threshold,
            self_check=not args.no_self_check,
            target=args.target,
            concurrency=args.concurrency,
        )

    @classmethod
    def from_editor(cls, value: object) -> GenerationRequest | str:
        """The editor's `checkspec.generate` object, or what is wrong with it (one line).
        file: URIs become paths; relative paths stay relative (the server makes them the
        workspace folder's)."""
        try:
            return _from_editor(value)
        except _Refused as refused:
            return str(refused)

    def settings_flags(self) -> dict[str, Any]:
        """The settings this request sets, as the CLI's flags set them (run_settings,
        setting_problems): None where it leaves them to the settings."""
        return {"model": self.model, "embedding_model": self.embedding_model}


def default_output(simulate: bool) -> str:
    return "generated.suite.yaml" if simulate else "generated.dataset.yaml"


def as_path(value: str) -> str:
    """A file: URI as a path; a path as it is."""
    if value.startswith("file:"):
        return unquote(urlparse(value).path)
    return value


def selector_path(selector: str) -> str:
    """A selector with its file part as a path (`file:///a.yaml::#2`: the `#2` is the
    scenario's index, not the URI's fragment)."""
    path, sep, member = selector.partition("::")
    return as_path(path) + sep + member


# The editor's key for each `checkspec generate` flag the request's options come from: the
# service and the selection word their messages in the command line's flags, and an
# editor's request is answered in its own keys (tests/engine/generate/test_request.py
# checks both sides against the CLI's parser and the keys `from_editor` reads).
EDITOR_KEYS = {
    "--persona": "persona",
    "--preset": "preset",
    "--from-docs": "docs",
    "--like": "like",
    "--query": "query",
    "--tag": "tag",
    "--status": "status",
    "--exclude": "exclude",
    "--output": "output",
    "--count": "count",
    "--turns": "turns",
    "--seed": "seed",
    "--topic": "topics",
    "--types": "types",
    "--append": "append",
    "--force": "force",
    "--simulate": "simulate",
    "--agent-description": "agentDescription",
    "--model": "model",
    "--embedding-model": "embeddingModel",
    "--similarity-threshold": "similarityThreshold",
    "--no-self-check": "selfCheck: false",
    "--target": "target",
}
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]*")


def in_editor_words(message: str) -> str:
    """A message of the service or the selection with each flag it names as the editor's
    request key (`no scenario is left after --tag` -> `... after tag`)."""
    return _FLAG.sub(lambda flag: EDITOR_KEYS.get(flag.group(), flag.group()), message)


class _Refused(ValueError):
    """What is wrong with the editor's request (its message is the answer's error)."""


_ONE_SOURCE = "give one of persona, preset, docs or like (docs may take a persona or preset)"


def _from_editor(request: object) -> GenerationRequest:
    if not isinstance(request, Mapping):
        raise _Refused(
            "checkspec.generate takes one object: {persona|preset|docs|like, output, ...}"
        )
    persona, preset = _text(request, "persona"), _text(request, "preset")
    docs = _texts(request, "docs", "docs must be a list of paths")
    like = _texts(request, "like", "like must be a selector or a list of selectors")
    voices = sum(1 for voice in (persona, preset) if voice and voice.strip())
    sources = bool(docs) + bool(like)
    if voices > 1 or sources > 1 or (like and voices) or voices + sources == 0:
        raise _Refused(_ONE_SOURCE)
    query = _text(request, "query")
    tags = _texts(request, "tag", "tag must be a tag or a list of tags")
    status = request.get("status")
    if status is not None and status not in STATUSES:
        raise _Refused(f"status must be {' or '.join(STATUSES)}")
    narrowing = [
        key for key, given in (("query", query), ("tag", tags), ("status", status)) if given
    ]
    if narrowing and not like:
        raise _Refused(f"{', '.join(narrowing)} narrow the examples of like: give like")
    exclude = _texts(request, "exclude", "exclude must be a list of globs")
    output = request.get("output")
    if not isinstance(output, str) or not output:
        raise _Refused("output (the dataset file to write) is required")
    topics = _texts(request, "topics", "topics must be a list of names", empty_ok=True)
    types = request.get("types")
    if isinstance(types, str):
        types = [t.strip() for t in types.split(",") if t.strip()]
    if types is not None and not (
        isinstance(types, list) and all(isinstance(t, str) and t for t in types)
    ):
        raise _Refused("types must be a list of question types")
    threshold = request.get("similarityThreshold")
    threshold = DEFAULT_SIMILARITY if threshold is None else threshold
    if not isinstance(threshold, (int, float)) or isinstance(threshold, bool):
        raise _Refused("similarityThreshold must be a number")
    return GenerationRequest(
        persona=persona if persona and persona.strip() else None,
        preset=preset if preset and preset.strip() else None,
        docs=tuple(as_path(d) for d in docs),
        like=tuple(selector_path(s) for s in like),
        query=query,
        tags=tags,
        status=status,
        exclude=exclude,
        output=as_path(output),
        count=_whole(request, "count", 10),
        turns=_whole(request, "turns", 1),
        seed=_whole(request, "seed", 0),
        topics=topics,
        types=tuple(types) if types else None,  # none or empty: the default mix
        append=_flag(request, "append", False),
        force=_flag(request, "force", False),
        simulate=_flag(request, "simulate", False),
        agent_description=_text(request, "agentDescription"),
        model=_text(request, "model"),
        embedding_model=_text(request, "embeddingModel"),
        similarity_threshold=float(threshold),
        self_check=_flag(request, "selfCheck", True),
        target=_text(request, "target"),
    )


def _text(request: Mapping[str, Any], key: str) -> str | None:
    """A text option; empty is not given."""
    value = request.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise _Refused(f"{key} must be text")
    return value


def _texts(
    request: Mapping[str, Any], key: str, wrong: str, *, empty_ok: bool = False
) -> tuple[str, ...]:
    """A list of texts, one text standing for a list of it."""
    value = request.get(key)
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(
        isinstance(v, str) and (v or empty_ok) for v in value
    ):
        raise _Refused(wrong)
    return tuple(value)


def _whole(request: Mapping[str, Any], key: str, default: int) -> int:
    value = request.get(key)
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool):
        raise _Refused(f"{key} must be a whole number")
    return value


def _flag(request: Mapping[str, Any], key: str, default: bool) -> bool:
    value = request.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise _Refused(f"{key} must be true or false")
    return value


def service_request(request: GenerationRequest, config: WorkspaceConfig) -> Request:
    """The service's request for this one in a workspace: its agent, target and exclude
    globs as checkspec.yaml gives them where the request does not, and the scenarios
    `like` chooses (narrowed by query, tags, status) as the examples. Raises
    service.RequestError saying what is wrong, in the command line's words (the editor's
    answers put them in its keys: `in_editor_words`)."""
    from . import pipeline
    from .service import Request, RequestError

    if request.types is not None and not request.types:
        raise RequestError("--types is empty: give question types, comma-separated")
    agent = request.agent_description or (config.agent.description if config.agent else None)
    options = pipeline.Options(
        count=request.count,
        types=request.types or (),
        turns=request.turns,
        seed=request.seed,
        topics=request.topics,
        agent=agent,
        similarity_threshold=request.similarity_threshold,
        self_check=request.self_check,
        simulate=request.simulate,
    )
    exclude = [*(config.generate.exclude if config.generate else []), *request.exclude]
    return Request(
        persona=request.persona,
        preset=request.preset,
        docs=list(request.docs),
        like=" ".join(request.like) or None,
        examples=_examples(request),
        options=options,
        target=request.target or config.target,  # the dataset runs against it as written
        exclude=exclude,
    )


def _examples(request: GenerationRequest) -> list[Any]:
    """The scenarios `like` chooses, through the one selection language (as `run` and the
    curation commands choose them), as parsed values."""
    from .service import RequestError

    narrowing = [
        flag
        for flag, given in (
            ("--query", request.query),
            ("--tag", request.tags),
            ("--status", request.status),
        )
        if given
    ]
    if not request.like:
        if narrowing:
            raise RequestError(f"{', '.join(narrowing)} narrow the examples of --like: give --like")
        return []
    from ..curate.files import CurateError
    from ..curate.select import select

    try:
        chosen = select(request.like, query=request.query, tags=request.tags, status=request.status)
    except CurateError as exc:
        raise RequestError(str(exc)) from None
    examples = [item.node.value for group in chosen for item in group.items]
    if not examples:
        shown = " ".join(request.like)
        raise RequestError(
            f"--like {shown}: no scenario is left"
            + (f" after {', '.join(narrowing)}" if narrowing else "")
        )
    return examples
