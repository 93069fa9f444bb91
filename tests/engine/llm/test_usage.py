"""What model calls cost: tokens from the provider's answers, dollars from the model's
price (checkspec.yaml's `models:`, else litellm's local price map), per check, scenario
and run, in every report; cached answers count as cached, at no cost."""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from checkspec.engine import Scenario
from checkspec.engine.core.usage import Usage
from checkspec.engine.judges import Conformity, Generator, clear_cache, set_default_generator
from checkspec.engine.llm import usage
from checkspec.engine.llm.client import _litellm
from tests.support import budget
from tests.support.cli import Done, run_main
from tests.support.openai_stub import OpenAIStub, SlowVerdicts, judged_suite, running_stub

VERDICT = OpenAIStub.verdict(True, "It apologises.")


def _expected(stub: OpenAIStub) -> tuple[int, int]:
    prompt = sum(
        len(str(m["content"]).split()) for body in stub.chat_requests for m in body["messages"]
    )
    return prompt, len(VERDICT.split()) * len(stub.chat_requests)


def _run(project: Path, stub: OpenAIStub, *args: str) -> Done:
    """`checkspec run .` in-process (tests/support/cli.py): the engine and litellm are
    imported once, not by a process of each run; the judges still run in its workers."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CHECKSPEC_API_BASE", stub.base_url)
        patch.setenv("CHECKSPEC_API_KEY", "sk-test")
        return run_main(project, "run", ".", *args)


def _project(tmp_path: Path, model: str, prices: str = "") -> Path:
    (tmp_path / "checkspec.yaml").write_text(f"model: {model}\njobs: 1\n{prices}")
    (tmp_path / "j.suite.yaml").write_text(judged_suite(3))
    return tmp_path


def test_tokens_and_cost_of_a_run_with_configured_prices(tmp_path: Path) -> None:
    prices = "models:\n  openai/private:\n    input_cost_per_token: 0.001\n    output_cost_per_token: 0.002\n"
    project = _project(tmp_path, "openai/private", prices)
    with running_stub() as stub:
        stub.chat = lambda body: VERDICT
        done = _run(project, stub, "--format", "json", "-o", "r.json", "--no-cache")
        prompt, completion = _expected(stub)
    assert done.returncode == 0, done.stderr
    report = json.loads((project / "r.json").read_text())
    assert len(stub.chat_requests) == 3
    assert report["usage"] == {
        "requests": 3,
        "failed": 0,
        "cached": 0,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "cost_usd": pytest.approx(prompt * 0.001 + completion * 0.002),
        "unpriced": 0,
    }
    for scenario in report["scenarios"]:
        assert scenario["usage"]["requests"] == 1
        (check,) = scenario["steps"][0]["results"]
        assert check["details"]["usage"] == scenario["usage"]
    assert sum(s["usage"]["prompt_tokens"] for s in report["scenarios"]) == prompt


def test_the_text_summary_junit_and_sarif_say_what_it_cost(tmp_path: Path) -> None:
    prices = "models:\n  openai/private:\n    input_cost_per_token: 0.01\n    output_cost_per_token: 0.01\n"
    project = _project(tmp_path, "openai/private", prices)
    with running_stub() as stub:
        stub.chat = lambda body: VERDICT
        text = _run(project, stub, "--no-cache")
        junit = _run(project, stub, "--no-cache", "--format", "junit", "-o", "r.xml")
        sarif = _run(project, stub, "--no-cache", "--format", "sarif", "-o", "r.sarif")
    assert text.returncode == junit.returncode == sarif.returncode == 0, text.stderr
    assert re.search(r"; 3 LLM requests, \d+ tokens, \$\d+\.\d{4}$", text.stdout.strip())
    cases = ET.parse(project / "r.xml").getroot().iter("testcase")
    names = {p.get("name"): p.get("value") for case in cases for p in case.iter("property")}
    assert names["usage.requests"] == "1" and float(names["usage.cost_usd"]) > 0
    run = json.loads((project / "r.sarif").read_text())["runs"][0]
    assert run["properties"]["usage"]["requests"] == 3


def test_cached_answers_cost_nothing(tmp_path: Path) -> None:
    prices = "models:\n  openai/private:\n    input_cost_per_token: 0.001\n    output_cost_per_token: 0.001\n"
    project = _project(tmp_path, "openai/private", prices)
    with running_stub() as stub:
        stub.chat = lambda body: VERDICT
        first = _run(project, stub, "--format", "json")
        second = _run(project, stub, "--format", "json")
    assert first.returncode == second.returncode == 0, second.stderr
    assert len(stub.chat_requests) == 3  # the second run asked nothing
    spent = json.loads(second.stdout)["usage"]
    assert spent["requests"] == 0 and spent["cached"] == 3 and spent["cost_usd"] == 0


def test_litellm_price_map_prices_a_known_model(tmp_path: Path) -> None:
    project = _project(tmp_path, "openai/gpt-4o-mini")
    with running_stub() as stub:
        stub.chat = lambda body: VERDICT
        done = _run(project, stub, "--format", "json", "--no-cache")
        prompt, completion = _expected(stub)
    assert done.returncode == 0, done.stderr
    price = _litellm().model_cost["gpt-4o-mini"]
    expected = prompt * price["input_cost_per_token"] + completion * price["output_cost_per_token"]
    spent = json.loads(done.stdout)["usage"]
    assert spent["unpriced"] == 0 and spent["cost_usd"] == pytest.approx(expected)


def test_the_price_file_is_read_once_a_process_and_cannot_be_changed() -> None:
    # One parsed copy (3.4 MB of JSON) shared by every caller: none may change it.
    first = usage.litellm_price_file()
    assert usage.litellm_price_file() is first
    assert first["gpt-4o-mini"]["input_cost_per_token"] > 0
    with pytest.raises(TypeError):
        first["gpt-4o-mini"] = {}  # type: ignore[index]


def test_an_unknown_model_is_counted_unpriced(tmp_path: Path) -> None:
    project = _project(tmp_path, "openai/nobody-knows-me")
    with running_stub() as stub:
        stub.chat = lambda body: VERDICT
        done = _run(project, stub, "--no-cache")
    assert done.returncode == 0, done.stderr
    assert "3 LLM requests" in done.stdout and "$?" in done.stdout


async def test_a_scenario_and_its_checks_carry_their_usage() -> None:
    clear_cache()
    with running_stub() as stub:
        stub.chat = lambda body: VERDICT
        set_default_generator(Generator(model="openai/judge", api_base=stub.base_url, api_key="k"))
        try:
            scenario = (
                Scenario(name="s")
                .interact(inputs="hi", outputs="Sorry.")
                .check(Conformity(rule="apologises"))
                .check(Conformity(rule="apologises"))  # the same call: one request, one cached
            )
            result = await scenario.run()
        finally:
            set_default_generator(None)
            clear_cache()
    assert result.passed, result
    assert result.usage is not None
    assert (result.usage.requests, result.usage.cached) == (1, 1)
    first, second = result.steps[0].results
    assert first.details["usage"]["requests"] == 1 and second.details["usage"]["cached"] == 1


def test_usage_adds_up_and_describes_itself() -> None:
    a = Usage(requests=2, prompt_tokens=10, completion_tokens=4, cost_usd=0.5)
    b = Usage(requests=1, cached=3, prompt_tokens=1, completion_tokens=1, unpriced=1)
    total = Usage.total([a, None, b])
    assert total == Usage(
        requests=3, cached=3, prompt_tokens=11, completion_tokens=5, cost_usd=0.5, unpriced=1
    )
    assert total.describe() == "3 LLM requests (3 cached), 16 tokens, $0.5000 + 1 unpriced"
    assert not Usage()


def test_no_open_count_records_nothing_and_prices_resolve_in_order() -> None:
    usage.record_request("m", {"usage": {"prompt_tokens": 5}})  # nothing open: no error
    price_map: dict[str, Any] = {
        "gpt-x": {"input_cost_per_token": 1.0, "output_cost_per_token": 2.0}
    }
    assert usage.price_of("openai/gpt-x", price_map) == (1.0, 2.0)
    usage.set_prices({"openai/gpt-x": (0.5, 0.5)})
    try:
        assert usage.price_of("openai/gpt-x", price_map) == (0.5, 0.5)
    finally:
        usage.set_prices({})
    assert usage.price_of("unknown", price_map) is None
    assert usage.price_of(None, price_map) is None
    with usage.Meter() as outer, usage.Meter() as inner:
        usage.record_request(
            "gpt-x", {"usage": {"prompt_tokens": 3, "completion_tokens": -1}}, price_map
        )
    assert inner.usage == outer.usage == Usage(requests=1, prompt_tokens=3, cost_usd=3.0)


# -- checkspec run --dry-run ---------------------------------------------------------------

TARGETED = """\
name: targeted
target: python:marker_agent:answer
scenarios:
  - name: simulated
    steps:
      - interacts:
          - inputs: {kind: user_simulator, persona: an impatient customer, max_steps: 4}
        checks: [{kind: conformity, rule: stays polite}]
