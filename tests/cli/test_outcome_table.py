"""docs/outcomes.md's table walked: each row with an exit code, through the CLI (its
`main` in this process, tests/support/cli.py; a real subprocess for Ctrl-C) or the pytest
plugin (pytester, a subprocess), gives that code and prints
each `quoted` text of its row in the stream named before it.

The rows are read from the page itself, and every row must have a way to bring it about
here (`SETUPS`) and every setup a row: the page and the behaviour cannot drift apart.
Rows of behaviour built elsewhere (`NOT_YET`) and the editor's (no exit code) are only
read. A model is the local OpenAI-compatible stub (tests/support/openai_stub.py); an
endpoint that is down is a port nothing listens on.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import run_main
from tests.support.openai_stub import GenerationAnswers, OpenAIStub, running_stub
from tests.support.paths import REPO
from tests.support.processes import LEAN_PYTEST

pytest_plugins = ["pytester"]

PAGE = REPO / "docs" / "outcomes.md"
HEADER = "| command | outcome | exit | prints |"
NOT_YET: set[str] = set()  # rows of behaviour not built yet: read, not walked


@dataclass(frozen=True)
class Row:
    command: str
    outcome: str
    exit: str
    prints: str

    @property
    def id(self) -> str:
        return f"{self.command}: {self.outcome}"

    def expected(self) -> list[tuple[str | None, str]]:
        """(stream or None for either, text) of each `quoted` text of the prints cell."""
        stream: str | None = None
        found: list[tuple[str | None, str]] = []
        for match in re.finditer(r"\b(stdout|stderr)\b|`([^`]+)`", self.prints):
            if match.group(1):
                stream = match.group(1)
            else:
                found.append((stream, match.group(2)))
        return found


def table() -> list[Row]:
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    start = lines.index(HEADER) + 2  # the header, then its |---| line
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        assert len(cells) == 4, line
        rows.append(Row(*cells))
    return rows


def walked() -> list[Row]:
    return [r for r in table() if r.exit.isdigit() and r.outcome not in NOT_YET]


# -- the workspaces ------------------------------------------------------------------------

ANSWER = "  - interacts: [{inputs: hi, outputs: hello}]\n"


def scenario(check: str, *, head: str = "", steps: str = ANSWER) -> str:
    return f"name: one\n{head}steps:\n{steps}    checks:\n      - {check}\n"


PASSING = scenario("{kind: equals, expected_value: hello}")
FAILING = scenario("{kind: equals, expected_value: bye}")
JUDGED = scenario("{kind: llm_judge, prompt: 'fine? {{ trace.last.outputs }}'}")
LABELLED = scenario("{kind: llm_judge, prompt: 'fine? {{ trace.last.outputs }}', expect: pass}")
AGENT = """\
import os, signal, time

def broken(question):
    raise RuntimeError("the agent broke")

def interrupting(question):
    os.kill(int(os.environ["CHECKSPEC_WORKER_PARENT"]), signal.SIGINT)  # the run itself
    time.sleep(3)
    return "hello"
"""


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Setup:
    """What a row is brought about with: files, the model's endpoint, the arguments."""

    files: dict[str, str]
    args: list[str]
    model: str | None = None  # "stub", "down" or None (no model configured)
    chat: Callable[[OpenAIStub, Callable[[], int]], Any] | None = None  # the stub's script
    before: list[list[str]] = field(default_factory=list)  # commands run first (compare)


def judge_passes(stub: OpenAIStub, pid: Callable[[], int]) -> Any:
    return lambda body: stub.verdict(True, "fine")


def judge_fails(stub: OpenAIStub, pid: Callable[[], int]) -> Any:
    return lambda body: stub.verdict(False, "not fine")


def interrupts(stub: OpenAIStub, pid: Callable[[], int]) -> Any:
    """The first call interrupts the command (Ctrl-C), and is answered."""

    def chat(body: dict[str, Any]) -> str:
        if len(stub.chat_requests) == 1:
            os.kill(pid(), signal.SIGINT)
        return stub.verdict(True, "fine")

    return chat


