"""One accounting of model calls (issue 47 item 3): every request the local stub received,
every answer a cache gave, every token and dollar is reported, and the same numbers in
each sink: the text summary, the JSON report, the history, the HTML page and JUnit's
properties, for `run` (repeats, retries, a cold and a warm cache), `run --dry-run`,
`calibrate` and `generate`. Real `checkspec` processes against the stub in tests/support;
the numbers expected are computed from what the stub received and answered."""

from __future__ import annotations

import base64
import gzip
import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest

from checkspec.engine.history.store import HistoryStore, history_path
from tests.support.cli import Done, run_main
from tests.support.openai_stub import (
    GenerationAnswers,
    OpenAIStub,
    Reply,
    judged_suite,
    running_stub,
)

VERDICT = OpenAIStub.verdict(True, "It apologises.")
IN_PRICE, OUT_PRICE = 0.001, 0.002
CONFIG = f"""model: openai/judge
models:
  openai/judge:
    input_cost_per_token: {IN_PRICE}
    output_cost_per_token: {OUT_PRICE}
"""


class Answers:
    """A chat script that keeps what it answered to each request: an HTTP status for the
    first `errors` (a provider failing before it answers), then `answer(body)`."""

    def __init__(self, answer: Callable[[dict[str, Any]], Reply], errors: tuple[int, ...] = ()):
        self.answer = answer
        self.errors = list(errors)
        self.kept: list[tuple[dict[str, Any], Reply]] = []
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            reply = self.errors.pop(0) if self.errors else self.answer(body)
            self.kept.append((body, reply))
        return reply


@dataclass(frozen=True)
class Numbers:
    requests: int
    failed: int
    cached: int
    prompt_tokens: int
    completion_tokens: int
    cost: float

    @classmethod
    def of(cls, usage: dict[str, Any]) -> Numbers:
        return cls(
            usage.get("requests", 0),
            usage.get("failed", 0),
            usage.get("cached", 0),
            usage.get("prompt_tokens", 0),
            usage.get("completion_tokens", 0),
            round(usage.get("cost_usd", 0.0), 6),
        )

    @property
    def text(self) -> str:
        """As the text summary writes it (core/usage.py's `describe`)."""
        notes = [
            f"{n} {word}" for n, word in ((self.failed, "failed"), (self.cached, "cached")) if n
        ]
        shown = f" ({', '.join(notes)})" if notes else ""
        tokens = self.prompt_tokens + self.completion_tokens
        plural = "s" if self.requests != 1 else ""
        return f"{self.requests} LLM request{plural}{shown}, {tokens:,} tokens, ${self.cost:.4f}"


def sent(answers: Answers, since: int = 0, cached: int = 0) -> Numbers:
    """What the stub received and answered from request `since` on: its token counts are
    the words of the messages and of the answer (tests/support/openai_stub.py)."""
    kept = answers.kept[since:]
    ok = [(body, reply) for body, reply in kept if isinstance(reply, str)]
    prompt = sum(len(str(m["content"]).split()) for body, _ in ok for m in body["messages"])
    completion = sum(len(str(reply).split()) for _, reply in ok)
    return Numbers(
        len(kept),
        len(kept) - len(ok),
        cached,
        prompt,
        completion,
        round(prompt * IN_PRICE + completion * OUT_PRICE, 6),
    )


def checkspec(root: Path, stub: OpenAIStub, *args: str) -> Done:
    """The command in this process (tests/support/cli.py); the stand-in counts what it
    receives all the same."""
    env = {"CHECKSPEC_API_BASE": stub.base_url, "CHECKSPEC_API_KEY": "sk-test"}
    return run_main(root, *args, env=env, unset=("CHECKSPEC_", "OPENAI_"))


