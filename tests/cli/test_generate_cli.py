"""`checkspec generate` end to end against the OpenAI-compatible stub (in-process main())."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from checkspec.engine.cli.main import main
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.workspace import find_workspace
from tests.support.generate_helpers import knowledge_base, model_fixture  # noqa: F401 (the fixture)
from tests.support.openai_stub import GenerationAnswers, OpenAIStub

Model = tuple[OpenAIStub, GenerationAnswers]


def generate(tmp_path: Path, *args: str) -> int:
    return main(["generate", *args])


def dataset(path: Path) -> dict:
    return yaml.safe_load(path.read_text())


def problems(path: Path) -> list[str]:
    document = analyze(path.read_text(), str(path), find_workspace([path]))
    return [p.format(str(path)) for p in document.every_problem()]


def test_from_docs_writes_a_valid_draft_dataset_with_fitted_checks(
    tmp_path: Path, model: Model, capsys
) -> None:
    stub, answers = model
    kb = knowledge_base(tmp_path)
    out = tmp_path / "kb.dataset.yaml"
    assert (
        generate(tmp_path, "--from-docs", str(kb), "--types", "simple", "-n", "3", "-o", str(out))
        == 0
    )
    assert problems(out) == []
    data = dataset(out)
    scenarios = data["scenarios"]
    assert len(scenarios) == 3
    assert {s["status"] for s in scenarios} == {"draft"}
    topics = {t for s in scenarios for t in s["tags"] if t.startswith("topic:")}
    assert topics == {"topic:shipping", "topic:returns", "topic:warranty"}
    for scenario in scenarios:
        assert "type:simple" in scenario["tags"]
        checks = scenario["interactions"][-1]["checks"]
        assert [c["identifier"] for c in checks] == ["hub_correctness", "hub_groundedness"]
        provenance = scenario["annotations"]["generated"]
        assert provenance["model"] == "openai/stub-model"
        assert provenance["type"] == "simple"
        source = Path(provenance["source"])
        chunk_text = checks[1]["params"]["context"]
        assert chunk_text.split(".")[0].split()[0] in source.read_text()
        assert checks[0]["params"]["reference"].rstrip(".") in chunk_text
    # One question and one self-check per scenario, each asking for structured output.
    assert answers.kinds.count("question") == answers.kinds.count("self_check") == 4  # 3 + a tenth
    formats = [body.get("response_format") for body in stub.chat_requests]
    assert all(f and f["type"] == "json_schema" for f in formats)
    assert "written to" in capsys.readouterr().err


def test_a_repeat_with_the_same_seed_sends_no_request(tmp_path: Path, model: Model) -> None:
    from checkspec.engine.llm.client import clear_cache

    stub, _ = model
    kb = knowledge_base(tmp_path)
    first, again = tmp_path / "a.dataset.yaml", tmp_path / "b.dataset.yaml"
    assert generate(tmp_path, "--from-docs", str(kb), "-n", "4", "-o", str(first)) == 0
    sent = len(stub.chat_requests)
    clear_cache()  # only the verdict cache (between runs) may answer
    assert generate(tmp_path, "--from-docs", str(kb), "-n", "4", "-o", str(again)) == 0
    assert len(stub.chat_requests) == sent
    assert first.read_text().replace("name: a\n", "name: b\n") == again.read_text()
    other = tmp_path / "c.dataset.yaml"
    assert (
        generate(tmp_path, "--from-docs", str(kb), "-n", "4", "--seed", "7", "-o", str(other)) == 0
    )
    assert len(stub.chat_requests) > sent


def test_topic_keeps_generation_inside_it_and_unknown_ones_are_named(
    tmp_path: Path, model: Model, capsys
) -> None:
    stub, _ = model
    kb = knowledge_base(tmp_path)
    out = tmp_path / "ship.dataset.yaml"
    assert (
        generate(tmp_path, "--from-docs", str(kb), "--topic", "Shipping", "-n", "2", "-o", str(out))
        == 0
    )
    assert all("topic:shipping" in s["tags"] for s in dataset(out)["scenarios"])
    assert all("customs" in p or "Delivery" in p or "Check a test" in p for p in stub.prompts)
    assert not any("thirty days" in p or "warranty" in p for p in stub.prompts)
    sent = len(stub.chat_requests)
    bad = tmp_path / "bad.dataset.yaml"
    assert generate(tmp_path, "--from-docs", str(kb), "--topic", "billing", "-o", str(bad)) == 2
    err = capsys.readouterr().err
    assert "unknown topic(s) 'billing'" in err and "'shipping' (" in err and "'returns' (1)" in err
    assert not bad.exists() and len(stub.chat_requests) == sent


def test_list_topics_prints_each_with_its_chunk_count(tmp_path: Path, model: Model, capsys) -> None:
    kb = knowledge_base(tmp_path)
    assert generate(tmp_path, "--from-docs", str(kb), "--list-topics") == 0
    lines = capsys.readouterr().out.splitlines()
    # Each line: the chunk count, the name, the id in brackets (folder topics: the folder).
    assert sorted(line.split()[-2] for line in lines) == ["returns", "shipping", "warranty"]
    assert sorted(line.split()[-1] for line in lines) == ["[returns]", "[shipping]", "[warranty]"]


def test_topics_without_subfolders_are_clustered_and_named_by_the_model(
    tmp_path: Path, model: Model, capsys
) -> None:
    _stub, answers = model
    docs = tmp_path / "flat"
    docs.mkdir()
    for i in range(8):
        (docs / f"pets{i}.md").write_text(
            f"# Pets {i}\n\nDogs and cats need food, water and a vet {i}.\n"
        )
        (docs / f"cars{i}.md").write_text(
            f"# Cars {i}\n\nEngines, tyres and brakes need a service {i}.\n"
        )
    assert generate(tmp_path, "--from-docs", str(docs), "--list-topics", "--name-topics") == 0
    out = capsys.readouterr().out
    assert answers.kinds.count("topic") == 2  # one name asked per cluster
    counts = sorted(int(line.split()[0]) for line in out.splitlines())
    assert counts == [8, 8]


def test_a_question_its_chunk_cannot_answer_is_dropped(
    tmp_path: Path, model: Model, capsys
) -> None:
    _, answers = model
    answers.unanswerable = ("thirty days",)
    kb = knowledge_base(tmp_path)
    out = tmp_path / "kb.dataset.yaml"
    assert (
        generate(
            tmp_path,
            "--from-docs",
            str(kb / "returns"),
            str(kb / "shipping"),
            "-n",
            "3",
            "-o",
            str(out),
        )
        == 0
    )
    texts = [
        s["interactions"][-1]["input"]["messages"][0]["content"] for s in dataset(out)["scenarios"]
    ]
    assert not any("thirty days" in t for t in texts)
    assert "not answerable from their chunk" in capsys.readouterr().err


def test_near_duplicates_are_removed(tmp_path: Path, model: Model, capsys) -> None:
    model[1].variants = False  # every variant of the one chunk asks the same
    (tmp_path / "one.txt").write_text("The shop opens at nine every weekday morning.")
    out = tmp_path / "one.dataset.yaml"
    assert (
        generate(tmp_path, "--from-docs", str(tmp_path / "one.txt"), "-n", "3", "-o", str(out)) == 0
    )
    assert len(dataset(out)["scenarios"]) < 3
    assert "near-duplicate" in capsys.readouterr().err
    out2 = tmp_path / "two.dataset.yaml"
    args = ["--from-docs", str(tmp_path / "one.txt"), "-n", "3", "-o", str(out2)]
    model[1].variants = True  # (a new seed: new prompts, not the cached answers)
    assert generate(tmp_path, *args, "--seed", "1") == 0
    assert len(dataset(out2)["scenarios"]) == 3


def test_conversations_of_k_turns_check_the_last_one(tmp_path: Path, model: Model) -> None:
    kb = knowledge_base(tmp_path)
    out = tmp_path / "conv.dataset.yaml"
    assert (
        generate(tmp_path, "--from-docs", str(kb), "-n", "2", "--turns", "3", "-o", str(out)) == 0
    )
    assert problems(out) == []
    for scenario in dataset(out)["scenarios"]:
        interactions = scenario["interactions"]
        assert len(interactions) == 3
        assert [("checks" in i) for i in interactions] == [False, False, True]
        assert "type:conversational" in scenario["tags"]


def test_question_types_are_taken_in_turn_and_distracting_gets_another_passage(
    tmp_path: Path, model: Model
) -> None:
    stub, _ = model
    kb = knowledge_base(tmp_path)
    out = tmp_path / "types.dataset.yaml"
    args = ["--from-docs", str(kb), "-n", "3", "--types", "simple,distracting,double"]
    assert generate(tmp_path, *args, "-o", str(out)) == 0
    kinds = sorted(s["annotations"]["generated"]["type"] for s in dataset(out)["scenarios"])
    assert kinds == ["distracting", "double", "simple"]
    assert any("Distracting passage:" in p for p in stub.prompts)
    assert any("two distinct questions in one message" in p for p in stub.prompts)


def test_the_agent_description_from_checkspec_yaml_is_in_every_prompt(
    tmp_path: Path, model: Model, monkeypatch
) -> None:
    stub, _ = model
    (tmp_path / "checkspec.yaml").write_text(
        "agent:\n  description: A support bot for Acme kitchen appliances.\n"
    )
    kb = knowledge_base(tmp_path)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "a.dataset.yaml"
    assert generate(tmp_path, "--from-docs", str(kb), "-n", "2", "-o", str(out)) == 0
    questions = [p for p in stub.prompts if p.startswith("You write test questions")]
    assert questions and all("A support bot for Acme kitchen appliances." in p for p in questions)


def test_a_preset_gives_conformity_rules_and_a_persona_tag(tmp_path: Path, model: Model) -> None:
    out = tmp_path / "impatient.dataset.yaml"
    assert generate(tmp_path, "--preset", "impatient_customer", "-n", "7", "-o", str(out)) == 0
    assert problems(out) == []
    scenarios = dataset(out)["scenarios"]
    assert len(scenarios) == 7
    for scenario in scenarios:
        (check,) = scenario["interactions"][-1]["checks"]
        assert check["identifier"] == "hub_conformity"
        assert check["params"]["rules"][0].startswith("The agent stays polite")
        assert "persona:impatient_customer" in scenario["tags"]
        assert scenario["status"] == "draft"


def test_presets_of_checkspec_yaml_and_unknown_presets(
    tmp_path: Path, model: Model, capsys, monkeypatch
) -> None:
    stub, _ = model
    (tmp_path / "checkspec.yaml").write_text(
        "presets:\n  vip:\n    description: A VIP customer who expects priority.\n"
        "    rules: [The agent offers the priority line.]\n"
    )
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "vip.dataset.yaml"
    assert generate(tmp_path, "--preset", "vip", "-n", "2", "-o", str(out)) == 0
    rules = dataset(out)["scenarios"][0]["interactions"][0]["checks"][0]["params"]["rules"]
    assert rules[0] == "The agent offers the priority line."
    assert "A VIP customer who expects priority." in stub.prompts[-1]
    sent = len(stub.chat_requests)
    assert generate(tmp_path, "--preset", "nope", "-o", str(tmp_path / "x.dataset.yaml")) == 2
    err = capsys.readouterr().err
    assert "unknown preset 'nope'" in err and "impatient_customer" in err and "vip" in err
    assert len(stub.chat_requests) == sent


def test_a_persona_in_words_gets_rules_from_the_model_and_preview_writes_nothing(
    tmp_path: Path, model: Model, capsys, monkeypatch
) -> None:
    _, _answers = model
    monkeypatch.chdir(tmp_path)
    assert generate(tmp_path, "--persona", "A teenager asking for homework help", "--preview") == 0
    out = capsys.readouterr().out
    assert "sample inputs:" in out and "Where is my order?!" in out
    assert "rules (proposed):" in out and "The agent stays polite." in out
    assert list(tmp_path.iterdir()) == [tmp_path / ".checkspec"] or not any(
        p.suffix == ".yaml" for p in tmp_path.iterdir()
    )
    target = tmp_path / "teen.dataset.yaml"
    assert (
        generate(
            tmp_path,
            "--persona",
            "A teenager asking for homework help",
            "-n",
            "2",
            "-o",
            str(target),
        )
        == 0
    )
    rules = dataset(target)["scenarios"][0]["interactions"][0]["checks"][0]["params"]["rules"]
    assert rules[:2] == ["The agent stays polite.", "The agent answers the request."]


def test_append_adds_after_the_last_scenario_and_keeps_every_other_byte(
    tmp_path: Path, model: Model
) -> None:
    out = tmp_path / "faq.dataset.yaml"
    original = (
        "# my hand-written set  \n"
        "name: FAQ   # keep this comment\n"
        "scenarios:\n"
        "  - name: hours\n"
        "    interactions:\n"
        "      - input: {messages: [{role: user, content: 'When are you open?'}]}\n"
        "        checks: [{identifier: string_matching, params: {keyword: nine}}]\n"
        "\n"
        "tags: [faq]\n"
    )
    out.write_text(original)
    assert (
        generate(tmp_path, "--preset", "off_topic_user", "-n", "2", "-o", str(out), "--append") == 0
    )
    text = out.read_text()
    head = original.split("\ntags:")[0]
    assert text.startswith(head.rstrip("\n") + "\n")
    assert text.endswith("\ntags: [faq]\n")
    assert problems(out) == []
    names = [s.get("name") for s in dataset(out)["scenarios"]]
    assert names[0] == "hours" and len(names) == 3
    lines = text.splitlines()
    added = lines[len(head.rstrip("\n").splitlines()) :]
    assert added[0].startswith("  - name: ")


def test_jsonl_output_and_append(tmp_path: Path, model: Model) -> None:
    out = tmp_path / "gen.dataset.jsonl"
    assert generate(tmp_path, "--preset", "prompt_injection", "-n", "2", "-o", str(out)) == 0
    first = out.read_text()
    assert len(first.splitlines()) == 2 and problems(out) == []
    assert (
        generate(
            tmp_path,
            "--preset",
            "prompt_injection",
            "-n",
            "2",
            "--seed",
            "1",
            "-o",
            str(out),
            "--append",
        )
        == 0
    )
    text = out.read_text()
    assert text.startswith(first) and len(text.splitlines()) == 4
    assert all(json.loads(line)["status"] == "draft" for line in text.splitlines())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--count", "0"], "--count must be between 1 and 500, got 0"),
        (["--count", "501"], "--count must be between 1 and 500, got 501"),
        (["--turns", "0"], "--turns must be between 1 and 10"),
        (["--types", "simple,weird"], "unknown question type(s) 'weird'"),
    ],
)
def test_bad_counts_and_types_are_refused_before_any_request(
    tmp_path: Path, model: Model, capsys, args: list[str], message: str
) -> None:
    stub, _ = model
    out = tmp_path / "x.dataset.yaml"
    assert generate(tmp_path, "--preset", "impatient_customer", *args, "-o", str(out)) == 2
    assert message in capsys.readouterr().err
    assert not out.exists() and stub.chat_requests == []


def test_bad_sources_are_refused_with_a_message(tmp_path: Path, model: Model, capsys) -> None:
    out = tmp_path / "x.dataset.yaml"
    (tmp_path / "empty").mkdir()
    cases = [
        (["--from-docs", str(tmp_path / "missing")], "no such file or folder"),
        (["--from-docs", str(tmp_path / "empty")], "holds no readable text"),
        ([], "give one of --persona TEXT, --preset NAME"),
        (["--preset", "vip", "--persona", "x"], "give one of"),
        (["--persona", "  "], "--persona is empty"),
    ]
    for args, message in cases:
        assert generate(tmp_path, *args, "-o", str(out)) == 2, args
        assert message in capsys.readouterr().err
    assert generate(tmp_path, "--preset", "vip", "-o", str(tmp_path / "x.txt")) == 2
    assert f"name it {tmp_path / 'x.dataset.yaml'}" in capsys.readouterr().err
    assert not out.exists()


def test_no_model_configured_is_refused(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.delenv("CHECKSPEC_MODEL", raising=False)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "x.dataset.yaml"
    assert generate(tmp_path, "--preset", "impatient_customer", "-o", str(out)) == 2
    assert "no model configured to generate with" in capsys.readouterr().err
    assert not out.exists()


def test_a_model_answering_garbage_writes_nothing(tmp_path: Path, model: Model, capsys) -> None:
    _stub, answers = model
    answers.garbage = True
    out = tmp_path / "x.dataset.yaml"
    assert generate(tmp_path, "--preset", "impatient_customer", "-n", "2", "-o", str(out)) == 1
    err = capsys.readouterr().err
    assert "nothing was written" in err and "not valid after 3 attempt(s)" in err
    assert not out.exists()


def test_a_wrong_shape_answer_is_retried_then_accepted(tmp_path: Path, model: Model) -> None:
    stub, _answers = model
    stub.script(json.dumps({"scenarios": [{"turns": []}]}))  # fails the schema once
    out = tmp_path / "x.dataset.yaml"
    assert generate(tmp_path, "--preset", "impatient_customer", "-n", "2", "-o", str(out)) == 0
    assert len(dataset(out)["scenarios"]) == 2
    assert len(stub.chat_requests) == 2


def test_429_is_retried_and_500_fails_with_nothing_written(
    tmp_path: Path, model: Model, capsys
) -> None:
    stub, _ = model
    stub.script(429)
    out = tmp_path / "x.dataset.yaml"
    assert generate(tmp_path, "--preset", "impatient_customer", "-n", "2", "-o", str(out)) == 0
    assert out.exists()
    stub.chat = lambda body: 500
    out2 = tmp_path / "y.dataset.yaml"
    assert (
        generate(
            tmp_path, "--preset", "impatient_customer", "-n", "2", "--seed", "3", "-o", str(out2)
        )
        == 1
    )
    assert "the provider failed, nothing was written" in capsys.readouterr().err
    assert not out2.exists()


def test_a_provider_refusing_json_schema_gets_json_mode_with_the_schema(
    tmp_path: Path, model: Model, monkeypatch
) -> None:
    from checkspec.engine.llm import client

    stub, _ = model
    stub.refuse_json_schema = True
    monkeypatch.setenv("CHECKSPEC_MODEL", "openai/no-schema-model")
    try:
        out = tmp_path / "x.dataset.yaml"
        assert generate(tmp_path, "--preset", "impatient_customer", "-n", "2", "-o", str(out)) == 0
    finally:
        client._no_schema_mode.discard("openai/no-schema-model")  # noqa: SLF001
    assert stub.chat_requests[0]["response_format"]["type"] == "json_schema"
    fallback = stub.chat_requests[1]
    assert fallback["response_format"] == {"type": "json_object"}
    assert "validates against this JSON Schema" in fallback["messages"][-1]["content"]


def test_like_a_dataset_appends_more_of_the_same(tmp_path: Path, model: Model) -> None:
    stub, _ = model
    out = tmp_path / "tone.dataset.yaml"
    out.write_text(
        "name: tone\nscenarios:\n"
        "  - interactions:\n"
        "      - input: {messages: [{role: user, content: Your app crashed AGAIN}]}\n"
        "        checks: [{identifier: hub_conformity, params: {rules: [The agent apologises.]}}]\n"
    )
    assert generate(tmp_path, "--like", str(out), "-n", "2", "-o", str(out), "--append") == 0
    scenarios = dataset(out)["scenarios"]
    assert len(scenarios) == 3
    assert (
        scenarios[1]["interactions"][0]["checks"][0]["params"]["rules"][0]
        == "The agent apologises."
    )
    assert any("Your app crashed AGAIN" in p for p in stub.prompts)


def test_run_skips_drafts_unless_included(tmp_path: Path, capsys) -> None:
    path = tmp_path / "d.dataset.yaml"
    path.write_text(
        "name: d\nscenarios:\n"
        "  - name: reviewed\n    status: active\n    interactions:\n"
        "      - input: {messages: [{role: user, content: hi}]}\n"
        "        output: {response: {role: assistant, content: hello}}\n"
        "        checks: [{identifier: string_matching, params: {keyword: hello}}]\n"
        "  - name: draft one\n    status: draft\n    interactions:\n"
        "      - input: {messages: [{role: user, content: hi}]}\n"
        "        output: {response: {role: assistant, content: bye}}\n"
        "        checks: [{identifier: string_matching, params: {keyword: hello}}]\n"
    )
    assert main(["run", str(path), "--executor", "inprocess", "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert [s["scenario_name"] for s in json.loads(captured.out)["scenarios"]] == ["reviewed"]
    assert "1 draft scenario(s) not run (--include-drafts runs them)" in captured.err
    assert main(["run", str(path), "--executor", "inprocess", "--include-drafts"]) == 1


def test_an_embedding_model_serves_topics_and_de_duplication(
    tmp_path: Path, model: Model, monkeypatch, capsys
) -> None:
    stub, _ = model
    monkeypatch.setenv("CHECKSPEC_EMBEDDING_MODEL", "openai/stub-embedder")

    def vector(text: str) -> list[float]:  # pets and cars apart, whatever the words
        return [1.0, 0.1] if "Dogs" in text or "Pets" in text else [0.1, 1.0]

    stub.embeddings = vector
    docs = tmp_path / "flat"
    docs.mkdir()
    for i in range(8):
        (docs / f"pets{i}.md").write_text(f"# Pets {i}\n\nDogs need a walk {i} times.\n")
        (docs / f"cars{i}.md").write_text(f"# Cars {i}\n\nEngines need oil {i} times.\n")
    assert generate(tmp_path, "--from-docs", str(docs), "--list-topics", "--name-topics") == 0
    counts = sorted(int(line.split()[0]) for line in capsys.readouterr().out.splitlines())
    assert counts == [8, 8]
    assert stub.embedding_requests, "the chunks were embedded"
    out = tmp_path / "e.dataset.yaml"
    # Every question of the pets topic embeds alike: one of each topic is kept.
    assert generate(tmp_path, "--from-docs", str(docs), "-n", "4", "-o", str(out)) == 0
    assert len(dataset(out)["scenarios"]) == 2
    assert "near-duplicate" in capsys.readouterr().err


def test_topics_are_listed_without_a_model_by_their_words(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.delenv("CHECKSPEC_MODEL", raising=False)
    monkeypatch.chdir(tmp_path)
    docs = tmp_path / "flat"
    docs.mkdir()
    for i in range(8):
        (docs / f"pets{i}.md").write_text(f"# Pets\n\nDogs and cats need food and water {i}.\n")
        (docs / f"cars{i}.md").write_text(f"# Cars\n\nEngines, tyres and brakes need care {i}.\n")
    assert generate(tmp_path, "--from-docs", str(docs), "--list-topics") == 0
    names = [line.split(None, 1)[1] for line in capsys.readouterr().out.splitlines()]
    assert len(names) == 2 and any("dogs" in n or "cats" in n for n in names)


def test_append_to_a_file_with_problems_of_its_own_refuses_only_new_ones(
    tmp_path: Path, model: Model
) -> None:
    out = tmp_path / "old.dataset.yaml"
    original = (
        "name: old\nscenarios:\n"
        "  - interactions:\n"
        "      - input: {messages: [{role: user, content: hi}]}\n"
        "        checks: [{identifier: string_matching, params: {keyword: hi, text_key: trace.last.outputs.response.content}}]\n"
    )
    out.write_text(original)
    assert any("deprecated" in p for p in problems(out))  # a warning of its own
    assert (
        generate(tmp_path, "--preset", "off_topic_user", "-n", "1", "-o", str(out), "--append") == 0
    )
    assert out.read_text().startswith(original)
    assert len(dataset(out)["scenarios"]) == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "name: x\nscenarios: [{interactions: [{input: {messages: [{role: user, content: a}]}}]}]\n",
            "`scenarios:` is not a block list",
        ),
        ("name: x\nscenarios: []\n", "cannot append to an empty `scenarios:` list"),
        ("name: x\n", "the file has no `scenarios:` list"),
        ("name: [unclosed\n", "cannot be read as a dataset"),
    ],
)
def test_append_refuses_what_it_cannot_extend_and_leaves_the_file(
    tmp_path: Path, model: Model, capsys, text: str, message: str
) -> None:
    out = tmp_path / "odd.dataset.yaml"
    out.write_text(text)
    assert (
        generate(tmp_path, "--preset", "off_topic_user", "-n", "1", "-o", str(out), "--append") == 2
    )
    assert message in capsys.readouterr().err
    assert out.read_text() == text


def test_force_overwrites_and_force_with_append_is_refused(
    tmp_path: Path, model: Model, capsys
) -> None:
    out = tmp_path / "o.dataset.yaml"
    out.write_text("name: old\nscenarios: []\n")
    assert (
        generate(
            tmp_path, "--preset", "off_topic_user", "-n", "1", "-o", str(out), "--force", "--append"
        )
        == 2
    )
    assert "--force and --append exclude each other" in capsys.readouterr().err
    assert (
        generate(tmp_path, "--preset", "off_topic_user", "-n", "1", "-o", str(out), "--force") == 0
    )
    assert dataset(out)["name"] == "o" and len(dataset(out)["scenarios"]) == 1


def test_like_takes_jsonl_examples_and_refuses_a_dataset_without_any(
    tmp_path: Path, model: Model, capsys
) -> None:
    stub, _ = model
    rows = tmp_path / "rows.dataset.jsonl"
    rows.write_text(
        '{"interactions": [{"input": {"messages": [{"role": "user", "content": "Can I pay by cheque?"}]}}]}\n'
    )
    out = tmp_path / "more.dataset.jsonl"
    assert generate(tmp_path, "--like", str(rows), "-n", "2", "-o", str(out)) == 0
    assert any("Can I pay by cheque?" in p for p in stub.prompts)
    # A broken row is said where it is, as every command taking scenarios says it.
    broken = tmp_path / "broken.dataset.jsonl"
    broken.write_text(rows.read_text() + "not json\n")
    assert generate(tmp_path, "--like", str(broken), "-o", str(tmp_path / "y.dataset.yaml")) == 2
    assert f"{broken}:2:1: Expecting value" in capsys.readouterr().err
    empty = tmp_path / "empty.dataset.yaml"
    empty.write_text("name: e\nscenarios:\n  - interactions: []\n")
    assert generate(tmp_path, "--like", str(empty), "-o", str(tmp_path / "x.dataset.yaml")) == 2
    assert "holds no scenario with a user message to take as an example" in capsys.readouterr().err
    assert (
        generate(
            tmp_path,
            "--like",
            str(tmp_path / "missing.dataset.yaml"),
            "-o",
            str(tmp_path / "x.dataset.yaml"),
        )
        == 2
    )
    assert "missing.dataset.yaml: no such file or folder" in capsys.readouterr().err


def test_like_takes_the_selection_language(tmp_path: Path, model: Model, capsys) -> None:
    """--like chooses its examples as `run` chooses scenarios: FILE::NAME, folders, suites,
    narrowed by --tag/--query/--status; unknown names get the nearest ones."""
    stub, _ = model
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "tone.suite.yaml").write_text(
        "name: tone\ntarget: python:agent:answer\nscenarios:\n"
        "  - name: angry\n    tags: [rude]\n    steps:\n"
        "      - interacts: [{inputs: Your app crashed AGAIN}]\n"
        "        checks: [{kind: conformity, rule: The agent stays calm.}]\n"
        "  - name: polite\n    steps:\n"
        "      - interacts: [{inputs: Could you kindly help me?}]\n"
    )
    out = tmp_path / "more.dataset.yaml"
    chosen = f"{suites / 'tone.suite.yaml'}::angry"
    assert generate(tmp_path, "--like", chosen, "-n", "2", "-o", str(out)) == 0
    assert any("Your app crashed AGAIN" in p for p in stub.prompts)
    assert not any("Could you kindly" in p for p in stub.prompts)
    rules = dataset(out)["scenarios"][0]["interactions"][0]["checks"][0]["params"]["rules"]
    assert rules[0] == "The agent stays calm."

    before = len(stub.prompts)
    out2 = tmp_path / "polite.dataset.yaml"
    assert (
        generate(tmp_path, "--like", str(suites), "--query", "kindly", "-n", "2", "-o", str(out2))
        == 0
    )
    assert any("Could you kindly" in p for p in stub.prompts[before:])
    assert not any("AGAIN" in p for p in stub.prompts[before:])

    x = str(tmp_path / "x.dataset.yaml")
    assert generate(tmp_path, "--like", f"{suites / 'tone.suite.yaml'}::angy", "-o", x) == 2
    assert "no scenario named 'angy'" in (err := capsys.readouterr().err) and "'angry'" in err
    assert generate(tmp_path, "--like", str(suites), "--tag", "none-such", "-o", x) == 2
    assert "no scenario has the tag 'none-such'" in capsys.readouterr().err
    assert generate(tmp_path, "--persona", "a user", "--tag", "rude", "-o", x) == 2
    assert "--tag narrow the examples of --like: give --like" in capsys.readouterr().err
    assert not Path(x).exists()
