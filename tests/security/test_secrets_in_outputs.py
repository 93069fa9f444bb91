"""Secrets the process holds never reach an output (issue 48, item 2; core/redact.py).

Each case plants one kind of secret where a real run meets it, then runs the commands that
write (`run` in every format, to a file and to stdout; `settings`; `history`; `compare`
in every format; `report`) and scans everything they wrote: each file of the workspace
(the history's records decompressed), stdout and stderr.

- OPENAI_API_KEY, the SDK's own fallback, echoed by the endpoint in its error (the local
  stub does it as some proxies do);
- ANTHROPIC_API_KEY, a provider's key checkspec never sends, printed and returned by the
  agent;
- a password in the endpoint's URL (`http://alice:PASSWORD@host/v1`), which the agent
  prints and the HTTP client sends as a Basic credential (echoed by the stub);
- a key in the endpoint's URL's query (`?api-key=`), printed and echoed.

The language server: the hover on `api_base` in checkspec.yaml and the server's DEBUG log.
"""

from __future__ import annotations

import base64
import json
import os
import sqlite3
import subprocess
import sys
import threading
import zlib
from collections.abc import Iterator
from contextlib import closing, suppress
from dataclasses import dataclass, field
from pathlib import Path
from urllib.request import urlopen

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.support.cli import run_main
from tests.support.lsp_helpers import diagnostics, open_file, position_of, start_session
from tests.support.openai_stub import OpenAIStub, running_stub
from tests.support.processes import LEAN_PYTEST

pytest_plugins = ["pytester"]

KEY = "sk-planted-0123456789abcdef"
PASSWORD = "pw-planted-98765"
QUERY_KEY = "qk-planted-13579"

RUN = "planted.suite.yaml"
AGENT = """\
import os


def answer(question):
    # An agent that logs its configuration: what a report then holds of its output.
    seen = f"{os.environ.get('ANTHROPIC_API_KEY')} {os.environ.get('CHECKSPEC_API_BASE')}"
    print("configured with", seen)
    return "hello " + seen
"""
SUITE = """\
name: planted
target: python:agent:answer
scenarios:
  - name: one
    steps:
      - interacts: [{inputs: hi}]
        checks:
          - {kind: conformity, rule: The answer is polite.}
          - {kind: string_matching, keyword: not in the answer}
"""


@dataclass(frozen=True)
class Case:
    """Where the secret is planted (`env`, checkspec.yaml's `api_base`) and how it may
    show (`forms`: the secret and what an HTTP client makes of it)."""

    env: dict[str, str]
    api_base_in_env: bool = False
    forms: tuple[str, ...] = ()
    query: str = ""
    userinfo: str = ""


CASES = {
    "openai_key_echoed_by_the_endpoint": Case(env={"OPENAI_API_KEY": KEY}, forms=(KEY,)),
    "provider_key_printed_by_the_agent": Case(env={"ANTHROPIC_API_KEY": KEY}, forms=(KEY,)),
    "password_in_the_api_base": Case(
        env={},
        api_base_in_env=True,
        userinfo=f"alice:{PASSWORD}@",
        forms=(PASSWORD, base64.b64encode(f"alice:{PASSWORD}".encode()).decode()),
    ),
    "key_in_the_api_base_query": Case(
        env={}, api_base_in_env=True, query=f"?api-key={QUERY_KEY}", forms=(QUERY_KEY,)
    ),
}


@dataclass
class Written:
    """What the commands wrote: each stream and file, by a name saying where it is."""

    texts: dict[str, str] = field(default_factory=dict)

    def leaks(self, forms: tuple[str, ...]) -> list[str]:
        return [where for where, text in self.texts.items() if any(f in text for f in forms)]


@pytest.fixture(scope="module")
def stub() -> Iterator[OpenAIStub]:
    with running_stub() as server:
        server.echo_key = True  # every answer is an error that echoes the key
        server.chat = lambda body: 401  # not retried: one request a run
        yield server


def _workspace(root: Path, api_base: str, in_env: bool) -> dict[str, str]:
    """The files, and the variables that go with them."""
    config = "model: openai/test-model\n" + ("" if in_env else f"api_base: {api_base}\n")
    (root / "checkspec.yaml").write_text(config, encoding="utf-8")
    (root / "agent.py").write_text(AGENT, encoding="utf-8")
    (root / "planted.suite.yaml").write_text(SUITE, encoding="utf-8")
    return {"CHECKSPEC_API_BASE": api_base} if in_env else {}


