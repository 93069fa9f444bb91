# ruff: noqa: SLF001  (the reference library's private names are what is tested)
"""giskard-checks' private helpers that code and tests written for it import from its
module paths, and the suite's live progress display (verbose runs)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest
from pydantic import ValidationError

from checkspec.engine import Equals, Scenario, Suite, Trace
from checkspec.engine.core.result import ScenarioStatus
from checkspec.engine.core.sentinel import MISSING


class MyTrace(Trace[str, str]):
    """A custom trace type (module level: annotations are resolved by name)."""


def agent(inputs: str, trace: MyTrace) -> str:
    return inputs.upper()


def test_the_type_hint_helpers_have_their_reference_names() -> None:
    inference = importlib.import_module("checkspec.engine.utils.inference")
    interact = importlib.import_module("checkspec.engine.core.interaction.interact")
    assert inference._infer_trace_type(agent) is MyTrace
    assert inference._infer_trace_type(lambda x: x) is None
    assert inference._infer_input_type(agent) is str
    assert interact._infer_input_type("static value") is None


def test_the_runner_helpers_resolve_the_trace_type_and_bind_the_target() -> None:
    runner = importlib.import_module("checkspec.engine.scenarios.runner")
    scenario = Scenario("s").interact("hi")
    assert runner._resolve_trace_type(scenario, agent) is MyTrace
    assert runner._resolve_trace_type(scenario, MISSING) is Trace
    assert runner._resolve_trace_type(Scenario("t", trace_type=MyTrace), MISSING) is MyTrace
    assert runner._build_steps(scenario, MISSING) == list(scenario.steps)
    bound = runner._build_steps(scenario, agent)
    assert bound[0].interacts[0].outputs is agent
    assert scenario.steps[0].interacts[0].outputs is not agent  # a copy


def test_the_jsonpath_marker_and_validator_have_their_reference_names() -> None:
    extraction = importlib.import_module("checkspec.engine.core.extraction")
    metadata = extraction.JSONPathStr.__metadata__
    assert any(isinstance(m, extraction._JSONPathStrMarker) for m in metadata)
    assert extraction._validate_jsonpath_syntax("trace.last.outputs") == "trace.last.outputs"
    with pytest.raises(ValueError, match="Invalid JSONPath"):
        extraction._validate_jsonpath_syntax("trace.last.outputs[")
    with pytest.raises(ValidationError):
        Equals(expected_value=1, target_key="trace.last.outputs[")


def test_require_optional_dependency_says_how_to_install() -> None:
    optional_deps = importlib.import_module("checkspec.engine.utils.optional_deps")
    assert optional_deps.require_optional_dependency("json", install_hint="x").dumps
    with pytest.raises(ValueError, match="pip install nothing-here"):
        optional_deps.require_optional_dependency(
            "nothing_here_module", install_hint="pip install nothing-here"
        )


def test_progress_summary_lists_the_counts_in_the_summarys_order() -> None:
    from checkspec.engine.scenarios.suite import _SuiteProgress

    progress = _SuiteProgress(disable=True)
    assert progress._summary_renderable() is None
    for status in [ScenarioStatus.PASS] * 3 + [ScenarioStatus.ERROR, ScenarioStatus.SKIP] * 2:
        progress.record(status)
    summary = progress._summary_renderable()
    assert summary is not None
    assert summary.plain.strip() == "2 errored, 2 skipped, 3 passed"


def test_the_counter_shows_only_on_the_overall_row() -> None:
    from rich.progress import MofNCompleteColumn, Progress

    from checkspec.engine.scenarios.suite import _OverallOnly

    column = _OverallOnly(MofNCompleteColumn())
    with Progress(column, disable=True) as progress:
        overall = progress.add_task("overall", total=4, completed=3, overall=True)
        row = progress.add_task("row", total=None)
        tasks = {t.id: t for t in progress.tasks}
    assert column.render(tasks[overall]).plain == "3/4"
    assert column.render(tasks[row]).plain == ""


@pytest.mark.parametrize("parallel", [False, True])
async def test_a_verbose_suite_run_records_each_outcome(
    parallel: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from checkspec.engine.scenarios import suite_progress

    recorded: list[ScenarioStatus] = []
    rows: list[str] = []
    original_row = suite_progress._SuiteProgress.scenario_row
    monkeypatch.setattr(
        suite_progress._SuiteProgress, "record", lambda self, status: recorded.append(status)
    )

    def scenario_row(self: suite_progress._SuiteProgress, name: str) -> object:
        rows.append(name)
        return original_row(self, name)

    monkeypatch.setattr(suite_progress._SuiteProgress, "scenario_row", scenario_row)
    suite = Suite(name="progress")
    suite.append(Scenario("ok").interact("a", "a"))
    suite.append(
        Scenario("bad")
        .interact("b", "c")
        .check(Equals(expected_value="b", target_key="trace.last.outputs"))
    )
    await suite.run(parallel=parallel, verbose=True)
    assert sorted(recorded) == sorted([ScenarioStatus.PASS, ScenarioStatus.FAIL])
    assert rows == (["ok", "bad"] if parallel else [])


def test_importing_the_suite_does_not_load_rich() -> None:
    code = (
        "import sys; import checkspec.engine.scenarios.suite as s; "
        "assert 'rich' not in sys.modules, 'rich'; s._SuiteProgress; "
        "assert 'rich.progress' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