"""


def test_a_dry_run_sends_nothing_and_runs_no_user_code(tmp_path: Path) -> None:
    project = _project(tmp_path, "openai/gpt-4o-mini")
    (project / "t.suite.yaml").write_text(TARGETED)
    (project / "marker_agent.py").write_text(
        "import pathlib\npathlib.Path('imported').write_text('yes')\n"
        "def answer(inputs):\n    return 'ok'\n"
    )
    with running_stub() as stub:
        done = _run(project, stub, "--dry-run", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert stub.chat_requests == [] and not (project / "imported").exists()
    plan = json.loads(done.stdout)
    (row,) = plan["models"]
    # 3 judged scenarios + the simulated one: 4 user turns and its judge.
    assert (row["model"], row["calls"], row["cached"]) == ("openai/gpt-4o-mini", 3 + 4 + 1, 0)
    assert row["prompt_tokens"] > 0 and row["cost_usd"] > 0
    assert plan["total"]["calls"] == 8


def test_a_dry_run_counts_what_the_cache_holds_as_cached(tmp_path: Path) -> None:
    project = _project(tmp_path, "openai/private")
    with running_stub() as stub:
        stub.chat = lambda body: VERDICT
        assert _run(project, stub).returncode == 0  # fills the verdict cache
        done = _run(project, stub, "--dry-run")
    assert len(stub.chat_requests) == 3, "the dry run sent a request"
    assert done.returncode == 0, done.stderr
    total = next(line for line in done.stdout.splitlines() if line.startswith("total"))
    assert total.split()[1:3] == ["0", "3"]  # no call, three cached answers
    assert "$0.0000" in total


def test_a_dry_run_without_prices_says_so(tmp_path: Path) -> None:
    project = _project(tmp_path, "openai/nobody-knows-me")
    with running_stub() as stub:
        done = _run(project, stub, "--dry-run", "-o", "plan.txt")
    assert done.returncode == 0, done.stderr
    text = (project / "plan.txt").read_text()
    assert "openai/nobody-knows-me" in text and "unknown (no price)" in text


# -- the run's budget: max_cost ------------------------------------------------------------


@pytest.mark.parametrize("executor", ["process", "inprocess"])
def test_the_budget_holds_across_workers(tmp_path: Path, executor: str) -> None:
    # On a Ray cluster: tests/engine/executor/test_ray_executor.py.
    (tmp_path / "checkspec.yaml").write_text(budget.CONFIG)
    (tmp_path / "j.suite.yaml").write_text(budget.SUITE)
    with running_stub() as stub:
        stub.chat = SlowVerdicts(0.2)
        done = _run(tmp_path, stub, *budget.ARGS, "--executor", executor)
    budget.assert_budget_held(done.returncode, done.stdout, done.stderr, stub)


def test_max_cost_comes_from_checkspec_yaml_and_the_environment(tmp_path: Path) -> None:
    from checkspec.engine.settings import ConfigUnreadable, resolve_settings, run_settings
    from checkspec.engine.spec.workspace import find_workspace

    (tmp_path / "checkspec.yaml").write_text("max_cost: 2.5\n")
    workspace = find_workspace([tmp_path])
    assert resolve_settings(workspace).max_cost == 2.5
    os.environ["CHECKSPEC_MAX_COST"] = "0.75"
    try:
        assert resolve_settings(workspace).max_cost == 0.75
        os.environ["CHECKSPEC_MAX_COST"] = "lots"  # not a number: a run refuses it
        assert resolve_settings(workspace).max_cost == 2.5  # the lenient view (the editor)
        with pytest.raises(ConfigUnreadable, match="CHECKSPEC_MAX_COST='lots'"):
            run_settings(workspace)
    finally:
        del os.environ["CHECKSPEC_MAX_COST"]
    assert resolve_settings(workspace, max_cost=0.1).max_cost == 0.1


async def test_the_limiter_refuses_past_the_budget_and_for_good() -> None:
    from checkspec.engine.llm.limits import BudgetReached, RateLimiter

    limiter = RateLimiter((), max_cost=1.0)
    first = await limiter.acquire("m", 10, 0.6)
    with pytest.raises(BudgetReached, match=r"budget reached: \$0.0000 spent and \$0.6000"):
        await limiter.acquire("m", 10, 0.6)  # 0.6 held + 0.6 > 1.0
    await limiter.release(first, 0.2)
    assert (limiter.spent, limiter.held) == (0.2, 0.0)
    with pytest.raises(BudgetReached):
        await limiter.acquire("m", 10, 0.1)  # once reached, no new call starts
    unlimited = RateLimiter(())
    ticket = await unlimited.acquire("m", 10, 99.0)
    await unlimited.release(ticket, 99.0)


async def test_every_run_of_multiple_runs_is_counted() -> None:
    """`multiple_runs`: the scenario runs again while it passes; its usage is all its
    runs' (the second run's judge call is answered by the first's, in the run's cache)."""
    clear_cache()
    with running_stub() as stub:
        stub.chat = lambda body: VERDICT
        set_default_generator(Generator(model="openai/judge", api_base=stub.base_url, api_key="k"))
        try:
            scenario = (
                Scenario(name="s", multiple_runs=2)
                .interact(inputs="hi", outputs="Sorry.")
                .check(Conformity(rule="apologises"))
            )
            result = await scenario.run()
        finally:
            set_default_generator(None)
            clear_cache()
    assert result.runs_executed == 2 and result.usage is not None
    assert (result.usage.requests, result.usage.cached) == (len(stub.chat_requests), 1) == (1, 1)