def _history_texts(db: Path) -> Iterator[tuple[str, str]]:
    """Every value of every table of the history, its compressed records decompressed."""
    with closing(sqlite3.connect(db)) as connection:
        query = "SELECT name FROM sqlite_master WHERE type = 'table'"
        for table in [r[0] for r in connection.execute(query)]:
            for row in connection.execute(f"SELECT * FROM {table}"):
                for value in row:
                    if isinstance(value, bytes):
                        with suppress(zlib.error):
                            value = zlib.decompress(value)
                        value = value.decode("utf-8", "replace")
                    yield f"{db.name}:{table}", str(value)


def _files(root: Path, planted: set[str]) -> Iterator[tuple[str, str]]:
    for path in sorted(root.rglob("*")):
        name = str(path.relative_to(root))
        if not path.is_file() or name in planted:
            continue
        if path.name == "history.db":
            yield from _history_texts(path)
        yield name, path.read_bytes().decode("utf-8", "replace")


def _write_everything(root: Path, env: dict[str, str]) -> Written:
    written = Written()
    unset = ("CHECKSPEC_", "OPENAI_", "ANTHROPIC_")

    def call(*args: str) -> None:
        done = run_main(root, *args, env=env, unset=unset)
        assert done.returncode in (0, 1), (args, done.stderr)  # ran, whatever it found
        command = " ".join(args)
        written.texts[f"{command}: stdout"] = done.stdout
        written.texts[f"{command}: stderr"] = done.stderr

    # In this process (quick); then in the worker processes, which inherit the environment.
    for fmt in ("text", "json", "junit", "sarif", "html"):
        call("run", RUN, "--executor", "inprocess", "--format", fmt, "-o", f"report.{fmt}")
    call("run", RUN)  # the text report on stdout
    call("settings")
    call("settings", "--format", "json")
    call("history")
    call("history", "--format", "json")
    for fmt in ("text", "json", "markdown"):
        call("compare", "--format", fmt)
    call("compare", "--format", "html", "-o", "compare.html")
    call("report", "last", "--format", "json")
    call("report", "last", "-o", "last.html")
    planted = {"checkspec.yaml", "agent.py", "planted.suite.yaml"}
    written.texts.update(_files(root, planted))
    return written


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_no_command_writes_a_secret_the_process_holds(
    case: Case, stub: OpenAIStub, tmp_path: Path
) -> None:
    api_base = stub.base_url.replace("://", f"://{case.userinfo}") + case.query
    env = {**case.env, **_workspace(tmp_path, api_base, case.api_base_in_env)}
    if "OPENAI_API_KEY" not in env:
        env["CHECKSPEC_API_KEY"] = "sk-test"  # too short to be a secret worth masking
    written = _write_everything(tmp_path, env)
    assert written.leaks(case.forms) == []
    # The secret did reach what makes the outputs (the stub's error, the agent's output),
    # and is masked where they show it.
    report = written.texts["report.text"]
    assert "Incorrect API key provided" in report and "configured with" in report, report
    assert "****" in report, report


def test_reports_from_elsewhere_are_masked_when_shown_again(
    stub: OpenAIStub, tmp_path: Path
) -> None:
    """A JSON report written by another checkspec (or kept before secrets were masked)
    that holds a key and a URL's password: `report` and `compare` write neither."""
    env = {"CHECKSPEC_API_KEY": "sk-test", **_workspace(tmp_path, stub.base_url, False)}
    done = run_main(
        tmp_path, "run", RUN, "--executor", "inprocess", "--format", "json", "-o", "a.json", env=env
    )
    assert done.returncode == 1, done.stderr
    leaked = f"{KEY} http://alice:{PASSWORD}@host/v1"
    text = (tmp_path / "a.json").read_text(encoding="utf-8")
    text = text.replace("None None", leaked).replace("'not in the answer'", leaked)
    assert text.count(leaked) >= 3  # the output, what the agent said, the check's message
    (tmp_path / "a.json").write_text(text, encoding="utf-8")
    written = Written()
    env["OPENAI_API_KEY"] = KEY
    for args in (
        ("report", "a.json", "-o", "r.html"),
        ("report", "a.json", "--format", "json", "-o", "r.json"),
        ("compare", "a.json", "a.json", "--format", "markdown", "-o", "c.md"),
        ("compare", "a.json", "a.json", "--format", "json", "-o", "c.json"),
        ("compare", "a.json", "a.json", "--format", "html", "-o", "c.html"),
    ):
        done = run_main(tmp_path, *args, env=env)
        assert done.returncode == 0, (args, done.stderr)
        written.texts[f"{' '.join(args)}: stdout, stderr"] = done.stdout + done.stderr
        written.texts[args[-1]] = (tmp_path / args[-1]).read_text(encoding="utf-8")
    assert written.leaks((KEY, PASSWORD)) == []
    assert "****cdef" in written.texts["r.json"], written.texts["r.json"]


