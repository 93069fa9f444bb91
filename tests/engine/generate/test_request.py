"""One generation request for the CLI and the editor (engine/generate/request.py): the
editor's object checked, the CLI's options and the editor's equivalent object making the
same value, and that value turned into the service's request (examples chosen by the one
selection language, checkspec.yaml's defaults where the request gives none)."""

from __future__ import annotations

import argparse
import pickle
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from checkspec.engine.cli.main import _parser
from checkspec.engine.generate.constants import CONCURRENCY, DEFAULT_SIMILARITY
from checkspec.engine.generate.request import (
    EDITOR_KEYS,
    GenerationRequest,
    in_editor_words,
    service_request,
)
from checkspec.engine.generate.service import RequestError
from checkspec.engine.spec.workspace_config import WorkspaceConfig

ONE_SOURCE = "give one of persona, preset, docs or like (docs may take a persona or preset)"


def cli_request(*argv: str) -> GenerationRequest:
    """The request `checkspec generate ARGV` makes, through the CLI's own parser."""
    return GenerationRequest.from_args(_parser("generate").parse_args(["generate", *argv]))


def test_editor_requests_become_values_with_paths_for_uris() -> None:
    made = GenerationRequest.from_editor(
        {"preset": "vip", "output": "file:///ws/a%20b.dataset.yaml", "count": 3}
    )
    assert made == GenerationRequest(preset="vip", output="/ws/a b.dataset.yaml", count=3)
    made = GenerationRequest.from_editor(
        {
            "docs": "file:///ws/kb",
            "topics": ["x", "y"],
            "types": "simple, double",
            "output": "o.dataset.yaml",
            "append": True,
            "turns": 2,
            "seed": 4,
        }
    )
    assert isinstance(made, GenerationRequest)
    assert made.docs == ("/ws/kb",) and made.topics == ("x", "y")
    assert made.types == ("simple", "double") and made.append and (made.turns, made.seed) == (2, 4)
    # A selector's `#INDEX` is the scenario's index, not the URI's fragment.
    made = GenerationRequest.from_editor(
        {"like": ["file:///ws/a.dataset.yaml::#2", "b.dataset.yaml"], "output": "o"}
    )
    assert isinstance(made, GenerationRequest)
    assert made.like == ("/ws/a.dataset.yaml::#2", "b.dataset.yaml")
    # Empty types: the default mix, as before (the CLI refuses an empty --types).
    made = GenerationRequest.from_editor({"docs": ["kb"], "types": [], "output": "o"})
    assert isinstance(made, GenerationRequest) and made.types is None
    # Defaults: the CLI's.
    made = GenerationRequest.from_editor({"persona": "a user", "output": "o"})
    assert isinstance(made, GenerationRequest)
    assert made.similarity_threshold == DEFAULT_SIMILARITY and made.self_check
    assert made.concurrency == CONCURRENCY and (made.count, made.turns, made.seed) == (10, 1, 0)