def generates(stub: OpenAIStub, pid: Callable[[], int]) -> Any:
    return GenerationAnswers()


def garbage(stub: OpenAIStub, pid: Callable[[], int]) -> Any:
    answers = GenerationAnswers()
    answers.garbage = True
    return answers


def interrupts_generating(stub: OpenAIStub, pid: Callable[[], int]) -> Any:
    answers = GenerationAnswers()

    def chat(body: dict[str, Any]) -> Any:
        if len(stub.chat_requests) == 1:
            os.kill(pid(), signal.SIGINT)
        return answers(body)

    return chat


FILE = "t.scenario.yaml"
DRAFT = PASSING.replace("steps:", "status: draft\nsteps:", 1)
DISABLED = PASSING.replace("expected_value: hello}", "expected_value: hello, enabled: false}")
ERRORING = scenario(
    "{kind: equals, expected_value: hello}",
    head="target: python:agent:broken\n",
    steps="  - interacts: [{inputs: hi}]\n",
)
INTERRUPTING = ERRORING.replace("agent:broken", "agent:interrupting")
TINY = "0.000000001"
GENERATE = ["generate", "--preset", "impatient_customer", "-n", "2", "-o", "g.dataset.yaml"]
RUN = ["run", FILE]
PYTEST = ["--checkspec", "-p", "no:asyncio", "-p", "no:randomly", "-p", "no:cacheprovider"]
UNROUTABLE = {"checkspec.yaml": "model: gpt4o-mini\n"}  # no provider litellm knows
BAD_CONFIG = {"checkspec.yaml": "jobs: 2\nmodle: openai/gpt-4o-mini\n"}  # a misspelt key