def test_the_viewer_serves_no_secret_of_a_run_kept_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`checkspec view` over a history whose record holds a key and a URL's password."""
    from checkspec.engine.history.compare import compare
    from checkspec.engine.html.viewer import Viewer, make_server

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    kept = {
        "format": "checkspec-run/1",
        "run": {"id": "r1", "started": "2026-01-01T00:00:00.000+00:00"},
        "scenarios": [
            {"id": "s.yaml::one", "scenario_name": "one", "status": "fail", "output": KEY},
            {"id": "s.yaml::two", "status": "error", "output": f"http://a:{PASSWORD}@h"},
        ],
    }

    class Kept:
        def runs(self, limit: int) -> list[object]:
            return []

        def load(self, run_id: str) -> dict[str, object]:
            return kept

    viewer = Viewer(Kept(), lambda base, head: compare(base, head).to_json())
    server = make_server(viewer, "127.0.0.1", 0, token="t0ken-of-this-start")
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}).start()
    port = server.server_address[1]
    try:
        bodies = {}
        for target in (
            "/api/runs/r1",
            "/runs/r1",
            "/api/compare?base=r1&head=r1",
            "/compare?base=r1&head=r1",
        ):
            joined = "&" if "?" in target else "?"
            url = f"http://127.0.0.1:{port}{target}{joined}token=t0ken-of-this-start"
            with urlopen(url, timeout=30) as answer:
                bodies[target] = answer.read().decode("utf-8")
    finally:
        server.shutdown()
        server.server_close()
    assert [t for t, body in bodies.items() if KEY in body or PASSWORD in body] == []
    assert "****cdef" in bodies["/api/runs/r1"]


def test_the_commands_errors_hold_no_secret(tmp_path: Path) -> None:
    """What a command prints of its own (here the refusal of a target it cannot call)
    goes through the same masking as its reports."""
    _workspace(tmp_path, "http://127.0.0.1:9/v1", False)
    target = f"ftp://alice:{PASSWORD}@host/agent"
    done = run_main(tmp_path, "run", RUN, "--target", target)
    assert (
        done.returncode == 2 and "unknown target 'ftp://alice:****8765@host/agent'" in done.stderr
    )
    assert PASSWORD not in done.stdout + done.stderr


async def test_the_library_junit_xml_holds_no_secret(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`SuiteResult.to_junit_xml` of a suite run in a script (no CLI, no settings)."""
    from checkspec.engine import FnCheck, Scenario, Suite

    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)

    def agent(question: str) -> str:
        return f"my key is {os.environ['ANTHROPIC_API_KEY']}"

    never = FnCheck(fn=lambda trace: False, name="never")
    suite = Suite(name="s", target=agent, scenarios=[Scenario("x").interact("q").check(never)])
    result = await suite.run(verbose=False)
    text = result.to_junit_xml(tmp_path / "j.xml")
    assert KEY not in text and KEY not in (tmp_path / "j.xml").read_text(encoding="utf-8")
    assert "my key is ****cdef" in text, text


def test_pytest_plugin_failures_hold_no_secret(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plugin's failure text, on the terminal and in --junitxml."""
    pytester.makefile(".yaml", checkspec="history: false\n")
    pytester.makepyfile(agent=AGENT)
    pytester.makefile(
        ".suite.yaml",
        planted=SUITE.replace("- {kind: conformity, rule: The answer is polite.}\n", ""),
    )
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    result = pytester.runpytest_subprocess(
        *LEAN_PYTEST, "-p", "checkspec", "-p", "no:asyncio", "--junitxml=j.xml"
    )
    result.assert_outcomes(failed=1)
    shown = "\n".join(result.outlines + result.errlines)
    assert "configured with ****cdef" in shown, shown
    assert KEY not in shown and KEY not in (pytester.path / "j.xml").read_text(encoding="utf-8")


# -- the language server ------------------------------------------------------------------

LOG = Path(os.environ.get("TMPDIR", "/tmp")) / f"checkspec-secrets-lsp-{os.getpid()}.log"
# The real server, its stderr (the editor's log) in a file, every record (DEBUG) kept.
SERVER = ClientServerConfig(
    server_command=[
        sys.executable,
        "-c",
        "import os, sys; os.dup2(os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2);"
        " from checkspec.server.main import main; main()",
        str(LOG),
    ],
    # The server (and its workers) hold a provider's key the agent prints.
    server_env={**os.environ, "CHECKSPEC_LSP_LOG_LEVEL": "DEBUG", "ANTHROPIC_API_KEY": KEY},
)
CONFIG = f"""\
model: openai/test-model
api_base: http://alice:{PASSWORD}@127.0.0.1:9/v1?api-key={QUERY_KEY}
"""


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient) -> object:
    yield
    if not lsp_client.stopped:  # the test ends the session itself, to read the whole log
        await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_the_hover_on_api_base_and_the_server_log_hold_no_password(
    client: LanguageClient, tmp_path: Path
) -> None:
    await start_session(client, tmp_path)
    uri = open_file(client, tmp_path / "checkspec.yaml", CONFIG)
    found = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position_of(CONFIG, "api_base", 2),
        )
    )
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    shown = found.contents.value
    assert (
        "Effective value" in shown
        and "http://alice:****8765@127.0.0.1:9/v1?api-key=****3579" in shown
    ), shown
    assert PASSWORD not in shown and QUERY_KEY not in shown
    await client.shutdown_session()
    log = LOG.read_text(encoding="utf-8", errors="replace")
    LOG.unlink()
    assert "Sending data" in log  # the DEBUG log was on, with the hover's answer in it
    assert PASSWORD not in log and QUERY_KEY not in log


