"""`checkspec calibrate` (issue 40 items 2-4) through the command line's `main` (in-process,
tests/support/cli.py; the history's test in a real subprocess), the judge being the
local OpenAI-compatible stub whose verdicts are known: a verdict is `fail` when the
judged answer holds JUDGE-FAIL. The fixture's confusion matrix is written down below and
every number is checked exactly; the target is never called."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import Done, run_main
from tests.support.openai_stub import OpenAIStub, running_stub

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]

# (label, the judge's verdict) of each labelled check: fail is the positive class.
#   tp (label fail, judge fail) = 3    fn (label fail, judge pass) = 1
#   fp (label pass, judge fail) = 2    tn (label pass, judge pass) = 4
# n 10; agreement 7/10; precision 3/5; recall 3/4;
# kappa: pe = (5*4 + 5*6) / 100 = 0.5 -> (0.7 - 0.5) / 0.5 = 0.4
CASES = (
    [("fail", "fail")] * 3 + [("pass", "fail")] * 2 + [("fail", "pass")] + [("pass", "pass")] * 4
)

AGENT = """\
from pathlib import Path

def answer(text):
    (Path(__file__).parent / "TARGET-CALLED").write_text(text)
    return "a live answer"
"""


def answer_text(n: int, verdict: str) -> str:
    return f"answer {n} " + (
        "JUDGE-FAIL <script>alert(1)</script>" if verdict == "fail" else "fine"
    )


def write_workspace(root: Path, cases: list[tuple[str, str]] = CASES) -> dict[int, str]:
    """Six labels in a suite (llm_judge), the rest in a dataset (hub_correctness), one
    unlabelled judge; each label's `file:line`, by case number."""
    (root / "checkspec.yaml").write_text("model: openai/judge\n")
    (root / "agent.py").write_text(AGENT)
    where: dict[int, str] = {}
    suite = ["name: tone", "target: python:agent:answer", "scenarios:"]
    for n, (label, verdict) in enumerate(cases[:6]):
        suite += [
            f"  - name: case {n}",
            "    steps:",
            "      - interacts:",
            f"          - {{inputs: question {n}, outputs: '{answer_text(n, verdict)}'}}",
            "        checks:",
            "          - kind: llm_judge",
        ]
        where[n] = f"tone.suite.yaml:{len(suite)}"
        suite += [
            "            prompt: 'Is it fine? {{ trace.last.outputs }}'",
            f"            expect: {label}",
        ]
    suite += [
        "  - name: not labelled",
        "    steps:",
        "      - interacts: [{inputs: q, outputs: JUDGE-FAIL}]",
        "        checks: [{kind: llm_judge, prompt: 'x {{ trace.last.outputs }}'}]",
    ]
    (root / "tone.suite.yaml").write_text("\n".join(suite) + "\n")
    rows = []
    for n, (label, verdict) in enumerate(cases[6:], start=6):
        turn = {
            "input": {"messages": [{"role": "user", "content": f"question {n}"}]},
            "output": {"response": {"role": "assistant", "content": answer_text(n, verdict)}},
            "checks": [
                {"identifier": "hub_correctness", "expect": label, "params": {"reference": "r"}}
            ],
        }
        rows.append(json.dumps({"name": f"row {n}", "interactions": [turn]}))
        where[n] = f"faq.dataset.jsonl:{len(rows)}"
    (root / "faq.dataset.jsonl").write_text("\n".join(rows) + "\n")
    return where


def judge_by_answer(stub: OpenAIStub) -> None:
    def chat(body: dict[str, Any]) -> str:
        prompt = body["messages"][-1]["content"]
        failed = "JUDGE-FAIL" in prompt
        return stub.verdict(
            not failed, "because <b>" + ("JUDGE-FAIL" if failed else "fine") + "</b>"
        )

    stub.chat = chat


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with running_stub() as found:
        judge_by_answer(found)
        yield found


def cli(root: Path, stub: OpenAIStub, *args: str) -> Done:
    env = {"CHECKSPEC_API_BASE": stub.base_url, "CHECKSPEC_API_KEY": "test-key"}
    return run_main(root, *args, env=env, unset=("CHECKSPEC_", "OPENAI_"))


