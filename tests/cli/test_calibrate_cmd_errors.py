"""`checkspec calibrate` and `checkspec label` refusing bad input and saying why (exit 2),
an empty calibration (nothing checked: exit 5, with a bar or not), the selection narrowing what is calibrated,
and `label --from-run` with a JSON report whose scenario cannot give the answers. In-process
(tests/support/cli.py); none of these calls a model, but the one with a judge (the stub)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import Done, run_main
from tests.support.openai_stub import OpenAIStub, running_stub

NO_LABELS = """\
name: plain
steps:
  - interacts: [{inputs: hi, outputs: yo}]
    checks:
      - {kind: equals, expected_value: yo}
"""

LABELLED = """\
name: judged
steps:
  - interacts: [{inputs: hi, outputs: yo}]
    checks:
      - kind: llm_judge
        prompt: 'fine? {{ trace.last.outputs }}'
        expect: fail
"""


SUITE = """\
name: s
scenarios:
  - name: judged
    steps:
      - interacts: [{inputs: hi, outputs: yo}]
        checks:
          - {kind: llm_judge, prompt: 'fine? {{ trace.last.outputs }}', expect: fail}
  - name: plain
    steps:
      - interacts: [{inputs: a, outputs: b}]
"""


def cli(root: Path, *args: str) -> Done:
    # No model anywhere: a call to one would fail the command.
    return run_main(root, *args, unset=("CHECKSPEC_", "OPENAI_"))


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--min-agreement", "most", "expected a number, got 'most'"),
        ("--min-agreement", "1.5", "expected a share between 0 and 1, got '1.5'"),
        ("--min-kappa", "high", "expected a number, got 'high'"),
        ("--min-kappa", "-2", "expected a kappa between -1 and 1, got '-2'"),
        ("--max-cost", "cheap", "expected dollars, got 'cheap'"),
        ("--max-cost", "0", "expected more than 0 dollars, got '0'"),
        ("--repeat", "twice", "expected a whole number, got 'twice'"),
        ("--repeat", "0", "expected at least 1, got '0'"),
    ],
)
def test_a_bad_option_value_is_a_usage_error(
    tmp_path: Path, option: str, value: str, said: str
) -> None:
    (tmp_path / "t.scenario.yaml").write_text(NO_LABELS)
    done = cli(tmp_path, "calibrate", ".", option, value)
    assert done.returncode == 2
    assert f"argument {option}: {said}" in done.stderr
    assert done.stdout == ""


def test_nothing_labelled_is_nothing_checked_bar_or_not(tmp_path: Path) -> None:
    (tmp_path / "t.scenario.yaml").write_text(NO_LABELS)
    plain = cli(tmp_path, "calibrate", ".")
    assert plain.returncode == 5, plain.stderr
    assert "0 labelled check(s), 0 judge(s)" in plain.stdout
    assert "nothing checked: no labelled check in the selection" in plain.stdout
    for bar in (["--min-agreement", "0.5"], ["--min-kappa", "0.2"]):
        barred = cli(tmp_path, "calibrate", ".", *bar)
        assert barred.returncode == 5
        assert "nothing checked: no labelled check in the selection" in barred.stdout
    # Nothing was calibrated: nothing is kept in the history.
    assert not (tmp_path / ".checkspec" / "history.db").exists()


def test_disabled_labels_are_left_out_and_counted(tmp_path: Path) -> None:
    (tmp_path / "t.scenario.yaml").write_text(
        LABELLED.replace("        expect: fail\n", "        expect: fail\n        enabled: false\n")
    )
    done = cli(tmp_path, "calibrate", "t.scenario.yaml", "--format", "json")
    assert done.returncode == 5, done.stderr  # nothing was judged
    assert "left out: 1 labelled check(s) disabled (enabled: false)" in done.stderr  # JSON out
    assert "nothing checked: no labelled check in the selection" in done.stderr  # JSON out
    data = json.loads(done.stdout)
    assert data["judges"] == [] and data["calibration"]["labels"] == 0


def test_a_scenario_selector_calibrates_only_that_scenario(tmp_path: Path) -> None:
    # The labelled scenario would need a model (none is configured): left out, nothing fails.
    (tmp_path / "t.suite.yaml").write_text(SUITE)
    done = cli(tmp_path, "calibrate", "t.suite.yaml::plain", "--format", "json")
    assert done.returncode == 5, done.stderr
    assert "nothing checked: no labelled check in the selection" in done.stderr
    assert json.loads(done.stdout)["calibration"]["labels"] == 0


def test_an_unwritable_output_is_refused(tmp_path: Path) -> None:
    (tmp_path / "t.scenario.yaml").write_text(NO_LABELS)
    (tmp_path / "out").mkdir()
    folder = cli(tmp_path, "calibrate", ".", "-o", "out")
    assert folder.returncode == 2
    assert "error: cannot write to out: it is a folder" in folder.stderr
    # A device that takes the open but not the bytes: the write's own error is said.
    if Path("/dev/full").exists():
        full = cli(tmp_path, "calibrate", ".", "-o", "/dev/full")
        assert full.returncode == 2
        assert "error: cannot write /dev/full: No space left on device" in full.stderr
        assert "wrote" not in full.stderr
    written = cli(tmp_path, "calibrate", ".", "-o", "sub/cal.md", "--format", "markdown")
    assert written.returncode == 5 and "wrote sub/cal.md" in written.stderr  # nothing labelled
    assert "0 labelled check(s)" in (tmp_path / "sub" / "cal.md").read_text()


def test_paths_in_two_workspaces_are_refused(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "checkspec.yaml").write_text("model: openai/x\n")
        (tmp_path / name / "t.scenario.yaml").write_text(NO_LABELS)
    done = cli(tmp_path, "calibrate", "a", "b")
    assert done.returncode == 2
    assert "belong to two workspaces" in done.stderr and "Traceback" not in done.stderr


def test_missing_selectors_and_unmatched_filters_exit_2(tmp_path: Path) -> None:
    (tmp_path / "t.scenario.yaml").write_text(NO_LABELS)
    missing = cli(tmp_path, "calibrate", "nope.scenario.yaml")
    assert missing.returncode == 2
    assert "error: nope.scenario.yaml: no such file or folder" in missing.stderr
    assert "fix the problems above to calibrate" in missing.stderr
    tagged = cli(tmp_path, "calibrate", ".", "--tag", "smoke")
    assert tagged.returncode == 2 and "smoke" in tagged.stderr
    assert tagged.stdout == ""


def write_report(root: Path, scenarios: list[object]) -> str:
    report = {"format": "checkspec-run/1", "run": {"id": "r1"}, "scenarios": scenarios}
    (root / "run.json").write_text(json.dumps(report))
    return "run.json"


def test_label_from_a_report_that_cannot_give_the_answers_is_refused(tmp_path: Path) -> None:
    (tmp_path / "checkspec.yaml").write_text("model: openai/judge\n")
    text = LABELLED.replace("        expect: fail\n", "")
    text = text.replace("[{inputs: hi, outputs: yo}]", "[{inputs: hi}]")
    path = tmp_path / "t.scenario.yaml"
    path.write_text(text)
    identity = "t.scenario.yaml::judged"
    cases = [
        # a run that replayed the recorded answers has none of its own to record
        ([{"id": identity, "replayed": True, "final_trace": {"interactions": []}}], "replayed"),
        # the scenario is in the run but its trace holds no interactions
        (["not a scenario", {"id": identity, "final_trace": None}], "not in that run"),
        # the run has other scenarios only
        ([{"id": "other::x", "final_trace": {"interactions": []}}], "not in that run"),
    ]
    for scenarios, said in cases:
        report = write_report(tmp_path, scenarios)
        done = cli(tmp_path, "label", "t.scenario.yaml:6", "pass", "--from-run", report)
        assert done.returncode == 2, scenarios
        assert said in done.stderr
    assert path.read_text() == text  # nothing written
    # The same report with the answers: recorded, then labelled.
    turns = {"interactions": [{"outputs": "recorded"}]}
    report = write_report(tmp_path, [{"id": identity, "final_trace": turns}])
    done = cli(tmp_path, "label", "t.scenario.yaml:6", "pass", "--from-run", report)
    assert done.returncode == 0, done.stderr
    assert "t.scenario.yaml:6: labelled pass" in done.stderr
    assert "outputs: recorded" in path.read_text() and "expect: pass" in path.read_text()


@pytest.mark.parametrize("place", ["t.scenario.yaml:0", "t.scenario.yaml:x", ":4", "t:٣"])
def test_label_wants_a_file_and_a_1_based_line(tmp_path: Path, place: str) -> None:
    (tmp_path / "t.scenario.yaml").write_text(LABELLED)
    done = cli(tmp_path, "label", place, "pass")
    assert done.returncode == 2
    assert f"error: {place}: expected FILE:LINE (a 1-based line)" in done.stderr


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with running_stub() as found:
        found.chat = lambda body: found.verdict(True, "all fine")  # the judge passes all
        yield found


def test_a_judge_that_always_passes_has_no_kappa_and_fails_a_kappa_bar(
    tmp_path: Path, stub: OpenAIStub
) -> None:
    (tmp_path / "checkspec.yaml").write_text("model: openai/judge\n")
    (tmp_path / "t.scenario.yaml").write_text(LABELLED.replace("expect: fail", "expect: pass"))
    env = {"CHECKSPEC_API_BASE": stub.base_url, "CHECKSPEC_API_KEY": "test-key"}

    def calibrate(*args: str) -> Done:
        # Worker processes (the default executor): on Python 3.11 the in-process executor's
        # cancelled tasks leave the lines after it untraced (cpython#106749), and these
        # lines are what this test is about.
        return run_main(tmp_path, "calibrate", ".", *args, env=env, unset=("CHECKSPEC_", "OPENAI_"))

    kappa = calibrate("--min-kappa", "0.5")
    assert kappa.returncode == 1, kappa.stderr
    assert "below the bar: llm_judge @ openai/judge" in kappa.stderr
    assert ": kappa undefined < 0.500" in kappa.stderr
    # Kept in the history (no --no-history given).
    assert (tmp_path / ".checkspec" / "history.db").exists()
    agreement = calibrate("--min-agreement", "1", "--no-history")
    assert agreement.returncode == 0, agreement.stderr  # 1 of 1 agrees
    assert "below the bar" not in agreement.stderr