def test_the_secrets_rule_covers_every_key_variable_litellm_knows() -> None:
    """litellm's providers (its providers.json: api_key_env of each) and the variables its
    validate_environment asks for: each is a secret's name by core/redact.py's rule."""
    import importlib.util

    from checkspec.engine.core.redact import is_secret_name

    spec = importlib.util.find_spec("litellm")
    assert spec is not None and spec.origin is not None
    providers = Path(spec.origin).parent / "llms" / "openai_like" / "providers.json"
    known = {
        str(p["api_key_env"])
        for p in json.loads(providers.read_text(encoding="utf-8")).values()
        if isinstance(p, dict) and p.get("api_key_env")
    }
    assert len(known) > 20
    others = {
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "AZURE_API_KEY",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "HUGGINGFACE_API_KEY",
        "HF_TOKEN",
        "DATABRICKS_TOKEN",
        "WATSONX_APIKEY",
        "AZURE_AD_TOKEN",
        "CHECKSPEC_API_KEY",
        "CHECKSPEC_EMBEDDING_API_KEY",
    }
    assert [name for name in sorted(known | others) if not is_secret_name(name)] == []
    assert not any(map(is_secret_name, ("PATH", "HOME", "PWD", "SSH_AUTH_SOCK", "LANG")))


@pytest.mark.asyncio
async def test_a_run_from_the_editor_shows_no_secret(
    client: LanguageClient, tmp_path: Path
) -> None:
    """Its results, the transcript (`checkspec.showLastRun`, the hover on the scenario's
    name), the problems it reports, and the log."""
    await start_session(client, tmp_path)
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    # A check whose message quotes the answer: the problem the editor lists holds it.
    quoting = "- {kind: equals, expected_value: nope, target_key: trace.last.outputs}\n"
    suite = SUITE.replace("- {kind: conformity, rule: The answer is polite.}\n", quoting)
    uri = open_file(client, tmp_path / RUN, suite)
    ran = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.runFile", arguments=[uri])
    )
    last = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.showLastRun", arguments=[uri, 0])
    )
    found = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position_of(suite, "name: one", 6),
        )
    )
    problems = await diagnostics(client, uri, lambda d: any("but got" in x.message for x in d))
    assert found is not None
    shown = {
        "runFile": json.dumps(ran),
        "showLastRun": json.dumps(last),
        "hover": str(found.contents),
        "problems": " ".join(p.message for p in problems),
    }
    await client.shutdown_session()
    shown["log"] = LOG.read_text(encoding="utf-8", errors="replace")
    LOG.unlink()
    assert [where for where, text in shown.items() if KEY in text] == []
    assert "configured with ****cdef" in shown["showLastRun"], shown["showLastRun"]
    assert "configured with ****cdef" in shown["hover"], shown["hover"]
    assert "but got 'hello ****cdef" in shown["problems"], shown["problems"]


def test_the_server_log_masks_what_it_quotes() -> None:
    """A refused message is logged with its first bytes (server/framing.py): a key a
    client sent in it is masked there too (every record of the log goes through it)."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "params": {"apiKey": KEY}})[:-1].encode()
    server = subprocess.run(
        [sys.executable, "-m", "checkspec.server"],
        input=b"Content-Length: %d\r\n\r\n%s" % (len(body), body),
        capture_output=True,
        env={**os.environ, "ANTHROPIC_API_KEY": KEY},
        timeout=60,
        check=False,
    )
    log = server.stderr.decode("utf-8", "replace")
    assert "LSP message refused" in log and "****cdef" in log, log
    assert KEY not in log