SETUPS: dict[tuple[str, str], Setup] = {
    ("run", "all passed"): Setup({FILE: PASSING}, RUN),
    ("run", "some failed"): Setup({FILE: FAILING}, RUN),
    ("run", "errors"): Setup({FILE: ERRORING, "agent.py": AGENT}, RUN),
    ("run", "nothing selected"): Setup({FILE: PASSING}, [*RUN, "--status", "draft"]),
    ("run", "empty shard"): Setup({FILE: PASSING}, [*RUN, "--shard", "2/2"]),
    ("run", "all drafts"): Setup({FILE: DRAFT}, RUN),
    ("run --dry-run", "all drafts"): Setup({FILE: DRAFT}, [*RUN, "--dry-run"]),
    ("run", "every check disabled"): Setup({FILE: DISABLED}, RUN),
    ("run", "endpoint down"): Setup({FILE: JUDGED}, RUN, "down"),
    ("run", "budget reached"): Setup({FILE: JUDGED}, [*RUN, "--max-cost", TINY], "stub"),
    ("run", "interrupted"): Setup({FILE: JUDGED}, RUN, "stub", interrupts),
    ("validate", "all passed"): Setup({FILE: PASSING}, ["validate", FILE]),
    ("validate", "errors"): Setup({FILE: "name: [x\n"}, ["validate", FILE]),
    ("validate", "nothing selected"): Setup({"notes.txt": "x"}, ["validate", "."]),
    ("validate", "all drafts"): Setup({FILE: DRAFT}, ["validate", FILE]),
    ("calibrate", "all passed"): Setup({FILE: LABELLED}, ["calibrate"], "stub", judge_passes),
    ("calibrate", "some failed"): Setup(
        {FILE: LABELLED}, ["calibrate", "--min-agreement", "0.9"], "stub", judge_fails
    ),
    ("calibrate", "errors"): Setup({FILE: LABELLED}, ["calibrate"], "stub"),  # HTTP 500s
    ("calibrate", "errors, --allow-not-judged"): Setup(
        {FILE: LABELLED}, ["calibrate", "--allow-not-judged"], "stub"
    ),
    ("calibrate", "nothing selected"): Setup({FILE: PASSING}, ["calibrate"]),
    ("calibrate", "all drafts"): Setup(
        {FILE: LABELLED.replace("steps:", "status: draft\nsteps:", 1)},
        ["calibrate"],
        "stub",
        judge_passes,
    ),
    ("calibrate", "endpoint down"): Setup({FILE: LABELLED}, ["calibrate"], "down"),
    ("calibrate", "budget reached"): Setup(
        {FILE: LABELLED}, ["calibrate", "--max-cost", TINY], "stub", judge_passes
    ),
    ("calibrate", "interrupted"): Setup({FILE: LABELLED}, ["calibrate"], "stub", interrupts),
    ("generate", "all passed"): Setup({}, GENERATE, "stub", generates),
    ("generate", "errors"): Setup({}, GENERATE, "stub", garbage),
    ("generate", "endpoint down"): Setup({}, GENERATE, "down"),
    ("generate", "interrupted"): Setup({}, GENERATE, "stub", interrupts_generating),
    ("compare", "all passed"): Setup({FILE: PASSING}, ["compare"], before=[RUN, RUN]),
    ("compare", "some failed"): Setup(
        {FILE: PASSING, "f.scenario.yaml": FAILING},
        ["compare"],
        before=[RUN, ["run", "."]],
    ),
    ("compare", "errors"): Setup({FILE: PASSING}, ["compare", "no-such-run", "last"], before=[RUN]),
    ("compare", "nothing selected"): Setup(
        {FILE: PASSING, "f.scenario.yaml": PASSING.replace("name: one", "name: two")},
        ["compare"],
        before=[RUN, ["run", "f.scenario.yaml"]],
    ),
    ("run", "config unreadable"): Setup({FILE: PASSING, **BAD_CONFIG}, RUN),
    ("validate", "config unreadable"): Setup({FILE: PASSING, **BAD_CONFIG}, ["validate", FILE]),
    ("calibrate", "config unreadable"): Setup(
        {FILE: LABELLED, **BAD_CONFIG}, ["calibrate"], "stub"
    ),
    ("generate", "config unreadable"): Setup(BAD_CONFIG, GENERATE, "stub", generates),
    ("settings", "config unreadable"): Setup(BAD_CONFIG, ["settings"]),
    ("pytest plugin", "config unreadable"): Setup({FILE: PASSING, **BAD_CONFIG}, PYTEST),
    ("run", "model unroutable"): Setup({FILE: JUDGED, **UNROUTABLE}, RUN),
    ("calibrate", "model unroutable"): Setup({FILE: LABELLED, **UNROUTABLE}, ["calibrate"]),
    ("generate", "model unroutable"): Setup(UNROUTABLE, GENERATE),
    ("pytest plugin", "model unroutable"): Setup({FILE: JUDGED, **UNROUTABLE}, PYTEST),
    ("settings", "all passed"): Setup({FILE: PASSING, "checkspec.yaml": "jobs: 2\n"}, ["settings"]),
    ("pytest plugin", "all passed"): Setup({FILE: PASSING}, PYTEST),
    ("pytest plugin", "some failed"): Setup({FILE: FAILING}, PYTEST),
    ("pytest plugin", "errors"): Setup({FILE: ERRORING, "agent.py": AGENT}, PYTEST),
    ("pytest plugin", "nothing selected"): Setup(
        {FILE: PASSING}, [*PYTEST, "--checkspec-tag", "x"]
    ),
    ("pytest plugin", "all drafts"): Setup({FILE: DRAFT}, PYTEST),
    ("pytest plugin", "every check disabled"): Setup({FILE: DISABLED}, PYTEST),
    ("pytest plugin", "endpoint down"): Setup({FILE: JUDGED}, PYTEST, "down"),
    ("pytest plugin", "budget reached"): Setup(
        {FILE: JUDGED}, [*PYTEST, "--checkspec-max-cost", TINY], "stub"
    ),
    ("pytest plugin", "interrupted"): Setup({FILE: INTERRUPTING, "agent.py": AGENT}, PYTEST),
}


