"""The VS Code extension's recorded server answers, captured from the live server.

vscode-extension/test/fixtures holds real answers of `checkspec lsp` (run commands and
the document outline) that the extension's unit tests parse. This script drives the
server over stdio on examples/ and writes them again (`make fixtures`), or, with
--check, says which ones the server no longer gives (tests/e2e/test_extension_fixtures.py).

Answers are made stable before they are compared or written: the repository's folder
becomes file:///workspace, run durations become 0 and a run's history id `RUN-ID`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.lsp.client import LanguageClient

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
FIXTURES = REPO / "vscode-extension" / "test" / "fixtures"
STABLE_ROOT = "file:///workspace"
# A scenario the server refuses to run: one unknown check kind.
BROKEN = (
    "name: broken\nsteps:\n  - interacts:\n      - inputs: hi\n    checks:\n      - kind: nope\n"
)


async def capture() -> dict[str, Any]:
    """Every fixture, by file name, as the live server answers now."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHECKSPEC_")}
    client = LanguageClient("fixtures", "1")
    for method in (types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, types.WINDOW_SHOW_MESSAGE):
        client.feature(method)(lambda params: None)  # seen, not recorded
    await client.start_io(sys.executable, "-m", "checkspec.server", env=env, cwd=str(REPO))
    try:
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                root_uri=EXAMPLES.as_uri(),
                initialization_options={"checkspec": {}},
            )
        )
        client.initialized(types.InitializedParams())
        suite = _open(client, EXAMPLES / "support.suite.yaml")
        tone = _open(client, EXAMPLES / "tone.scenario.yaml")
        broken = _open(client, EXAMPLES / "broken.scenario.yaml", BROKEN)

        async def command(name: str, *arguments: Any) -> Any:
            params = types.ExecuteCommandParams(command=name, arguments=list(arguments))
            return await client.workspace_execute_command_async(params)

        symbols = await client.text_document_document_symbol_async(
            types.DocumentSymbolParams(types.TextDocumentIdentifier(suite))
        )
        answers = {
            "runFile.suite.json": await command("checkspec.runFile", suite),
            "runScenario.fail.json": await command("checkspec.runScenario", suite, 2),
            "runScenario.noSuch.json": await command("checkspec.runScenario", suite, 9),
            "runScenario.badArgs.json": await command("checkspec.runScenario"),
            "runScenario.errorNoModel.json": await command("checkspec.runScenario", tone, 0),
            "runScenario.invalid.json": await command("checkspec.runScenario", broken, 0),
            "symbols.suite.json": get_converter().unstructure(symbols),
        }
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        await client.stop()
    return {name: stable(answer) for name, answer in answers.items()}


def _open(client: LanguageClient, path: Path, text: str | None = None) -> str:
    uri = path.as_uri()
    item = types.TextDocumentItem(
        uri=uri, language_id="yaml", version=1, text=text or path.read_text(encoding="utf-8")
    )
    client.text_document_did_open(types.DidOpenTextDocumentParams(item))
    return uri


# Keys whose values differ at each run: written as these.
VOLATILE: dict[str, Any] = {"duration_ms": 0, "runId": "RUN-ID"}


def stable(value: Any) -> Any:
    """The answer without what varies between machines and runs."""
    if isinstance(value, dict):
        return {k: VOLATILE[k] if k in VOLATILE else stable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [stable(v) for v in value]
    if isinstance(value, str) and value.startswith(REPO.as_uri()):
        return STABLE_ROOT + value[len(REPO.as_uri()) :]
    return value


def render(answer: Any) -> str:
    return json.dumps(answer, indent=2, ensure_ascii=False) + "\n"


def drifted(answers: dict[str, Any]) -> list[str]:
    """Fixture files whose content is not what the server answers now (or that are missing)."""
    out = []
    for name, answer in sorted(answers.items()):
        path = FIXTURES / name
        if not path.exists() or json.loads(path.read_text(encoding="utf-8")) != answer:
            out.append(name)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the fixtures")
    mode.add_argument("--check", action="store_true", help="exit 1 if a fixture drifted")
    args = parser.parse_args()
    answers = asyncio.run(capture())
    if args.check:
        names = drifted(answers)
        for name in names:
            print(f"{FIXTURES / name}: differs from the live server (make fixtures)")
        return 1 if names else 0
    for name, answer in answers.items():
        (FIXTURES / name).write_text(render(answer), encoding="utf-8")
        print(f"wrote {FIXTURES / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