def embedded(page: str) -> Any:
    found = re.search(
        r'<script type="application/json" id="checkspec-data" data-encoding="([^"]+)">(.*?)'
        r"</script>",
        page,
        re.DOTALL,
    )
    assert found, "no embedded data"
    value = json.loads(found.group(2))
    if found.group(1) == "gzip+base64":
        value = json.loads(gzip.decompress(base64.b64decode(value)))
    return value["data"]


def junit_numbers(path: Path) -> tuple[Numbers, Numbers]:
    """(the testcases' usage summed, the testsuites' usage summed)."""
    root = ET.parse(path).getroot()
    found = []
    for tag, props in (
        ("testcase", ".//testcase/properties"),
        ("testsuite", "./testsuite/properties"),
    ):
        total: dict[str, float] = {}
        for element in root.findall(props):
            for prop in element.iter("property"):
                name = prop.get("name") or ""
                if name.startswith("usage."):
                    key = name.removeprefix("usage.")
                    total[key] = total.get(key, 0) + float(prop.get("value") or 0)
        assert total, f"no usage properties on any {tag}"
        found.append(Numbers.of({k: (v if k == "cost_usd" else int(v)) for k, v in total.items()}))
    return found[0], found[1]


def every_sink(root: Path, ran: Done) -> dict[str, Any]:
    """The numbers of the run just made, read from each report: `ran` wrote r.json and
    kept the run in the history; the history's page and a JUnit file are rendered from
    them by the CLI (in this process: they send nothing)."""
    report = json.loads((root / "r.json").read_text())
    with closing(HistoryStore(history_path(root))) as store:
        history = store.resolve("last")
    page = run_main(root, "report", "last", "--format", "html", "-o", "r.html")
    assert page.returncode == 0, page.stderr
    junit = run_main(root, "merge", "r.json", "--format", "junit", "-o", "r.xml")
    assert junit.returncode == 0, junit.stderr
    cases, suites = junit_numbers(root / "r.xml")
    scenarios = Numbers.of(
        {
            key: sum(s.get("usage", {}).get(key, 0) for s in report["scenarios"])
            for key in (
                "requests",
                "failed",
                "cached",
                "prompt_tokens",
                "completion_tokens",
                "cost_usd",
            )
        }
    )
    return {
        "json": Numbers.of(report["usage"]),
        "json scenarios": scenarios,
        "history": Numbers.of(history["usage"]),
        "html": Numbers.of(embedded((root / "r.html").read_text())["usage"]),
        "junit testcases": cases,
        "junit testsuites": suites,
        "cost_usd": (report["run"]["cost_usd"], history["run"]["cost_usd"]),
        "summary": ran.stderr.strip().splitlines()[-1],
    }


def assert_reported(root: Path, ran: Done, expected: Numbers) -> None:
    assert ran.returncode == 0, ran.stderr
    found = every_sink(root, ran)
    for sink in (
        "json",
        "json scenarios",
        "history",
        "html",
        "junit testcases",
        "junit testsuites",
    ):
        assert found[sink] == expected, sink
    assert found["cost_usd"] == (expected.cost, expected.cost)
    assert found["summary"].endswith("; " + expected.text), found["summary"]


@pytest.fixture
def judged(tmp_path: Path) -> Iterator[tuple[Path, OpenAIStub, Answers]]:
    (tmp_path / "checkspec.yaml").write_text(CONFIG)
    (tmp_path / "j.suite.yaml").write_text(judged_suite(2))
    with running_stub() as stub:
        answers = Answers(lambda body: VERDICT)
        stub.chat = answers
        yield tmp_path, stub, answers


def run(root: Path, stub: OpenAIStub, *args: str) -> Done:
    return checkspec(root, stub, "run", ".", "--format", "json", "-o", "r.json", *args)


def test_repeats_with_a_cold_cache_count_every_request(judged: Any) -> None:
    root, stub, answers = judged
    ran = run(root, stub, "--repeat", "3", "--no-cache")
    assert len(answers.kept) == 6  # 2 scenarios, 3 times each
    assert_reported(root, ran, sent(answers))