@pytest.mark.parametrize(
    ("request_", "said"),
    [
        (
            ["not", "an", "object"],
            "checkspec.generate takes one object: {persona|preset|docs|like, output, ...}",
        ),
        (None, "checkspec.generate takes one object: {persona|preset|docs|like, output, ...}"),
        ({"preset": "a", "persona": "b", "output": "o"}, ONE_SOURCE),
        ({"like": "d", "preset": "a", "output": "o"}, ONE_SOURCE),
        ({"like": "d", "docs": "kb", "output": "o"}, ONE_SOURCE),
        ({"output": "o"}, ONE_SOURCE),
        ({"persona": "  ", "output": "o"}, ONE_SOURCE),
        ({"docs": "kb", "exclude": [3], "output": "o"}, "exclude must be a list of globs"),
        ({"preset": "a"}, "output (the dataset file to write) is required"),
        ({"preset": "a", "output": "o", "count": "3"}, "count must be a whole number"),
        ({"preset": "a", "output": "o", "turns": 2.5}, "turns must be a whole number"),
        ({"preset": "a", "output": "o", "seed": True}, "seed must be a whole number"),
        ({"docs": [1], "output": "o"}, "docs must be a list of paths"),
        ({"docs": "kb", "topics": [1], "output": "o"}, "topics must be a list of names"),
        ({"docs": "kb", "types": [3], "output": "o"}, "types must be a list of question types"),
        ({"like": [3], "output": "o"}, "like must be a selector or a list of selectors"),
        ({"like": ["a", ""], "output": "o"}, "like must be a selector or a list of selectors"),
        ({"like": "a", "tag": [1], "output": "o"}, "tag must be a tag or a list of tags"),
        ({"like": "a", "query": 3, "output": "o"}, "query must be text"),
        ({"like": "a", "status": "done", "output": "o"}, "status must be draft or active"),
        (
            {"persona": "a", "tag": "x", "status": "draft", "output": "o"},
            "tag, status narrow the examples of like: give like",
        ),
        (
            {"docs": "kb", "similarityThreshold": "x", "output": "o"},
            "similarityThreshold must be a number",
        ),
        (
            {"docs": "kb", "similarityThreshold": True, "output": "o"},
            "similarityThreshold must be a number",
        ),
        ({"docs": "kb", "selfCheck": "no", "output": "o"}, "selfCheck must be true or false"),
        ({"preset": "a", "append": 1, "output": "o"}, "append must be true or false"),
        ({"preset": "a", "model": ["m"], "output": "o"}, "model must be text"),
        ({"preset": "a", "embeddingModel": 3, "output": "o"}, "embeddingModel must be text"),
        ({"preset": "a", "target": {"x": 1}, "output": "o"}, "target must be text"),
        ({"persona": 3, "output": "o"}, "persona must be text"),
    ],
)
def test_what_is_wrong_with_an_editor_request_is_said_in_one_line(request_: Any, said: str) -> None:
    assert GenerationRequest.from_editor(request_) == said


def test_the_cli_and_the_editor_make_the_same_request() -> None:
    """Every option, given to each front end in its own words, makes one value: a front
    end that dropped one (the editor's similarity threshold, say) fails here."""
    cli = cli_request(
        "--like", "a.dataset.yaml", "--like", "b.suite.yaml::#1",
        "--query", "refund please", "--tag", "billing", "--tag", "vip", "--status", "active",
        "--exclude", "drafts/*", "-o", "out.dataset.yaml", "-n", "7", "--turns", "3",
        "--seed", "5", "--topic", "shipping", "--types", "simple,double", "--append",
        "--force", "--simulate", "--agent-description", "a shop's assistant",
        "--model", "openai/m", "--embedding-model", "openai/e",
        "--similarity-threshold", "0.5", "--no-self-check", "--target", "agent.py:answer",
    )  # fmt: skip
    editor = GenerationRequest.from_editor(
        {
            "like": ["a.dataset.yaml", "b.suite.yaml::#1"],
            "query": "refund please",
            "tag": ["billing", "vip"],
            "status": "active",
            "exclude": "drafts/*",
            "output": "out.dataset.yaml",
            "count": 7,
            "turns": 3,
            "seed": 5,
            "topics": "shipping",
            "types": ["simple", "double"],
            "append": True,
            "force": True,
            "simulate": True,
            "agentDescription": "a shop's assistant",
            "model": "openai/m",
            "embeddingModel": "openai/e",
            "similarityThreshold": 0.5,
            "selfCheck": False,
            "target": "agent.py:answer",
        }
    )
    assert editor == cli
    # Each field was given a value other than its default (else the test would not tell).
    unset = [f.name for f in fields(GenerationRequest) if getattr(cli, f.name) == f.default]
    assert unset == ["persona", "preset", "docs", "concurrency"]  # none or the CLI's only
    voiced = cli_request("--from-docs", "kb", "other", "--persona", "a user", "-o", "o")
    assert voiced == GenerationRequest.from_editor(
        {"docs": ["kb", "other"], "persona": "a user", "output": "o"}
    )
    # Defaults alike, the output's included (the editor requires one; the CLI has its own).
    assert cli_request("--preset", "p", "-o", "o") == GenerationRequest.from_editor(
        {"preset": "p", "output": "o"}
    )
    assert cli_request("--preset", "p").output == "generated.dataset.yaml"
    # Sent to a worker of the language server's pool: plain data.
    assert pickle.loads(pickle.dumps(cli)) == cli


DATASET = """name: d
scenarios:
  - name: angry
    tags: [billing]
    interactions:
      - input: {messages: [{role: user, content: WHERE IS MY REFUND}]}
  - name: calm
    tags: [shipping]
    interactions:
      - input: {messages: [{role: user, content: When will it ship?}]}
"""
OTHER = """name: o
scenarios:
  - name: polite
    tags: [billing]
    interactions:
      - input: {messages: [{role: user, content: Could I have my invoice?}]}
"""


