"""`checkspec traces import` and `checkspec traces collect` end to end: an agent on the
real openai SDK (and one on pydantic-ai) talks to the local OpenAI-compatible stub with a
tool call, instrumented as in production by the real OpenTelemetry SDK and the openai
SDK's real instrumentation; its spans reach checkspec through the real OTLP/HTTP exporter
(a `traces collect` subprocess) or the files exporters write (`traces import`). The
dataset written is then run: replayed with no target, and against the live agent with
`--record`, which shows the drift of a changed answer.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import run_main
from tests.support.openai_stub import OpenAIStub, ToolCallingAnswers, running_stub
from tests.support.processes import CLI, default_sigint
from tests.support.tool_agent import AGENT, FRAMEWORK_AGENT
from tests.support.traced_agent import EXPORTING

WAIT_S = 120  # generous: the machine is shared


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with running_stub() as running:
        running.chat = ToolCallingAnswers()
        yield running


def _workspace(folder: Path, agent: str = AGENT) -> Path:
    (folder / "agent.py").write_text(agent, encoding="utf-8")
    (folder / "export_agent.py").write_text(EXPORTING, encoding="utf-8")
    return folder


def _env(stub: OpenAIStub) -> dict[str, str]:
    return {"OPENAI_BASE_URL": stub.base_url, "OPENAI_API_KEY": "test-key"}


def export(folder: Path, stub: OpenAIStub, destination: str, *questions: str) -> None:
    """The instrumented agent answers the questions and exports its spans."""
    done = subprocess.run(
        [sys.executable, "export_agent.py", destination, "orders-agent", *questions],
        cwd=folder,
        env={**os.environ, **_env(stub)},
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr


class Collector:
    """A `checkspec traces collect` subprocess; `url` where it receives."""

    def __init__(self, folder: Path, *args: str) -> None:
        self.process = subprocess.Popen(
            [*CLI, "traces", "collect", "--port", "0", *args],
            cwd=folder,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=default_sigint,
        )
        assert self.process.stdout is not None
        first: list[str] = []
        reader = threading.Thread(target=lambda: first.append(self.process.stdout.readline()))  # type: ignore[union-attr]
        reader.start()
        reader.join(WAIT_S)
        line = first[0] if first else ""
        assert "receiving OTLP/HTTP at http://127.0.0.1:" in line, (line, self.stop(signal.SIGKILL))
        self.url = line.split(" at ", 1)[1].split(" ", 1)[0]
        self.port = int(self.url.rsplit(":", 1)[1].split("/", 1)[0])

    def stop(self, sig: int = signal.SIGINT) -> tuple[int, str]:
        self.process.send_signal(sig)
        _, err = self.process.communicate(timeout=WAIT_S)
        return self.process.returncode, err


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_collect_writes_the_exported_conversations_as_draft_scenarios(
    tmp_path: Path, stub: OpenAIStub
) -> None:
    folder = _workspace(tmp_path)
    collector = Collector(folder, "-o", "prod.dataset.jsonl")
    export(folder, stub, collector.url, "A123", "B7")
    code, err = collector.stop()
    assert code == 0, err
    assert "wrote 2 draft scenario(s) from 4 trace(s) to prod.dataset.jsonl" in err
    first, second = rows(folder / "prod.dataset.jsonl")
    assert first["status"] == "draft"
    assert first["interactions"] == [
        {
            "input": {"messages": [{"role": "user", "content": "A123"}]},
            "output": {
                "response": {
                    "role": "assistant",
                    "content": "Here is what I found: order A123 ships tomorrow",
                }
            },
        }
    ]
    assert second["interactions"][0]["input"]["messages"][-1]["content"] == "B7"
    annotations = first["annotations"]
    assert annotations["service"] == "orders-agent"
    assert len(annotations["trace_ids"]) == 2  # each model call of the bare SDK is a trace
    (captured,) = annotations["captured"]
    assert captured["tools_called"] == ["lookup_order"]
    assert captured["tool_calls"] == [
        {
            "name": "lookup_order",
            "arguments": {"order_id": "A123"},
            "result": "order A123 ships tomorrow",
            "error": None,
        }
    ]
    assert [call["model"] for call in captured["model_calls"]] == ["stub-model", "stub-model"]
    assert captured["token_count"] > 0 and captured["latency_ms"] > 0


def test_the_drafts_replay_with_no_target_and_record_shows_drift_against_the_agent(
    tmp_path: Path, stub: OpenAIStub
) -> None:
    folder = _workspace(tmp_path)
    collector = Collector(folder, "-o", "prod.dataset.jsonl")
    export(folder, stub, collector.url, "A123")
    assert collector.stop()[0] == 0
    dataset = folder / "prod.dataset.jsonl"
    listed = run_main(folder, "list", "scenarios", "prod.dataset.jsonl")
    assert listed.returncode == 0 and "prod.dataset.jsonl::#0" in listed.stdout
    # A reviewer adds a check to the draft.
    (row,) = rows(dataset)
    # A reviewer adds checks to the draft: on its answer, and on what the agent did (kept
    # in the row's annotations, which a replay gives its trace).
    captured = "trace.annotations.captured[0]"
    row["interactions"][0]["checks"] = [
        {"identifier": "string_matching", "params": {"keyword": "ships tomorrow"}},
        {
            "identifier": "equals",
            "params": {
                "target_key": f"{captured}.tools_called[0]",
                "expected_value": "lookup_order",
            },
        },
        {
            "identifier": "equals",
            "params": {
                "target_key": f"{captured}.tool_calls[0].arguments.order_id",
                "expected_value": "A123",
            },
        },
    ]
    dataset.write_text(json.dumps(row) + "\n", encoding="utf-8")
    asked = len(stub.chat_requests)
    replayed = run_main(folder, "run", "prod.dataset.jsonl", "--include-drafts", "--no-history")
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "1 replayed recorded outputs (no target)" in replayed.stdout
    assert len(stub.chat_requests) == asked  # no target: nothing called
    # The agent changes its answer: a live run records it and shows what drifted.
    changed = AGENT.replace(
        "    return message.content\n", '    return message.content + " Anything else?"\n'
    )
    (folder / "agent.py").write_text(changed, encoding="utf-8")
    live = run_main(
        folder,
        "run",
        "prod.dataset.jsonl",
        "--include-drafts",
        "--no-history",
        "--target",
        "python:agent:answer_chat",
        "--record",
        env=_env(stub),
    )
    assert live.returncode == 0, live.stdout + live.stderr
    assert len(stub.chat_requests) == asked + 2  # the live agent was called
    shown = live.stdout + live.stderr
    assert "drift in" in shown and "Anything else?" in shown
    (recorded,) = rows(dataset)
    content = recorded["interactions"][0]["output"]["response"]["content"]
    assert content == "Here is what I found: order A123 ships tomorrow Anything else?"
    assert recorded["annotations"]["service"] == "orders-agent"  # provenance kept


def test_collect_of_an_agent_built_on_a_framework_stops_on_sigterm(
    tmp_path: Path, stub: OpenAIStub
) -> None:
    folder = _workspace(tmp_path, FRAMEWORK_AGENT)
    collector = Collector(folder, "-o", "framework.dataset.yaml")
    export(folder, stub, collector.url, "A123")
    code, err = collector.stop(signal.SIGTERM)
    assert code == 0, err
    import yaml

    written = yaml.safe_load((folder / "framework.dataset.yaml").read_text(encoding="utf-8"))
    (row,) = written["scenarios"]
    interaction = row["interactions"][0]
    assert interaction["input"]["messages"] == [{"role": "user", "content": "A123"}]
    assert interaction["output"]["response"]["content"].endswith("ships tomorrow")
    annotations = row["annotations"]
    assert annotations["conversation_id"]  # pydantic-ai names the run's conversation
    (captured,) = annotations["captured"]
    # pydantic-ai's execute_tool span: what ran, with its result; its chat spans counted
    # once each, not again for the openai SDK's spans under them.
    assert captured["tools_called"] == ["lookup_order"]
    assert captured["tool_calls"][0]["result"] == "order A123 ships tomorrow"
    assert len(captured["model_calls"]) == 2
    replayed = run_main(folder, "validate", "framework.dataset.yaml")
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr


def test_collect_with_nothing_received_writes_nothing_and_exits_0(tmp_path: Path) -> None:
    collector = Collector(tmp_path, "-o", "none.dataset.jsonl")
    code, err = collector.stop()
    assert code == 0, err
    assert "nothing written" in err
    assert not (tmp_path / "none.dataset.jsonl").exists()


# -- import --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["jsonl", "console"])
def test_import_reads_what_exporters_write(tmp_path: Path, stub: OpenAIStub, kind: str) -> None:
    folder = _workspace(tmp_path)
    export(folder, stub, f"{kind}:{folder / 'spans.out'}", "A123", "B7")
    done = run_main(folder, "traces", "import", "spans.out", "-o", "prod.dataset.jsonl")
    assert done.returncode == 0, done.stderr
    written = rows(folder / "prod.dataset.jsonl")
    assert [r["interactions"][0]["input"]["messages"][0]["content"] for r in written] == [
        "A123",
        "B7",
    ]
    assert written[1]["annotations"]["captured"][0]["tool_calls"][0]["arguments"] == {
        "order_id": "B7"
    }


def test_a_malformed_export_is_refused_at_its_place_and_nothing_written(
    tmp_path: Path, stub: OpenAIStub
) -> None:
    folder = _workspace(tmp_path)
    export(folder, stub, f"jsonl:{folder / 'good.jsonl'}", "A123")
    good = (folder / "good.jsonl").read_text(encoding="utf-8")
    (folder / "broken.jsonl").write_text(good + '{"resourceSpans": [{"scopeSpans": [}\n')
    done = run_main(
        folder, "traces", "import", "good.jsonl", "broken.jsonl", "-o", "p.dataset.jsonl"
    )
    assert done.returncode == 2
    line = len(good.splitlines()) + 1
    assert f"error: broken.jsonl:{line}:36: not JSON" in done.stderr  # at the `}`
    assert "nothing was written" in done.stderr
    assert not (folder / "p.dataset.jsonl").exists()
    (folder / "shape.json").write_text(
        '{\n  "resourceSpans": [{"scopeSpans": [{"spans": [{"name": "x"}]}]}]\n}\n'
    )
    done = run_main(folder, "traces", "import", "shape.json", "-o", "p.dataset.jsonl")
    assert done.returncode == 2
    assert (
        "shape.json:1:1: resourceSpans[0].scopeSpans[0].spans[0].traceId: expected an id"
        in done.stderr
    )
    assert not (folder / "p.dataset.jsonl").exists()


def test_import_refuses_to_overwrite_a_dataset_unless_forced(
    tmp_path: Path, stub: OpenAIStub
) -> None:
    folder = _workspace(tmp_path)
    export(folder, stub, f"jsonl:{folder / 'spans.jsonl'}", "A123")
    (folder / "prod.dataset.jsonl").write_text("kept\n")
    done = run_main(folder, "traces", "import", "spans.jsonl", "-o", "prod.dataset.jsonl")
    assert done.returncode == 2 and "exists; --force overwrites it" in done.stderr
    assert (folder / "prod.dataset.jsonl").read_text() == "kept\n"
    done = run_main(
        folder, "traces", "import", "spans.jsonl", "-o", "prod.dataset.jsonl", "--force"
    )
    assert done.returncode == 0, done.stderr
    assert len(rows(folder / "prod.dataset.jsonl")) == 1
    wrong = run_main(folder, "traces", "import", "spans.jsonl", "-o", "prod.jsonl")
    assert wrong.returncode == 2 and "name it *.dataset.jsonl" in wrong.stderr


def test_import_never_writes_through_a_link_out_of_the_workspace(
    tmp_path: Path, stub: OpenAIStub
) -> None:
    (tmp_path / "ws").mkdir()
    folder = _workspace(tmp_path / "ws")
    (folder / "checkspec.yaml").write_text("{}\n")
    export(folder, stub, f"jsonl:{folder / 'spans.jsonl'}", "A123")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (folder / "out").symlink_to(outside)
    done = run_main(
        folder, "traces", "import", "spans.jsonl", "-o", "out/prod.dataset.jsonl", "--force"
    )
    assert done.returncode == 2
    assert "out of the workspace" in done.stderr
    assert list(outside.iterdir()) == []