def test_repeats_with_a_warm_cache_count_the_repeats_and_the_cached_answers(judged: Any) -> None:
    root, stub, answers = judged
    first = run(root, stub)  # fills the verdict cache
    assert_reported(root, first, sent(answers))
    before = len(answers.kept)
    # The dry run asks the cache: the first run's 2 calls are answered there, the 2
    # repeats of each scenario are not (repeats ask the judge again).
    planned = checkspec(root, stub, "run", ".", "--dry-run", "--repeat", "3", "--format", "json")
    assert planned.returncode == 0, planned.stderr
    total = json.loads(planned.stdout)["total"]
    again = run(root, stub, "--repeat", "3")
    assert len(answers.kept) - before == 4
    assert (total["calls"], total["cached"]) == (4, 2)
    assert_reported(root, again, sent(answers, before, cached=2))


def test_retried_requests_are_counted_as_sent_and_failed(judged: Any) -> None:
    root, stub, answers = judged
    stub.retry_after = "0"
    answers.errors = [500, 429]  # the first two requests fail, their retries succeed
    ran = run(root, stub, "--no-cache")
    expected = sent(answers)
    assert (expected.requests, expected.failed) == (4, 2)
    assert_reported(root, ran, expected)


def test_a_dry_run_on_a_warm_cache_says_cached_at_no_cost(judged: Any) -> None:
    root, stub, answers = judged
    cold = checkspec(root, stub, "run", ".", "--dry-run", "--format", "json")
    assert json.loads(cold.stdout)["total"]["calls"] == 2
    assert run(root, stub).returncode == 0
    warm = checkspec(root, stub, "run", ".", "--dry-run", "--format", "json")
    total = json.loads(warm.stdout)["total"]
    assert (total["calls"], total["cached"], total["cost_usd"]) == (0, 2, 0)
    before = len(answers.kept)
    assert run(root, stub).returncode == 0
    assert len(answers.kept) == before  # as the dry run said: nothing sent


LABELLED = """name: labelled
scenarios:
  - name: a
    steps:
      - interacts: [{inputs: q, outputs: 'Sorry, a.'}]
        checks: [{kind: conformity, rule: apologises, expect: pass}]
  - name: b
    steps:
      - interacts: [{inputs: q, outputs: 'Sorry, b.'}]
        checks: [{kind: conformity, rule: apologises, expect: pass}]
"""


def test_calibrate_counts_each_repeat_and_retry(tmp_path: Path) -> None:
    (tmp_path / "checkspec.yaml").write_text(CONFIG)
    (tmp_path / "l.suite.yaml").write_text(LABELLED)
    with running_stub() as stub:
        stub.retry_after = "0"
        answers = Answers(lambda body: VERDICT, errors=(500,))
        stub.chat = answers
        done = checkspec(tmp_path, stub, "calibrate", ".", "--repeat", "2", "--no-cache")
        expected = sent(answers)
        data = json.loads(
            checkspec(
                tmp_path, stub, "calibrate", ".", "--format", "json", "--no-cache", "--no-history"
            ).stdout
        )
        second = sent(answers, expected.requests)
    assert done.returncode == 0, done.stderr
    assert (expected.requests, expected.failed) == (5, 1)  # 2 labels x 2 repeats, 1 retry
    assert f"usage: {expected.text}" in done.stdout
    with closing(HistoryStore(history_path(tmp_path))) as store:
        (listed,) = store.calibrations()
        kept = store.load_calibration(listed["id"])
    assert Numbers.of(kept["calibration"]["usage"]) == expected
    assert Numbers.of(data["calibration"]["usage"]) == second
    assert Numbers.of(data["judges"][0]["usage"]) == second


