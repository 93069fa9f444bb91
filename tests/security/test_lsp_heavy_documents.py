"""One heavy document does not stop the language server answering (issue 48, item 3).

A real client over stdio (pygls, the server as `python -m checkspec.server`) opens a
JSON Lines dataset of deeply nested rows (2 MB: its analysis takes seconds) beside a
small scenario file:

- a hover on the small file is answered before the heavy file's diagnostics come (its
  analysis runs off the event loop; before, the hover waited for all of it);
- an edit sent while the heavy analysis runs cancels it: the diagnostics of the opened
  version are never published, only those of the edited one, which show the edit;
- completion in a row of a long single-row dataset answers from the analysis (no
  re-read of the row on the event loop), while a hover elsewhere still answers.

No timing is asserted: only the order in which the server's messages come.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient

SMALL = """name: open
steps:
  - interacts:
      - {inputs: hi, outputs: hello}
    checks:
      - kind: string_matching
        keyword: hello
"""
SMALL_AT = types.Position(line=5, character=12)  # inside `string_matching`


def nested(depth: int, n: int) -> Any:
    value: Any = {"leaf": n}
    for level in range(depth):
        value = {"k": value} if level % 2 else [value]
    return value


def deep_row(n: int, identifier: str = "string_matching") -> str:
    turn = {
        "input": {"messages": [{"role": "user", "content": f"Q{n}"}], "meta": nested(40, n)},
        "output": {"response": {"role": "assistant", "content": f"It is {n}."}},
        "checks": [{"identifier": identifier, "params": {"keyword": "It"}}],
    }
    return json.dumps({"name": f"row {n}", "interactions": [turn]})


class Client(LanguageClient):
    """Keeps every message of the server's, in order: (what, uri or id, version)."""

    def __init__(self) -> None:
        super().__init__("heavy-test", "1")
        self.seen: list[tuple[str, Any, Any]] = []
        self.diagnostics: dict[tuple[str, int | None], list[types.Diagnostic]] = {}

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            self.seen.append(("diagnostics", params.uri, params.version))
            self.diagnostics[(params.uri, params.version)] = params.diagnostics

        @self.feature(types.WORKSPACE_CONFIGURATION)
        def configuration(params: types.ConfigurationParams) -> list[Any]:
            return [None for _ in params.items]

        @self.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(params: types.RegistrationParams) -> None:
            return None

        @self.feature(types.WINDOW_LOG_MESSAGE)
        def logged(params: types.LogMessageParams) -> None:
            return None

    async def published_for(self, uri: str, version: int, seconds: float = 300) -> None:
        """Wait for the diagnostics of `uri` at `version` (a bound, not a timing claim)."""
        deadline = time.monotonic() + seconds
        while (uri, version) not in self.diagnostics:
            assert time.monotonic() < deadline, f"no diagnostics for {uri} v{version}"
            await asyncio.sleep(0.02)


@pytest.fixture
async def client(tmp_path: Path):  # type: ignore[no-untyped-def]
    (tmp_path / "checkspec.yaml").write_text("{}\n", encoding="utf-8")
    started = Client()
    await started.start_io(sys.executable, "-m", "checkspec.server")
    await started.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=tmp_path.as_uri(),
        )
    )
    started.initialized(types.InitializedParams())
    yield started
    try:
        await asyncio.wait_for(started.shutdown_async(None), 120)
        started.exit(None)
    finally:
        await started.stop()


def open_doc(client: Client, path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=path.as_uri(), language_id="", version=1, text=text)
        )
    )
    return path.as_uri()


async def open_small(client: Client, root: Path) -> types.HoverParams:
    uri = open_doc(client, root / "open.scenario.yaml", SMALL)
    await client.published_for(uri, 1)
    params = types.HoverParams(types.TextDocumentIdentifier(uri), SMALL_AT)
    assert await client.text_document_hover_async(params) is not None
    return params


HEAVY_ROWS = 4000  # 2 MB of rows nested 40 deep: seconds of analysis


async def test_a_hover_elsewhere_is_answered_while_a_heavy_dataset_is_analysed(
    client: Client, tmp_path: Path
) -> None:
    hover = await open_small(client, tmp_path)
    text = "".join(deep_row(n) + "\n" for n in range(HEAVY_ROWS))
    heavy = open_doc(client, tmp_path / "heavy.dataset.jsonl", text)
    answer = await client.text_document_hover_async(hover)
    client.seen.append(("hover answered", None, None))
    assert answer is not None
    await client.published_for(heavy, 1)
    order = [what for what, uri, _ in client.seen if uri in (heavy, None)]
    assert order.index("hover answered") < order.index("diagnostics"), order


async def test_an_edit_cancels_the_analysis_it_makes_stale(client: Client, tmp_path: Path) -> None:
    hover = await open_small(client, tmp_path)
    text = "".join(deep_row(n) + "\n" for n in range(HEAVY_ROWS))
    heavy = open_doc(client, tmp_path / "heavy.dataset.jsonl", text)
    # Row 0's check misspelt while the opened text is analysed.
    start = deep_row(0).index("string_matching")
    at = types.Range(types.Position(0, start), types.Position(0, start + len("string")))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=heavy, version=2),
            content_changes=[types.TextDocumentContentChangePartial(range=at, text="strin")],
        )
    )
    assert await client.text_document_hover_async(hover) is not None
    await client.published_for(heavy, 2)
    versions = [version for _, uri, version in client.seen if uri == heavy]
    assert versions == [2], versions  # the opened version's analysis never finished
    problems = client.diagnostics[(heavy, 2)]
    assert any("strin_matching" in d.message for d in problems), problems


async def test_completion_in_a_long_row_answers_and_a_hover_elsewhere_too(
    client: Client, tmp_path: Path
) -> None:
    hover = await open_small(client, tmp_path)
    piece = "x" * 1000
    turn = {
        "input": {"messages": [{"role": "user", "content": "Say it all."}]},
        "output": {"response": {"role": "assistant", "content": "ok"}, "all": [piece] * 3000},
        "checks": [{"identifier": "string_matching", "params": {"keyword": "ok"}}],
    }
    line = json.dumps({"name": "big", "interactions": [turn]})
    uri = open_doc(client, tmp_path / "long.dataset.jsonl", line + "\n")
    await client.published_for(uri, 1)
    at = types.Position(0, line.rindex("string_matching") + 3)
    params = types.CompletionParams(types.TextDocumentIdentifier(uri), at)
    for _ in range(2):
        completion = asyncio.ensure_future(client.text_document_completion_async(params))
        assert await client.text_document_hover_async(hover) is not None
        answer = await completion
        labels = [item.label for item in getattr(answer, "items", None) or answer or []]
        assert "string_matching" in labels, labels