def _texts(examples: Any) -> list[str]:
    return [e["interactions"][0]["input"]["messages"][0]["content"] for e in examples]


def test_the_service_request_takes_the_examples_and_the_workspace_defaults(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.dataset.yaml").write_text(DATASET)
    (tmp_path / "b.dataset.yaml").write_text(OTHER)
    like = (str(tmp_path / "a.dataset.yaml"), str(tmp_path / "b.dataset.yaml"))
    config = WorkspaceConfig.model_validate(
        {
            "target": "agent.py:reply",
            "agent": {"description": "a shop's assistant"},
            "generate": {"exclude": ["CHANGELOG.md"]},
        }
    )
    asked = GenerationRequest(like=like, tags=("billing",), exclude=("drafts/*",), output="o")
    made = service_request(asked, config)
    assert _texts(made.examples) == ["WHERE IS MY REFUND", "Could I have my invoice?"]
    assert made.like == " ".join(like)
    assert made.target == "agent.py:reply" and made.options.agent == "a shop's assistant"
    assert list(made.exclude) == ["CHANGELOG.md", "drafts/*"]
    # The request's own values go over the workspace's; the options reach the pipeline.
    asked = GenerationRequest(
        docs=("kb",),
        target="other.py:reply",
        agent_description="a bank's assistant",
        similarity_threshold=0.5,
        self_check=False,
        types=("simple",),
        output="o",
    )
    made = service_request(asked, config)
    assert made.target == "other.py:reply" and made.options.agent == "a bank's assistant"
    assert made.options.similarity_threshold == 0.5 and not made.options.self_check
    assert made.options.types == ("simple",) and made.examples == []


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        (dict(types=()), "--types is empty: give question types, comma-separated"),
        (dict(tags=("billing",)), "--tag narrow the examples of --like: give --like"),
        (dict(like=("{a}",), status="draft"), "--like {a}: no scenario is left after --status"),
        (dict(like=("{a}",), tags=("nope",)), "no scenario has the tag 'nope'"),
        (dict(like=("{a}::angy",)), "no scenario named 'angy'"),
    ],
)
def test_what_the_service_request_refuses_is_said_as_the_cli_says_it(
    tmp_path: Path, asked: dict[str, Any], said: str
) -> None:
    path = tmp_path / "a.dataset.yaml"
    path.write_text(DATASET)
    given = {
        key: tuple(v.format(a=path) for v in value) if isinstance(value, tuple) else value
        for key, value in asked.items()
    }
    request = GenerationRequest(**{"persona": None if "like" in given else "a user", **given})
    with pytest.raises(RequestError) as refused:
        service_request(request, WorkspaceConfig())
    assert said.format(a=path) in str(refused.value)


class _Reading(dict[str, Any]):
    """An editor request that records the keys `from_editor` reads."""

    read: set[str]

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)


def test_every_flag_has_its_editor_key_and_messages_use_them() -> None:
    # argparse keeps no public list of a command's options (as tests/tools/test_docs_reference).
    actions = _parser("generate")._actions  # noqa: SLF001
    commands = next(a for a in actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    generate = commands.choices["generate"]
    flags = {s for a in generate._actions for s in a.option_strings if s.startswith("--")}  # noqa: SLF001
    command_line_only = {
        "--help", "--list-presets", "--list-topics", "--name-topics", "--list-chunks",
        "--format", "--preview", "--concurrency", "--no-cache", "--progress",
    }  # fmt: skip
    assert set(EDITOR_KEYS) == flags - command_line_only
    reading = _Reading({"persona": "a user", "output": "o"})
    reading.read = set()
    assert isinstance(GenerationRequest.from_editor(reading), GenerationRequest)
    keys = {key.partition(":")[0] for key in EDITOR_KEYS.values()}
    assert keys <= reading.read, keys - reading.read
    assert (
        in_editor_words("no scenario is left after --tag 'x'; --types applies to --from-docs")
        == "no scenario is left after tag 'x'; types applies to docs"
    )
    assert in_editor_words("--unknown-flag and a-b--c stay") == "--unknown-flag and a-b--c stay"
