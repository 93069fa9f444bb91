"""`checkspec generate` on real-looking docs (issue 38 items 2-4): topics people recognise,
stable ids, a JSON topic list, multi-context and out-of-scope questions, the default mix,
persona-voiced document questions, and bad input named (exit 2, nothing sent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from checkspec.engine.cli.main import main
from checkspec.engine.generate.constants import DEFAULT_MIX, QUESTION_TYPE_NAMES
from checkspec.engine.generate.knowledge import load_knowledge_base
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.workspace import find_workspace
from tests.support.generate_helpers import model_fixture  # noqa: F401 (the fixture)
from tests.support.openai_stub import GenerationAnswers, OpenAIStub
from tests.support.real_docs import CODE_WORDS, MARKUP_WORDS, real_docs

Model = tuple[OpenAIStub, GenerationAnswers]


def generate(*args: str) -> int:
    return main(["generate", *args])


def topics_json(docs: Path, capsys: pytest.CaptureFixture[str], *args: str) -> list[dict]:
    assert generate("--from-docs", str(docs), "--list-topics", "--format", "json", *args) == 0
    return json.loads(capsys.readouterr().out)


def scenarios(path: Path) -> list[dict]:
    document = analyze(path.read_text(), str(path), find_workspace([path]))
    assert document.every_problem() == []
    return yaml.safe_load(path.read_text())["scenarios"]


def test_topics_are_recognisable_and_their_ids_stable_across_seeds_without_a_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CHECKSPEC_MODEL", raising=False)
    monkeypatch.chdir(tmp_path)
    docs = real_docs(tmp_path)
    first = topics_json(docs, capsys, "--seed", "0")
    again = topics_json(docs, capsys, "--seed", "9")
    assert first == again
    by_id = {t["id"]: t for t in first}
    assert set(by_id) == {
        "release-notes",
        "authentication-users",
        "routing-routes",
        "websockets-session",
    }
    notes = by_id["release-notes"]
    assert notes["files"] == [str(docs / "release-notes.md")] and notes["chunks"] == 12
    assert by_id["routing-routes"]["files"] == [str(docs / "routing.rst")]
    assert [t["chunks"] for t in first] == [12, 9, 9, 9]
    for topic in first:
        assert set(topic) == {"id", "name", "words", "files", "chunks"}
        assert not set(topic["words"]) & {*MARKUP_WORDS, *CODE_WORDS}


def test_topic_ids_and_names_hold_with_a_model_and_topic_takes_either(
    tmp_path: Path, model: Model, capsys: pytest.CaptureFixture[str]
) -> None:
    stub, answers = model
    docs = real_docs(tmp_path)
    first = topics_json(docs, capsys, "--name-topics")
    asked = answers.kinds.count("topic")
    assert asked == 3  # the clusters are named by the model; release notes are not
    again = topics_json(docs, capsys, "--seed", "5", "--name-topics")
    assert again == first  # ids, names and words: the seed changes no topic
    names = {t["id"]: t["name"] for t in first}
    out = tmp_path / "ws.dataset.yaml"
    by_id = ("--topic", "websockets-session")
    by_name = ("--topic", names["routing-routes"])
    assert generate("--from-docs", str(docs), *by_id, *by_name, "-n", "4", "-o", str(out)) == 0
    tags = {t for s in scenarios(out) for t in s["tags"] if t.startswith("topic:")}
    assert tags == {"topic:websockets-session", "topic:routing-routes"}
    sent = len(stub.chat_requests)
    assert generate("--from-docs", str(docs), "--topic", "billing", "-o", "x.dataset.yaml") == 2
    err = capsys.readouterr().err
    assert "unknown topic(s) 'billing'" in err
    assert "release-notes: 'release notes' (12)" in err and "routing-routes:" in err
    assert len(stub.chat_requests) == sent


def test_a_multi_context_question_lists_each_chunk_it_needs(tmp_path: Path, model: Model) -> None:
    docs = real_docs(tmp_path)
    out = tmp_path / "multi.dataset.yaml"
    args = ("--from-docs", str(docs), "--exclude", "release-notes.md", "--types", "multi_context")
    assert generate(*args, "-n", "3", "-o", str(out)) == 0
    rows = scenarios(out)
    assert len(rows) == 3
    kb = load_knowledge_base([docs], exclude=["release-notes.md"])
    chunks = {(c.source, c.index): c for c in kb.chunks}
    for row in rows:
        provenance = row["annotations"]["generated"]
        assert provenance["type"] == "multi_context" and "type:multi_context" in row["tags"]
        places = provenance["chunks"]
        assert 2 <= len(places) <= 3
        assert places[0]["line"] == provenance["line"]
        context = row["interactions"][-1]["checks"][1]["params"]["context"]
        for place in places:
            chunk = chunks[place["source"], place["chunk"]]
            assert place["line"] == chunk.line and chunk.text in context
            source = Path(place["source"]).read_text(encoding="utf-8").splitlines()
            assert chunk.text.split()[0] in source[chunk.line - 1]  # where its text starts
            assert place["source"] != str(docs / "release-notes.md")


def test_an_out_of_scope_question_is_checked_for_a_refusal_and_dropped_when_answered(
    tmp_path: Path, model: Model, capsys: pytest.CaptureFixture[str]
) -> None:
    stub, answers = model
    docs = real_docs(tmp_path)
    out = tmp_path / "oos.dataset.yaml"
    assert (
        generate("--from-docs", str(docs), "--types", "out_of_scope", "-n", "2", "-o", str(out))
        == 0
    )
    for row in scenarios(out):
        checks = row["interactions"][-1]["checks"]
        assert [c["identifier"] for c in checks] == ["hub_conformity"]  # never correctness
        rules = " ".join(checks[0]["params"]["rules"])
        assert "does not know" in rules and "does not make up" in rules
        assert row["annotations"]["generated"]["type"] == "out_of_scope"
    checks_sent = [p for p in stub.prompts if p.startswith("Check an out-of-scope")]
    assert checks_sent and all("Passage 3:" in p for p in checks_sent)  # its nearest chunks
    answers.in_scope = ("Mars",)  # now the knowledge base answers every one of them
    again = tmp_path / "none.dataset.yaml"
    args = ("--from-docs", str(docs), "--types", "out_of_scope", "--no-cache")
    assert generate(*args, "-n", "2", "-o", str(again)) == 1
    assert "out-of-scope but answered by the documents" in capsys.readouterr().err
    assert not again.exists()


def test_without_types_the_default_mix_is_made_in_its_proportions(
    tmp_path: Path, model: Model
) -> None:
    _, answers = model
    docs = real_docs(tmp_path)
    out = tmp_path / "mix.dataset.yaml"
    # (No near-duplicate dropped, so the count of requests is exact.)
    args = ("--from-docs", str(docs), "--similarity-threshold", "1")
    assert generate(*args, "-n", "20", "-o", str(out)) == 0
    kinds = [row["annotations"]["generated"]["type"] for row in scenarios(out)]
    assert set(kinds) == set(QUESTION_TYPE_NAMES)
    shares = dict(DEFAULT_MIX)
    assert kinds.count("simple") >= kinds.count("double") and shares["simple"] > shares["double"]
    # Every type costs a question and a check: two requests a scenario, as before.
    assert answers.kinds.count("question") + answers.kinds.count("out_of_scope") == 22
    narrowed = tmp_path / "narrow.dataset.yaml"
    assert (
        generate(
            "--from-docs", str(docs), "--types", "double,simple", "-n", "4", "-o", str(narrowed)
        )
        == 0
    )
    assert {r["annotations"]["generated"]["type"] for r in scenarios(narrowed)} == {
        "double",
        "simple",
    }


def test_a_persona_asks_document_questions_in_its_voice(tmp_path: Path, model: Model) -> None:
    stub, _ = model
    docs = real_docs(tmp_path)
    out = tmp_path / "voice.dataset.yaml"
    args = ("--from-docs", str(docs), "--preset", "non_native_speaker", "--types", "simple")
    assert generate(*args, "-n", "2", "-o", str(out)) == 0
    questions = [p for p in stub.prompts if p.startswith("You write test questions")]
    assert questions and all("imperfect English" in p for p in questions)
    for row in scenarios(out):
        assert row["annotations"]["generated"]["persona"] == "non_native_speaker"
        assert "persona:non_native_speaker" in row["tags"]
        identifiers = [c["identifier"] for c in row["interactions"][-1]["checks"]]
        assert identifiers == ["hub_correctness", "hub_groundedness", "hub_conformity"]
    # Without --types, a persona's mix leaves out-of-scope questions out.
    mixed = tmp_path / "mixed.dataset.yaml"
    assert (
        generate(
            "--from-docs",
            str(docs),
            "--persona",
            "A hurried developer",
            "-n",
            "10",
            "-o",
            str(mixed),
        )
        == 0
    )
    kinds = {r["annotations"]["generated"]["type"] for r in scenarios(mixed)}
    assert "out_of_scope" not in kinds and len(kinds) > 3
    assert {r["annotations"]["generated"]["persona"] for r in scenarios(mixed)} == {
        "A hurried developer"
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--types", "simple,tricky"), "unknown question type(s) 'tricky'; known: simple, "),
        (("--turns", "1", "--simulate"), "--simulate needs --turns K"),
        (("--simulate",), "--simulate needs --turns K"),
        (
            ("--preset", "impatient_customer", "--types", "out_of_scope"),
            "out_of_scope questions cannot be asked in a persona's voice",
        ),
        (("--turns", "3", "--simulate", "-o", "x.dataset.yaml"), "--simulate writes a suite"),
        (("--types", ","), "--types is empty"),
    ],
)
def test_bad_input_is_named_and_nothing_is_sent(
    tmp_path: Path,
    model: Model,
    capsys: pytest.CaptureFixture[str],
    args: tuple[str, ...],
    message: str,
) -> None:
    stub, _ = model
    docs = real_docs(tmp_path)
    name = "bad.suite.yaml" if "--simulate" in args else "bad.dataset.yaml"
    out = ("-o", str(tmp_path / name)) if "-o" not in args else ()
    assert generate("--from-docs", str(docs), *args, *out) == 2
    assert message in capsys.readouterr().err
    assert stub.chat_requests == []


def test_topic_names_asked_while_generating_reach_the_provenance(
    tmp_path: Path, model: Model, capsys: pytest.CaptureFixture[str]
) -> None:
    _, answers = model
    docs = real_docs(tmp_path)
    listed = {t["id"]: t["name"] for t in topics_json(docs, capsys, "--name-topics")}
    out = tmp_path / "named.dataset.yaml"
    assert generate("--from-docs", str(docs), "--types", "simple", "-n", "6", "-o", str(out)) == 0
    seen = set()
    for row in scenarios(out):
        provenance = row["annotations"]["generated"]
        assert provenance["topic"] == listed[provenance["topic_id"]]  # the model's name
        assert f"topic:{provenance['topic_id']}" in row["tags"]
        seen.add(provenance["topic_id"])
    assert len(seen) == 4
    assert answers.kinds.count("topic") == 3  # asked once: the second run used the cache