def test_every_row_has_a_setup_and_every_setup_a_row() -> None:
    rows = {(r.command, r.outcome) for r in walked()}
    assert rows == set(SETUPS), (rows - set(SETUPS), set(SETUPS) - rows)
    commands = {r.command for r in table()}
    assert commands == {
        "run",
        "run --dry-run",
        "validate",
        "calibrate",
        "generate",
        "compare",
        "settings",
        "pytest plugin",
        "editor run",
    }


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture(name="stub")
def stub_fixture() -> Iterator[OpenAIStub]:
    with running_stub() as stub:
        yield stub


def environment(setup: Setup, stub: OpenAIStub) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CHECKSPEC_", "OPENAI_"))}
    if setup.model is not None:
        # A model litellm knows the price of, so that a budget can be reached.
        env["CHECKSPEC_MODEL"] = "openai/gpt-4o-mini"
        env["CHECKSPEC_API_KEY"] = "sk-test"
        base = stub.base_url if setup.model == "stub" else f"http://127.0.0.1:{closed_port()}/v1"
        env["CHECKSPEC_API_BASE"] = base
    return env


def cli(root: Path, args: list[str], env: dict[str, str], started: list[int]) -> Ran:
    command = [sys.executable, "-m", "checkspec.engine.cli.main", *args]
    with subprocess.Popen(
        command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        started.append(process.pid)
        out, err = process.communicate(timeout=120)
    return Ran(process.returncode, out, err)


def in_process(root: Path, args: list[str], setup: Setup, stub: OpenAIStub) -> Ran:
    """The command run in this process (tests/support/cli.py): the same `main`, its exit
    code and streams, without an interpreter's start and the engine's imports per row."""
    model = environment(setup, stub)
    given = {k: v for k, v in model.items() if k.startswith("CHECKSPEC_")}
    done = run_main(root, *args, env=given, unset=("CHECKSPEC_", "OPENAI_"))
    return Ran(done.returncode, done.stdout, done.stderr)


@pytest.mark.parametrize("row", walked(), ids=lambda r: r.id)
def test_the_row(
    row: Row, stub: OpenAIStub, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    setup = SETUPS[(row.command, row.outcome)]
    started: list[int] = []
    if setup.chat is not None:
        stub.chat = setup.chat(stub, lambda: started[-1])
    env = environment(setup, stub)
    if row.command == "pytest plugin":
        pytester: pytest.Pytester = request.getfixturevalue("pytester")
        root = pytester.path
        for name, text in setup.files.items():
            (root / name).write_text(text, encoding="utf-8")
        patch = request.getfixturevalue("monkeypatch")
        for name in [k for k in os.environ if k.startswith(("CHECKSPEC_", "OPENAI_"))]:
            patch.delenv(name)
        for name in ("CHECKSPEC_MODEL", "CHECKSPEC_API_KEY", "CHECKSPEC_API_BASE"):
            if name in env:
                patch.setenv(name, env[name])
        result = pytester.runpytest_subprocess(*LEAN_PYTEST, *setup.args, timeout=120)
        ran = Ran(int(result.ret), "\n".join(result.outlines), "\n".join(result.errlines))
    else:
        for name, text in setup.files.items():
            (tmp_path / name).write_text(text, encoding="utf-8")
        for before in setup.before:
            in_process(tmp_path, before, setup, stub)
        if row.outcome == "interrupted":  # Ctrl-C is sent to the command's own process
            ran = cli(tmp_path, setup.args, env, started)
        else:
            ran = in_process(tmp_path, setup.args, setup, stub)
    shown = f"exit {ran.returncode}\n--- stdout\n{ran.stdout}\n--- stderr\n{ran.stderr}"
    assert ran.returncode == int(row.exit), shown
    for stream, text in row.expected():
        where = {"stdout": ran.stdout, "stderr": ran.stderr}.get(stream or "", "")
        if stream is None:
            where = ran.stdout + ran.stderr
        assert text in where, f"{text!r} not in {stream or 'the output'}:\n{shown}"
