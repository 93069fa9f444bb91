"""The checkspec command: exit codes, output formats, targets, validate without imports."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from sarif_pydantic import Sarif

from checkspec.engine.cli.main import main

AGENT = """
import time
from pathlib import Path

Path(__file__).with_name("imported.marker").write_text("imported")

def answer(question):
    return "We offer a 30-day refund."

async def answer_async(question, trace):
    return f"turn {len(trace.interactions) + 1}: refund"

def crash(question):
    raise RuntimeError("database is down")

def slow(question):
    time.sleep(1.5)
    return "too late"
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def scenario(name: str, target: str | None, keyword: str = "refund", outputs: str = "") -> str:
    lines = [f"name: {name}"]
    if target:
        lines.append(f"target: '{target}'")
    lines += [
        "steps:",
        "  - interacts:",
        "      - inputs: What is your refund policy?",
    ]
    if outputs:
        lines.append(f"        outputs: {outputs}")
    lines += ["    checks:", f"      - {{kind: string_matching, keyword: {keyword}}}", ""]
    return "\n".join(lines)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    write(tmp_path, "agent.py", AGENT)
    write(tmp_path, "checkspec.yaml", "target_timeout: 0.5\n")
    return tmp_path


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_run_passes_with_a_python_target_resolved_next_to_the_file(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(workspace, "a.scenario.yaml", scenario("ok", "python:agent:answer"))
    code, out, _ = run_cli(capsys, "run", str(path))
    assert code == 0
    assert out.startswith("PASS  ok") and "1 passed" in out and "replayed" not in out


def test_async_target_taking_inputs_and_trace(workspace: Path, capsys) -> None:
    path = write(
        workspace, "a.scenario.yaml", scenario("turn", "python:agent:answer_async", "turn 1")
    )
    assert run_cli(capsys, "run", str(path))[0] == 0


def test_failing_check_exits_1_and_names_the_check_and_its_line(workspace: Path, capsys) -> None:
    path = write(workspace, "a.scenario.yaml", scenario("bad", "python:agent:answer", "never"))
    code, out, _ = run_cli(capsys, "run", str(path))
    assert code == 1
    assert f"FAIL string_matching at {path}:7: The answer does not contain the keyword" in out


def test_replay_without_a_target_says_so(workspace: Path, capsys) -> None:
    path = write(workspace, "a.scenario.yaml", scenario("r", None, outputs="A refund is possible."))
    code, out, _ = run_cli(capsys, "run", str(path))
    assert code == 0 and "(replayed)" in out and "1 replayed recorded outputs" in out


def test_crashing_and_slow_targets_are_errors_and_the_run_goes_on(workspace: Path, capsys) -> None:
    write(workspace, "a.scenario.yaml", scenario("crash", "python:agent:crash"))
    write(workspace, "b.scenario.yaml", scenario("slow", "python:agent:slow"))
    write(workspace, "c.scenario.yaml", scenario("fine", "python:agent:answer"))
    code, out, _ = run_cli(capsys, "run", str(workspace))
    assert code == 1
    assert "RuntimeError during interaction: database is down" in out
    assert "did not answer within 0.5s" in out
    assert "PASS  fine" in out


def test_missing_target_module_is_an_error_result(workspace: Path, capsys) -> None:
    path = write(workspace, "a.scenario.yaml", scenario("nope", "python:no_such_module:fn"))
    code, out, _ = run_cli(capsys, "run", str(path))
    assert code == 1 and "cannot import target 'no_such_module:fn'" in out


class _Agent(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        question = body["messages"][-1]["content"]
        answer = {"response": {"role": "assistant", "content": f"You asked: {question}"}}
        data = json.dumps({**answer, "metadata": {"score": 0.7}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_agent() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Agent)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/chat"
    server.shutdown()


def test_http_target_with_a_dataset(workspace: Path, http_agent: str, capsys) -> None:
    path = write(
        workspace,
        "d.dataset.yaml",
        f"""
        name: d
        target: {http_agent}
        scenarios:
          - interactions:
              - input: {{messages: [{{role: user, content: Where is my order?}}]}}
                checks:
                  - {{identifier: string_matching, params: {{keyword: Where is my order}}}}
                  - {{identifier: greater_than, params: {{expected_value: 0.5}}}}
        """,
    )
    code, out, _ = run_cli(capsys, "run", str(path))
    assert code == 0, out


def test_target_flag_overrides_the_file(workspace: Path, capsys) -> None:
    path = write(workspace, "a.scenario.yaml", scenario("o", "python:agent:crash"))
    code, _, _ = run_cli(capsys, "run", str(path), "--target", "python:agent:answer")
    assert code == 0


def test_json_report(workspace: Path, capsys) -> None:
    path = write(workspace, "a.scenario.yaml", scenario("bad", "python:agent:answer", "never"))
    code, out, _ = run_cli(capsys, "run", str(path), "--format", "json")
    data = json.loads(out)
    assert code == 1 and data["status"] == "fail"
    (result,) = data["scenarios"]
    assert result["scenario_name"] == "bad" and result["status"] == "fail"
    check = result["steps"][0]["results"][0]
    assert check["status"] == "fail" and check["line"] == 7 and check["check"] == "string_matching"


def test_junit_report_is_xml_with_one_testcase_per_scenario(workspace: Path, capsys) -> None:
    write(workspace, "a.scenario.yaml", scenario("good", "python:agent:answer"))
    write(workspace, "b.scenario.yaml", scenario("bad", "python:agent:answer", "never"))
    out_file = workspace / "report.xml"
    code, _, err = run_cli(capsys, "run", str(workspace), "--format", "junit", "-o", str(out_file))
    assert code == 1 and "1 passed, 1 failed" in err
    root = ET.parse(out_file).getroot()
    cases = root.findall(".//testcase")
    assert sorted(c.get("name") for c in cases) == ["bad", "good"]
    failure = root.find(".//testcase[@name='bad']/failure")
    assert failure is not None and "string_matching" in (failure.text or "")


def test_sarif_report_validates_and_points_at_the_check_line(workspace: Path, capsys) -> None:
    path = write(workspace, "a.scenario.yaml", scenario("bad", "python:agent:answer", "never"))
    code, out, _ = run_cli(capsys, "run", str(path), "--format", "sarif")
    sarif = Sarif.model_validate(json.loads(out))
    (result,) = sarif.runs[0].results
    assert code == 1
    assert result.rule_id == "string_matching"
    assert result.locations[0].physical_location.region.start_line == 7


def test_tag_filter(workspace: Path, capsys) -> None:
    write(workspace, "a.scenario.yaml", scenario("tagged", "python:agent:answer") + "tags: [x]\n")
    write(workspace, "b.scenario.yaml", scenario("other", "python:agent:answer", "never"))
    code, out, _ = run_cli(capsys, "run", str(workspace), "--tag", "x")
    assert code == 0 and "tagged" in out and "other" not in out


def test_validate_reports_located_problems_and_never_imports_targets(
    workspace: Path, capsys
) -> None:
    good = write(workspace, "a.scenario.yaml", scenario("ok", "python:agent:answer"))
    code, _, err = run_cli(capsys, "validate", str(good))
    assert code == 0 and "valid" in err
    assert not (workspace / "imported.marker").exists()
    bad = write(
        workspace,
        "b.scenario.yaml",
        scenario("x", "python:agent:answer").replace("string_matching", "string_match"),
    )
    code, _, err = run_cli(capsys, "validate", str(bad))
    assert code == 2
    assert f"{bad}:7:16: error: unknown check 'string_match'" in err
    assert not (workspace / "imported.marker").exists()


def test_run_with_invalid_files_exits_2_but_runs_the_valid_ones(workspace: Path, capsys) -> None:
    write(workspace, "a.scenario.yaml", scenario("ok", "python:agent:answer"))
    write(workspace, "b.scenario.yaml", "name: [unclosed\n")
    code, out, err = run_cli(capsys, "run", str(workspace))
    assert code == 2 and "PASS  ok" in out and "b.scenario.yaml:" in err


def test_usage_errors_exit_2(tmp_path: Path, capsys) -> None:
    assert run_cli(capsys, "run", str(tmp_path / "missing.scenario.yaml"))[0] == 2
    with pytest.raises(SystemExit) as exc:
        main(["frobnicate"])
    assert exc.value.code == 2


def test_list_checks_comes_from_the_registry(capsys) -> None:
    code, out, _ = run_cli(capsys, "list", "checks")
    kinds = [line.split()[0] for line in out.splitlines()]
    assert code == 0 and {"string_matching", "rego_policy", "hub_metadata"} <= set(kinds)


def test_console_script_runs(tmp_path: Path) -> None:
    bin_dir = Path(sys.executable).parent
    done = subprocess.run(
        [str(bin_dir / "checkspec"), "list", "checks"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and "string_matching" in done.stdout


def test_llm_judged_scenario_end_to_end_with_model_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from checkspec.engine.judges import clear_cache, set_default_generator
    from tests.support.openai_stub import OpenAIStub, running_stub

    path = write(
        tmp_path,
        "tone.scenario.yaml",
        """
        name: polite
        steps:
          - interacts: [{inputs: It broke!, outputs: "Sorry about that, here is a refund."}]
            checks:
              - kind: conformity
                rule: The answer apologises.
        """,
    )
    monkeypatch.delenv("CHECKSPEC_MODEL", raising=False)
    try:
        code, out, _ = run_cli(capsys, "run", str(path))
        assert code == 1 and "No LLM model configured" in out
        with running_stub() as stub:
            monkeypatch.setenv("CHECKSPEC_API_BASE", stub.base_url)
            monkeypatch.setenv("CHECKSPEC_API_KEY", "sk-test")
            stub.script(OpenAIStub.verdict(False, "It does not apologise enough."))
            code, out, _ = run_cli(capsys, "run", str(path), "--model", "openai/test-model")
            assert code == 1
            assert "FAIL conformity at" in out and "It does not apologise enough." in out
            assert "The answer apologises." in stub.prompts[0]
            assert stub.chat_requests[0]["model"] == "test-model"
    finally:
        set_default_generator(None)
        clear_cache()


def test_fn_reference_resolves_next_to_the_spec_file(workspace: Path, capsys) -> None:
    write(
        workspace,
        "checks_here.py",
        "def has_refund(trace):\n    return 'refund' in trace.last.outputs\n",
    )
    path = write(
        workspace,
        "f.scenario.yaml",
        """
        name: fn
        steps:
          - interacts: [{inputs: q, outputs: We offer a refund.}]
            checks: [{kind: fn, fn: "checks_here:has_refund"}]
        """,
    )
    code, out, _ = run_cli(capsys, "validate", str(path))
    assert code == 0
    code, out, _ = run_cli(capsys, "run", str(path))
    assert code == 0, out
