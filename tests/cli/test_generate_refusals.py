"""`checkspec generate` refusing, before any model call, what it cannot do (exit 2 and the
reason; nothing written), listing its presets, saying what it skipped in a knowledge
base, and its progress as JSON lines for a front end. In-process (tests/support/cli.py);
only the progress test has a model (the stub)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import Done, run_main
from tests.support.generate_helpers import model_fixture  # noqa: F401 (the fixture)
from tests.support.openai_stub import GenerationAnswers, OpenAIStub


def cli(root: Path, *args: str) -> Done:
    return run_main(root, "generate", *args, unset=("CHECKSPEC_", "OPENAI_"))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    # rpm: the provider limits are in force for the generation.
    (tmp_path / "checkspec.yaml").write_text("rpm: 600\n")
    kb = tmp_path / "kb" / "shipping"
    kb.mkdir(parents=True)
    (kb / "ship.md").write_text("# Shipping\n\nParcels reach every country in five days.\n")
    (kb / "empty.md").write_text("")
    return tmp_path


def files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if ".checkspec" not in p.parts}


def test_the_presets_are_listed_with_their_descriptions(workspace: Path) -> None:
    done = cli(workspace, "--list-presets")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines == sorted(lines) and len(lines) >= 3
    assert any(line.startswith("off_topic_user: ") for line in lines)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--preset", "off_topic_user", "-o", "out.txt"], "error: out.txt: `checkspec run`"),
        # Names `run` and `list` would not collect: refused with the one they would.
        (
            ["--preset", "off_topic_user", "-o", "suites/plain.jsonl"],
            "name it suites/plain.dataset.jsonl",
        ),
        (["--preset", "off_topic_user", "-o", "plain.yaml"], "name it plain.dataset.yaml"),
        (["--preset", "off_topic_user", "-o", "rows.dataset.json"], "name it rows.dataset.yaml"),
        (
            ["--preset", "off_topic_user", "--turns", "2", "--simulate", "-o", "t.yaml"],
            "name it t.suite.yaml",
        ),
        (["--preset", "off_topic_user", "-o", "old.dataset.yaml"], "old.dataset.yaml exists"),
        (["--preset", "off_topic_user", "-o", "dir.dataset.yaml", "--force"], "is a folder"),
        (["--preset", "off_topic_user", "--list-topics"], "--list-topics needs --from-docs"),
        (["--from-docs", "kb", "--preview"], "error: --preview needs --persona or --preset"),
        (["--preset", "off_topic_user", "--types", " , "], "--types is empty"),
        (["--preset", "off_topic_user", "--tag", "smoke"], "--tag narrow the examples of --like"),
    ],
)
def test_what_cannot_be_done_is_refused_before_any_model_call(
    workspace: Path, args: list[str], said: str
) -> None:
    (workspace / "old.dataset.yaml").write_text("name: old\nscenarios: []\n")
    (workspace / "dir.dataset.yaml").mkdir()
    before = files(workspace)
    # A model that cannot be reached: any call to it would fail with exit 1, not 2.
    done = cli(workspace, "--model", "openai/unreachable", *args)
    assert done.returncode == 2, done.stderr
    assert said in done.stderr
    assert files(workspace) == before
    assert (workspace / "old.dataset.yaml").read_text() == "name: old\nscenarios: []\n"


def test_examples_in_another_workspace_are_refused(workspace: Path) -> None:
    other = workspace / "other"
    other.mkdir()
    (other / "checkspec.yaml").write_text("model: openai/y\n")
    (other / "s.suite.yaml").write_text("name: s\nscenarios: []\n")
    done = cli(workspace, "--like", "other/s.suite.yaml", "-o", "x.dataset.yaml")
    assert done.returncode == 2
    assert "belong to two workspaces" in done.stderr
    assert not (workspace / "x.dataset.yaml").exists()


def test_what_the_knowledge_base_skips_is_said_and_topics_listed_without_a_model(
    workspace: Path,
) -> None:
    done = cli(workspace, "--from-docs", "kb", "--list-topics")
    assert done.returncode == 0, done.stderr
    assert "warning: kb/shipping/empty.md: skipped, it holds no text" in done.stderr
    assert done.stdout.split() == ["1", "shipping", "[shipping]"]


def test_progress_as_json_lines_ends_with_what_was_written(
    tmp_path: Path, model: tuple[OpenAIStub, GenerationAnswers]
) -> None:
    done = run_main(
        tmp_path,
        "generate",
        "--preset",
        "off_topic_user",
        "-n",
        "2",
        "-o",
        "p.dataset.yaml",
        "--progress",
        "json",
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    steps, final = events[:-1], events[-1]
    assert steps and all(set(e) == {"done", "total"} for e in steps)
    assert steps[-1]["done"] == steps[-1]["total"]
    assert final["written"] == "p.dataset.yaml" and final["count"] == 2
    assert (tmp_path / "p.dataset.yaml").is_file()