def cli_process(root: Path, stub: OpenAIStub, *args: str) -> subprocess.CompletedProcess[str]:
    """In a process of its own: a run's or a calibration's time is its process's (runs
    and calibrations in one second would not be told apart in order)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("CHECKSPEC_", "OPENAI_"))}
    env = {**clean, "CHECKSPEC_API_BASE": stub.base_url, "CHECKSPEC_API_KEY": "test-key"}
    return subprocess.run(
        [*CLI, *args], cwd=root, capture_output=True, text=True, timeout=300, env=env
    )


def test_agreement_kappa_precision_recall_and_confusion_exactly(
    tmp_path: Path, stub: OpenAIStub
) -> None:
    where = write_workspace(tmp_path)
    done = cli(tmp_path, stub, "calibrate", ".", "--format", "json", "--no-history")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["format"] == "checkspec-calibration/1"
    assert data["calibration"]["labels"] == 10
    judges = {j["check"]: j for j in data["judges"]}
    assert set(judges) == {"llm_judge", "hub_correctness"}
    # Each judge alone: llm_judge has cases 0-5 (tp 3, fp 2, fn 1), hub_correctness 6-9 (tn 4).
    llm = judges["llm_judge"]
    assert llm["confusion"] == {"tp": 3, "fp": 2, "fn": 1, "tn": 0}
    assert (llm["n"], llm["agreement"], llm["precision"], llm["recall"]) == (6, 0.5, 0.6, 0.75)
    # kappa: po 3/6, judge fails 5/6, labels fail 4/6: pe = (5*4 + 1*2)/36 = 22/36
    assert llm["kappa"] == round((3 / 6 - 22 / 36) / (1 - 22 / 36), 4)
    assert llm["model"] == "openai/judge" and llm["prompt"].startswith("inline:")
    assert judges["hub_correctness"]["confusion"] == {"tp": 0, "fp": 0, "fn": 0, "tn": 4}
    assert judges["hub_correctness"]["kappa"] is None  # both sides always said pass
    # Every disagreement, file:line with the judge's reason next to the label.
    listed = sorted(
        (d["file"] + ":" + str(d["line"]), d["expect"], d["verdict"]) for d in llm["disagreements"]
    )
    assert listed == sorted(
        [(where[3], "pass", "fail"), (where[4], "pass", "fail"), (where[5], "fail", "pass")]
    )
    assert all(d["reason"].startswith("because") for d in llm["disagreements"])
    # The target was never called; the judge was asked once per label, nothing else.
    assert not (tmp_path / "TARGET-CALLED").exists()
    assert len(stub.chat_requests) == 10
    assert not any("a live answer" in p for p in stub.prompts)


def test_one_judge_over_all_labels_and_the_bars(tmp_path: Path, stub: OpenAIStub) -> None:
    # All ten labels judged by one judge (hub_correctness everywhere): the matrix above.
    write_workspace(tmp_path, [])
    rows = []
    for n, (label, verdict) in enumerate(CASES):
        turn = {
            "input": {"messages": [{"role": "user", "content": f"q{n}"}]},
            "output": {"response": {"role": "assistant", "content": answer_text(n, verdict)}},
            "checks": [
                {"identifier": "hub_correctness", "expect": label, "params": {"reference": "r"}}
            ],
        }
        rows.append(json.dumps({"interactions": [turn]}))
    (tmp_path / "faq.dataset.jsonl").write_text("\n".join(rows) + "\n")
    done = cli(tmp_path, stub, "calibrate", "faq.dataset.jsonl", "--format", "json", "--no-history")
    assert done.returncode == 0, done.stderr
    (judge,) = json.loads(done.stdout)["judges"]
    assert judge["confusion"] == {"tp": 3, "fp": 2, "fn": 1, "tn": 4}
    assert (
        judge["n"],
        judge["agreement"],
        judge["precision"],
        judge["recall"],
        judge["kappa"],
    ) == (10, 0.7, 0.6, 0.75, 0.4)
    text = cli(
        tmp_path,
        stub,
        "calibrate",
        "faq.dataset.jsonl",
        "--no-history",
        "--min-agreement",
        "0.8",
        "--min-kappa",
        "0.3",
    )
    assert text.returncode == 1
    assert (
        "below the bar: hub_correctness @ openai/judge [built-in]: agreement 70.0% < 80.0%"
        in text.stderr
    )
    assert "kappa" not in text.stderr  # 0.4 meets 0.3
    assert "70.0%" in text.stdout and "0.400" in text.stdout
    assert "faq.dataset.jsonl:4  labelled pass, judge said fail: because" in text.stdout
    ok = cli(
        tmp_path,
        stub,
        "calibrate",
        "faq.dataset.jsonl",
        "--no-history",
        "--min-agreement",
        "0.7",
        "--min-kappa",
        "0.4",
    )
    assert ok.returncode == 0, ok.stderr


def test_markdown_and_html_escape_what_judges_and_files_say(
    tmp_path: Path, stub: OpenAIStub
) -> None:
    write_workspace(tmp_path)
    md = cli(tmp_path, stub, "calibrate", "tone.suite.yaml", "--format", "markdown", "--no-history")
    assert md.returncode == 0, md.stderr
    assert "| label fail | 3 | 1 |" in md.stdout
    assert "<b>" not in md.stdout and "&lt;b&gt;" in md.stdout
    page = tmp_path / "calibration.html"
    html = cli(
        tmp_path,
        stub,
        "calibrate",
        "tone.suite.yaml",
        "--format",
        "html",
        "-o",
        str(page),
        "--no-history",
    )
    assert html.returncode == 0, html.stderr
    text = page.read_text()
    assert "Content-Security-Policy" in text and "script-src 'sha256-" in text
    assert "<b>" not in text and "<script>alert" not in text  # embedded as escaped JSON
    assert '"page":"calibration"' in text


def test_repeat_gives_self_consistency_and_names_the_flips(
    tmp_path: Path, stub: OpenAIStub
) -> None:
    where = write_workspace(tmp_path, [("pass", "pass"), ("fail", "fail"), ("pass", "pass")])
    asked: dict[str, int] = {}
    lock = threading.Lock()

    def chat(body: dict[str, Any]) -> str:
        prompt = body["messages"][-1]["content"]
        if "answer 2 " in prompt:  # this judge changes its mind: pass, fail, pass...
            with lock:
                asked["flip"] = asked.get("flip", 0) + 1
                return stub.verdict(asked["flip"] % 2 == 1, "unsure")
        return stub.verdict("JUDGE-FAIL" not in prompt, "sure")

    stub.chat = chat
    done = cli(
        tmp_path,
        stub,
        "calibrate",
        "tone.suite.yaml",
        "--repeat",
        "3",
        "--format",
        "json",
        "--no-history",
    )
    assert done.returncode == 0, done.stderr
    (judge,) = json.loads(done.stdout)["judges"]
    assert judge["consistency"] == round(2 / 3, 4)
    assert judge["flips"] == [where[2]]
    assert len(stub.chat_requests) == 9  # every repeat asked the judge again


def test_two_models_side_by_side_on_the_same_labels(tmp_path: Path, stub: OpenAIStub) -> None:
    write_workspace(tmp_path)

    def chat(body: dict[str, Any]) -> str:
        prompt = body["messages"][-1]["content"]
        if body["model"] == "lenient":
            return stub.verdict(True, "all fine")
        return stub.verdict("JUDGE-FAIL" not in prompt, "strict")

    stub.chat = chat
    done = cli(
        tmp_path,
        stub,
        "calibrate",
        "tone.suite.yaml",
        "--model",
        "openai/strict",
        "--model",
        "openai/lenient",
        "--format",
        "json",
        "--no-history",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    by_model = {j["model"]: j for j in data["judges"]}
    assert by_model["openai/strict"]["agreement"] == 0.5
    assert by_model["openai/lenient"]["confusion"] == {"tp": 0, "fp": 0, "fn": 4, "tn": 2}
    (group,) = data["side_by_side"]
    assert [j["model"] for j in group["judges"]] == ["openai/strict", "openai/lenient"]
    assert [j["agreement"] for j in group["judges"]] == [0.5, round(2 / 6, 4)]
    assert group["labels"] == 6
    assert len(group["differ"]) == 5  # the five answers the strict judge fails
    text = cli(
        tmp_path,
        stub,
        "calibrate",
        "tone.suite.yaml",
        "--model",
        "openai/strict",
        "--model",
        "openai/lenient",
        "--no-history",
    )
    assert "side by side on 6 shared label(s): llm_judge @ openai/strict" in text.stdout
    assert "vs llm_judge @ openai/lenient" in text.stdout


def test_bad_labels_exit_2_with_located_errors(tmp_path: Path, stub: OpenAIStub) -> None:
    (tmp_path / "t.scenario.yaml").write_text(
        "name: t\nsteps:\n  - interacts: [{inputs: hi, outputs: yo}]\n    checks:\n"
        "      - {kind: equals, expected_value: yo, expect: pass}\n"
        "      - {kind: llm_judge, prompt: p, expect: maybe}\n"
    )
    done = cli(tmp_path, stub, "calibrate", "t.scenario.yaml")
    assert done.returncode == 2
    assert "t.scenario.yaml:5:44: error: expect: labels a judge's verdict" in done.stderr
    assert "t.scenario.yaml:6:46: error: expect: Input should be" in done.stderr
    assert "Traceback" not in done.stderr
    assert not stub.chat_requests


def test_history_keeps_calibrations_and_compare_says_a_judge_dropped(
    tmp_path: Path, stub: OpenAIStub
) -> None:
    write_workspace(tmp_path, [("pass", "pass"), ("fail", "fail")])
    first = cli_process(tmp_path, stub, "calibrate", "tone.suite.yaml", "--executor", "inprocess")
    assert first.returncode == 0 and "dropped" not in first.stderr, first.stderr
    run1 = cli_process(tmp_path, stub, "run", "tone.suite.yaml", "--executor", "inprocess")
    assert run1.returncode in (0, 1), run1.stderr

    def worse(body: dict[str, Any]) -> str:  # the judge now passes everything
        return stub.verdict(True, "ok")

    stub.chat = worse
    second = cli_process(
        tmp_path, stub, "calibrate", "tone.suite.yaml", "--executor", "inprocess", "--no-cache"
    )
    assert "judge agreement dropped: llm_judge @ openai/judge" in second.stderr
    assert ": 100.0% -> 50.0%" in second.stderr
    run2 = cli_process(tmp_path, stub, "run", "tone.suite.yaml", "--executor", "inprocess")
    assert run2.returncode in (0, 1), run2.stderr
    compared = cli_process(tmp_path, stub, "compare")
    assert "judge agreement dropped: llm_judge @ openai/judge" in compared.stderr, compared.stderr


def test_a_second_prompt_file_is_judged_side_by_side(tmp_path: Path, stub: OpenAIStub) -> None:
    write_workspace(tmp_path)
    # The reworded prompt makes the judge pass everything but the first two answers.
    (tmp_path / "reworded.j2").write_text("REWORDED: is it fine? {{ trace.last.outputs }}\n")

    def chat(body: dict[str, Any]) -> str:
        prompt = body["messages"][-1]["content"]
        if prompt.startswith("REWORDED"):
            failed = "answer 0 " in prompt or "answer 1 " in prompt
            return stub.verdict(not failed, "reworded")
        return stub.verdict("JUDGE-FAIL" not in prompt, "original")

    stub.chat = chat
    done = cli(
        tmp_path,
        stub,
        "calibrate",
        "tone.suite.yaml",
        "--prompt",
        "reworded.j2",
        "--format",
        "json",
        "--no-history",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    (group,) = data["side_by_side"]
    original, reworded = group["judges"]
    assert original["prompt"].startswith("inline:") and reworded["prompt"].endswith("reworded.j2")
    # labels fail,fail,fail,pass,pass,fail; reworded says fail,fail,pass,pass,pass,pass
    assert reworded["confusion"] == {"tp": 2, "fp": 0, "fn": 2, "tn": 2}
    assert (original["agreement"], reworded["agreement"]) == (0.5, round(4 / 6, 4))
    assert len(group["differ"]) == 3  # answers 2, 3 and 4: the original failed them
    missing = cli(tmp_path, stub, "calibrate", "tone.suite.yaml", "--prompt", "nope.j2")
    assert missing.returncode == 2 and "--prompt nope.j2: no such file" in missing.stderr


def test_label_writes_expect_keeping_every_other_byte_and_refuses_a_wrong_place(
    tmp_path: Path, stub: OpenAIStub
) -> None:
    text = (
        "name: t   # kept\n"
        "steps:\n"
        "  - interacts: [{inputs: hi, outputs: yo}]\n"
        "    checks:\n"
        "      - kind: llm_judge\n"
        "        prompt: p\n"
        "      - {kind: equals, expected_value: yo}\n"
        "  - interacts: [{inputs: again}]\n"
        "    checks:\n"
        "      - kind: toxicity\n"
    )
    path = tmp_path / "t.scenario.yaml"
    path.write_text(text)
    done = cli(tmp_path, stub, "label", "t.scenario.yaml:5", "fail")
    assert done.returncode == 0, done.stderr
    assert path.read_text() == text.replace(
        "        prompt: p\n", "        expect: fail\n        prompt: p\n"
    )
    assert cli(tmp_path, stub, "label", "t.scenario.yaml:5", "fail").returncode == 0  # no change
    # (the file has a line more now)
    refused = cli(tmp_path, stub, "label", "t.scenario.yaml:8", "pass")
    assert refused.returncode == 2 and "'equals' calls no model" in refused.stderr
    unrecorded = cli(tmp_path, stub, "label", "t.scenario.yaml:11", "pass")
    assert unrecorded.returncode == 2
    assert (
        "t.scenario.yaml:12:9: error: expect: labels the verdict on a recorded answer"
        in unrecorded.stderr
    )
    assert cli(tmp_path, stub, "label", "t.scenario.yaml", "pass").returncode == 2
    assert path.read_text().count("expect:") == 1  # nothing written by the refusals


def test_label_from_a_run_records_the_answers_it_judged(tmp_path: Path, stub: OpenAIStub) -> None:
    """Issue 40 item 6 (the report's "Label as" on a live run): `--from-run` writes the
    answer the judge saw, then the label, in one edit; the file then validates."""
    (tmp_path / "checkspec.yaml").write_text("model: openai/judge\nhistory: true\n")
    (tmp_path / "agent.py").write_text(AGENT)
    text = (
        "name: live\n"
        "target: python:agent:answer\n"
        "steps:\n"
        "  - interacts: [{inputs: hi}]\n"
        "    checks:\n"
        "      - kind: llm_judge\n"
        "        prompt: 'fine? {{ trace.last.outputs }}'\n"
    )
    path = tmp_path / "live.scenario.yaml"
    path.write_text(text)
    ran = cli(tmp_path, stub, "run", "live.scenario.yaml")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    refused = cli(tmp_path, stub, "label", "live.scenario.yaml:6", "pass")
    assert refused.returncode == 2 and "recorded answer" in refused.stderr
    done = cli(tmp_path, stub, "label", "live.scenario.yaml:6", "fail", "--from-run", "last")
    assert done.returncode == 0, done.stderr
    assert path.read_text() == text.replace(
        "[{inputs: hi}]", "[{inputs: hi, outputs: a live answer}]"
    ).replace("      - kind: llm_judge\n", "      - kind: llm_judge\n        expect: fail\n")
    assert cli(tmp_path, stub, "validate", "live.scenario.yaml").returncode == 0
    gone = cli(tmp_path, stub, "label", "live.scenario.yaml:6", "pass", "--from-run", "nope")
    assert gone.returncode == 2 and "error:" in gone.stderr