def test_generate_counts_what_it_sent(tmp_path: Path) -> None:
    (tmp_path / "checkspec.yaml").write_text(CONFIG)
    with running_stub() as stub:
        stub.retry_after = "0"
        answers = Answers(GenerationAnswers(), errors=(429,))
        stub.chat = answers
        done = checkspec(
            tmp_path, stub, "generate", "--preset", "impatient_customer", "-n", "3",
            "-o", "g.dataset.yaml", "--progress", "json", "--no-cache",
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    expected = sent(answers)
    assert expected.requests >= 2 and expected.failed == 1
    final = json.loads(done.stderr.strip().splitlines()[-1])
    assert Numbers.of(final["usage"]) == expected
    assert f"(status: draft); {expected.text}" in done.stderr


LIVE = """name: live
target: python:agent:answer
scenarios:
  - name: a
    steps:
      - interacts: [{inputs: q1}]
        checks: [{kind: conformity, rule: apologises}]
  - name: b
    steps:
      - interacts: [{inputs: q2}]
        checks: [{kind: conformity, rule: apologises}]
"""


def test_a_dry_run_asks_the_cache_with_the_agents_last_answers(tmp_path: Path) -> None:
    """A judge of the agent's live answer cannot be looked up before the agent answers: the
    dry run counts it as a call, and asks the cache with the answers of the last run."""
    (tmp_path / "checkspec.yaml").write_text(CONFIG)
    (tmp_path / "agent.py").write_text("def answer(q):\n    return 'Sorry about ' + q\n")
    (tmp_path / "l.suite.yaml").write_text(LIVE)
    with running_stub() as stub:
        answers = Answers(lambda body: VERDICT)
        stub.chat = answers
        cold = checkspec(tmp_path, stub, "run", ".", "--dry-run", "--format", "json")
        assert json.loads(cold.stdout)["total"]["cached_if_unchanged"] == 0
        assert run(tmp_path, stub).returncode == 0
        warm = checkspec(tmp_path, stub, "run", ".", "--dry-run")
        before = len(answers.kept)
        again = run(tmp_path, stub)
    assert warm.returncode == again.returncode == 0, warm.stderr + again.stderr
    assert "2 of the calls judge the agent's live answers" in warm.stdout
    assert len(answers.kept) == before  # the agent answered the same: nothing sent
    assert again.stderr.strip().endswith("; 0 LLM requests (2 cached), 0 tokens, $0.0000")


EMBEDDED = """name: similar
scenarios:
  - name: a
    steps:
      - interacts: [{inputs: q, outputs: 'Sorry about that.'}]
        checks:
          - {kind: semantic_similarity, reference_text: 'We apologise.', threshold: 0.5}
          - {kind: conformity, rule: apologises}
"""


def test_embeddings_are_counted_beside_the_judges(tmp_path: Path) -> None:
    config = (
        "embedding_model: openai/emb\n"
        + CONFIG
        + (
            f"  openai/emb:\n    input_cost_per_token: {IN_PRICE}\n"
            f"    output_cost_per_token: {OUT_PRICE}\n"
        )
    )
    (tmp_path / "checkspec.yaml").write_text(config)
    (tmp_path / "e.suite.yaml").write_text(EMBEDDED)
    with running_stub() as stub:
        stub.retry_after = "0"
        answers = Answers(lambda body: VERDICT)
        stub.chat = answers
        stub.embeddings = lambda text: [1.0, float(len(text))]
        ran = run(tmp_path, stub, "--repeat", "2", "--no-cache")
        chat = sent(answers)
        embedded_calls = len(stub.embedding_requests)
    assert (chat.requests, embedded_calls) == (2, 2)  # each of the 2 runs: one of each
    # The stub counts an embedding request as 1 prompt token.
    expected = Numbers(
        chat.requests + embedded_calls,
        0,
        0,
        chat.prompt_tokens + embedded_calls,
        chat.completion_tokens,
        round(chat.cost + embedded_calls * IN_PRICE, 6),
    )
    assert_reported(tmp_path, ran, expected)
