"""`checkspec run` as a real process: user code runs in workers and cannot take the run down.

A crash, a hang, a print or Ctrl-C must each end with a complete report (finished
scenarios kept, the rest reported), the right exit code, and stdout holding only the
report.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from tests.support.processes import default_sigint

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]

AGENT = """
import os, sys, time
from pathlib import Path

HERE = Path(__file__).parent

def ok(question):
    return "ok"

def exits(question):
    os._exit(7)

def hangs(question):
    (HERE / f"started-{os.getpid()}-{time.monotonic_ns()}").write_text("")
    time.sleep(3600)

def chatty(question):
    print("hello from the agent")
    print("and its stderr", file=sys.stderr)
    return "ok"

def marks(question):
    (HERE / "called.marker").write_text("")
    return "ok"
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def suite(*targets: str, tags: str = "") -> str:
    parts = ["name: cli runs", "scenarios:"]
    for i, target in enumerate(targets):
        parts += [
            f"  - name: s{i} {target}",
            f"    target: python:agent:{target}",
        ]
        if tags:
            parts.append(f"    tags: [{tags}]")
        parts += [
            "    steps:",
            "      - interacts: [{inputs: hello}]",
            "        checks: [{kind: string_matching, keyword: ok}]",
        ]
    return "\n".join(parts) + "\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path, "agent.py", AGENT)
    return tmp_path


def run(project: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], cwd=project, capture_output=True, text=True, timeout=timeout
    )


def test_a_target_that_exits_the_process_is_one_error_and_the_run_goes_on(project: Path) -> None:
    write(project, "crash.suite.yaml", suite("ok", "exits", "ok"))
    done = run(project, "run", "crash.suite.yaml", "--format", "json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert [s["status"] for s in report["scenarios"]] == ["pass", "error", "pass"]
    error = report["scenarios"][1]["steps"][0]["error"]
    assert "died (exit code 7)" in error["message"]


def test_a_hung_target_is_stopped_at_the_scenario_timeout_and_the_run_exits(project: Path) -> None:
    write(project, "hang.suite.yaml", suite("hangs", "ok"))
    done = run(
        project,
        "run",
        "hang.suite.yaml",
        "--scenario-timeout",
        "1",
        "-o",
        "r.json",
        "--format",
        "json",
        timeout=30,
    )
    assert done.returncode == 1
    report = json.loads((project / "r.json").read_text())
    assert [s["status"] for s in report["scenarios"]] == ["error", "pass"]
    assert report["scenarios"][0]["steps"][0]["error"]["message"] == (
        "did not finish within 1 s (stopped)"
    )


def test_printing_targets_never_reach_the_json_report_on_stdout(project: Path) -> None:
    write(project, "chatty.suite.yaml", suite("chatty"))
    done = run(project, "run", "chatty.suite.yaml", "--format", "json")
    assert done.returncode == 0
    (scenario,) = json.loads(done.stdout)["scenarios"]
    assert "hello from the agent" in scenario["output"]
    assert "and its stderr" in scenario["output"]


def test_output_goes_to_junit_system_out(project: Path) -> None:
    write(project, "chatty.suite.yaml", suite("chatty"))
    done = run(project, "run", "chatty.suite.yaml", "--format", "junit", "-o", "new/dir/r.xml")
    assert done.returncode == 0, done.stderr
    case = ET.parse(project / "new/dir/r.xml").getroot().find(".//testcase")
    assert case is not None
    assert "hello from the agent" in (case.findtext("system-out") or "")


def test_an_unwritable_report_path_is_a_usage_error_before_anything_runs(project: Path) -> None:
    write(project, "marks.suite.yaml", suite("marks"))
    (project / "blocked").write_text("a file, not a folder")
    done = run(project, "run", "marks.suite.yaml", "-o", "blocked/report.json")
    assert done.returncode == 2
    assert "cannot write the report to blocked/report.json" in done.stderr
    assert not (project / "called.marker").exists()


def test_a_bad_target_option_is_a_usage_error(project: Path) -> None:
    write(project, "marks.suite.yaml", suite("marks"))
    done = run(project, "run", "marks.suite.yaml", "--target", "garbage")
    assert done.returncode == 2
    assert "--target: unknown target 'garbage'" in done.stderr
    assert not (project / "called.marker").exists()


def test_a_tag_nothing_has_is_a_usage_error_naming_the_tags(project: Path) -> None:
    write(project, "tagged.suite.yaml", suite("marks", tags="billing, smoke"))
    done = run(project, "run", "tagged.suite.yaml", "--tag", "bilingg")
    assert done.returncode == 2
    assert "no scenario has the tag 'bilingg'; tags in these files: billing, smoke" in done.stderr
    assert not (project / "called.marker").exists()


def test_the_in_process_executor_gives_the_same_report(project: Path) -> None:
    write(project, "same.suite.yaml", suite("ok", "chatty"))
    pooled = json.loads(run(project, "run", "same.suite.yaml", "--format", "json").stdout)
    local = json.loads(
        run(project, "run", "same.suite.yaml", "--format", "json", "--executor", "inprocess").stdout
    )
    assert [s["status"] for s in pooled["scenarios"]] == [s["status"] for s in local["scenarios"]]
    assert pooled["summary"] == local["summary"]


def _start_hanging_run(project: Path, *extra: str) -> subprocess.Popen[str]:
    write(project, "stuck.suite.yaml", suite("ok", "hangs", "hangs", "hangs"))
    process = subprocess.Popen(
        [*CLI, "run", "stuck.suite.yaml", "--jobs", "2", "--concurrency", "4", *extra],
        preexec_fn=default_sigint,
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while len(list(project.glob("started-*"))) < 3:  # every hanging scenario is running
        assert time.monotonic() < deadline, "the scenarios never started"
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    return process


def test_ctrl_c_writes_the_report_with_what_finished_and_exits_130(project: Path) -> None:
    process = _start_hanging_run(project, "--format", "json", "-o", "out/report.json")
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=20)
    assert process.returncode == 130, err
    report = json.loads((project / "out/report.json").read_text())
    assert report["interrupted"] is True
    assert [s["status"] for s in report["scenarios"]] == ["pass", "skip", "skip", "skip"]
    assert report["scenarios"][1]["steps"][0]["skip_reason"] == "not run: the run was cancelled"
    _assert_no_worker_left(project)


def test_a_second_ctrl_c_stops_at_once(project: Path) -> None:
    process = _start_hanging_run(project)
    # The first asks for a clean stop; ignore its effect by sending the second at once.
    process.send_signal(signal.SIGINT)
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=20)
    assert process.returncode == 130
    _assert_no_worker_left(project)


