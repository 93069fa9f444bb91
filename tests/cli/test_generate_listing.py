"""`checkspec generate --list-chunks` and `--list-topics` (issue 49 items 2 and 4): what
was read, chunk by chunk, with its source, line, title and topic, and the topics, with no
model called even when one is configured (`--name-topics` asks it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from checkspec.engine.cli.main import main
from tests.support.generate_helpers import model_fixture  # noqa: F401 (the fixture)
from tests.support.openai_stub import GenerationAnswers, OpenAIStub
from tests.support.paths import REPO

Model = tuple[OpenAIStub, GenerationAnswers]
FLASK = REPO / "tests" / "data" / "real_docs" / "sphinx-flask"


def _flat(tmp_path: Path) -> Path:
    docs = tmp_path / "flat"
    docs.mkdir()
    for i in range(8):
        (docs / f"pets{i}.md").write_text(f"# Pets {i}\n\nDogs and cats need food {i}.\n")
        (docs / f"cars{i}.md").write_text(f"# Cars {i}\n\nEngines and tyres need care {i}.\n")
    return docs


def test_list_chunks_as_json_says_where_each_chunk_is_and_its_topic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("CHECKSPEC_MODEL", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["generate", "--from-docs", str(FLASK), "--list-chunks", "--format", "json"]) == 0
    captured = capsys.readouterr()
    chunks = json.loads(captured.out)
    assert {c["source"] for c in chunks} == {
        str(FLASK / "config.rst"),
        str(FLASK / "installation.rst"),
        str(FLASK / "patterns" / "fileuploads.rst"),
        str(FLASK / "tutorial" / "factory.rst"),
    }
    first = chunks[0]
    assert set(first) == {"source", "line", "index", "title", "topic", "topic_id", "text"}
    assert first["title"] == "Configuration Handling" and first["line"] == 4
    assert first["text"].startswith("Applications need some kind of configuration.")
    assert all(c["topic"] and c["topic_id"] for c in chunks)
    lines = Path(first["source"]).read_text(encoding="utf-8").splitlines()
    assert lines[first["line"] - 1].startswith("Applications need")
    assert f"4 file(s), {len(chunks)} chunk(s)" in captured.err


def test_list_chunks_as_text_calls_no_model(
    tmp_path: Path,
    model: Model,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stub, _ = model
    monkeypatch.chdir(tmp_path)
    docs = _flat(tmp_path)
    assert main(["generate", "--from-docs", str(docs), "--list-chunks"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{docs / 'cars0.md'}:3  [") and out[0].endswith("]  Cars 0")
    assert out[1].strip() == "Engines and tyres need care 0."
    assert len(out) == 32  # 16 chunks, two lines each
    assert stub.chat_requests == [] and stub.embedding_requests == []


def test_list_topics_calls_no_model_even_with_one_configured(
    tmp_path: Path,
    model: Model,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stub, answers = model
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CHECKSPEC_EMBEDDING_MODEL", "openai/stub-embedder")
    docs = _flat(tmp_path)
    assert main(["generate", "--from-docs", str(docs), "--list-topics"]) == 0
    names = [line.split(None, 1)[1] for line in capsys.readouterr().out.splitlines()]
    assert len(names) == 2 and any("dogs" in n or "cats" in n for n in names)
    assert stub.chat_requests == [] and stub.embedding_requests == []
    assert answers.kinds.count("topic") == 0


def test_name_topics_without_a_model_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("CHECKSPEC_MODEL", raising=False)
    monkeypatch.chdir(tmp_path)
    docs = _flat(tmp_path)
    assert main(["generate", "--from-docs", str(docs), "--list-topics", "--name-topics"]) == 2
    assert "no model configured" in capsys.readouterr().err
    assert main(["generate", "--from-docs", str(docs), "--name-topics"]) == 2
    assert "--name-topics goes with --list-topics" in capsys.readouterr().err
    assert main(["generate", "--preset", "off_topic_user", "--list-chunks"]) == 2
    assert "--list-chunks needs --from-docs" in capsys.readouterr().err


@pytest.mark.parametrize(("similarity", "kept"), [(0.86, 1), (0.84, 2)])
def test_the_default_threshold_drops_a_question_just_above_it_and_keeps_one_below(
    tmp_path: Path,
    model: Model,
    monkeypatch: pytest.MonkeyPatch,
    similarity: float,
    kept: int,
) -> None:
    """Questions on pets embed as (1, 0), on cars at `similarity` from them: with the
    default --similarity-threshold (0.85), 0.86 is a near-duplicate and 0.84 is not."""
    stub, _ = model
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CHECKSPEC_EMBEDDING_MODEL", "openai/stub-embedder")
    other = (1 - similarity**2) ** 0.5

    def vector(text: str) -> list[float]:
        return [1.0, 0.0] if "Dogs" in text or "Pets" in text else [similarity, other]

    stub.embeddings = vector
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "pets.md").write_text("# Pets\n\nDogs need a walk twice a day.\n")
    (docs / "cars.md").write_text("# Cars\n\nEngines need oil once a year.\n")
    out = tmp_path / "t.dataset.yaml"
    args = ["--from-docs", str(docs), "--types", "simple", "-n", "2", "-o", str(out)]
    assert main(["generate", *args, "--no-self-check"]) == 0

    assert len(yaml.safe_load(out.read_text())["scenarios"]) == kept


def test_a_generation_says_what_it_read_before_it_starts(
    tmp_path: Path,
    model: Model,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    docs = _flat(tmp_path)
    (docs / "empty.md").write_text("")
    out = tmp_path / "s.dataset.yaml"
    assert main(["generate", "--from-docs", str(docs), "-n", "1", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"warning: {docs / 'empty.md'}: skipped, it holds no text" in err
    assert "read 17 file(s) of the knowledge base: 16 chunk(s), 1 warning(s) above" in err