def _assert_no_worker_left(project: Path) -> None:
    """The workers whose pids the hanging target recorded are gone."""
    pids = {int(p.name.split("-")[1]) for p in project.glob("started-*")}
    deadline = time.monotonic() + 10
    while pids:
        pids = {pid for pid in pids if _alive(pid)}
        assert time.monotonic() < deadline, f"workers still alive: {pids}"
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes (its parent, the test's child, is gone too).
    try:
        return "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return False


def test_workers_do_not_outlive_a_killed_run(project: Path) -> None:
    process = _start_hanging_run(project)
    process.kill()  # SIGKILL: no chance to clean up; the workers see their input end
    process.communicate(timeout=20)
    _assert_no_worker_left(project)


def test_a_missing_worker_interpreter_is_a_usage_error(project: Path) -> None:
    write(project, "marks.suite.yaml", suite("marks"))
    write(project, "checkspec.yaml", "python: .venv/bin/not-there\n")
    done = run(project, "run", "marks.suite.yaml")
    assert done.returncode == 2
    assert "cannot start checkspec worker processes with" in done.stderr
    assert ".venv/bin/not-there: No such file or directory" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--scenario-timeout", "0", "must be a positive number of seconds"),
        ("--scenario-timeout", "soon", "expected a number of seconds"),
        ("--jobs", "-1", "must be at least 0"),
        ("--concurrency", "0", "must be at least 1"),
    ],
)
def test_bad_run_options_are_usage_errors(
    project: Path, option: str, value: str, said: str
) -> None:
    write(project, "marks.suite.yaml", suite("marks"))
    done = run(project, "run", "marks.suite.yaml", option, value)
    assert done.returncode == 2 and said in done.stderr
    assert not (project / "called.marker").exists()


def test_the_cli_process_itself_never_imports_user_code_or_litellm(project: Path) -> None:
    write(project, "judged.suite.yaml", suite("chatty"))
    (project / "judged.suite.yaml").write_text(
        (project / "judged.suite.yaml")
        .read_text()
        .replace(
            "checks: [{kind: string_matching, keyword: ok}]",
            "checks: [{kind: string_matching, keyword: ok}, {kind: conformity, rule: polite}]",
        )
    )
    launch = (
        "import atexit, json, sys\n"
        "atexit.register(lambda: open('modules.json', 'w').write(json.dumps(sorted(sys.modules))))\n"
        "from checkspec.engine.cli.main import main\n"
        "sys.exit(main(['run', 'judged.suite.yaml', '--format', 'json', '--model', 'openai/x']))\n"
    )
    # The judge is called (and imports litellm) in the worker; a closed local port answers.
    env = {**os.environ, "CHECKSPEC_API_BASE": "http://127.0.0.1:9", "CHECKSPEC_API_KEY": "x"}
    done = subprocess.run(
        [sys.executable, "-c", launch],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    (scenario,) = json.loads(done.stdout)["scenarios"]
    assert scenario["status"] == "error"
    assert "hello from the agent" in scenario["output"]  # the agent did run, elsewhere
    loaded = json.loads((project / "modules.json").read_text())
    assert "agent" not in loaded
    assert not [m for m in loaded if m.split(".")[0] in ("litellm", "regorus")]


def test_a_json_report_writes_a_scenario_a_line(project: Path) -> None:
    # Indented JSON has no C encoder: a 10,000-scenario report took seconds to write.
    write(project, "lines.suite.yaml", suite("ok", "ok", "chatty"))
    done = run(project, "run", "lines.suite.yaml", "--format", "json")
    rows = [line.strip().rstrip(",") for line in done.stdout.splitlines() if '"steps"' in line]
    assert [json.loads(row)["scenario_name"] for row in rows] == ["s0 ok", "s1 ok", "s2 chatty"]
    assert json.loads(done.stdout)["summary"]["pass"] == 3
