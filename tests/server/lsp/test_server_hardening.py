"""Hostile and odd files through a real client over stdio: bounded, located, inside the text.

One server serves the module; each test opens its own documents. Times are generous bounds
that prove "answers, does not hang"; bench/hardening.py measures them.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from checkspec.engine.spec.lines import LineIndex
from checkspec.engine.spec.problems import MAX_PROBLEMS, Position, Range
from tests.support.lsp_helpers import (
    diagnostics,
    diagnostics_of_version,
    diagnostics_versions,
    start_session,
)
from tests.support.paths import REPO
from tests.support.spec_texts import edit_sequence, random_spec

pytestmark = pytest.mark.asyncio(loop_scope="module")

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "checkspec.server"])
MAX_FILE_SIZE = 4_000_000
EXAMPLES = REPO / "examples"
# How long to wait for diagnostics: a bound on waiting, not a timing claim (coverage and
# load make a slow machine).
LOADED = 120.0


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hardening")


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient, workspace: Path):
    await start_session(lsp_client, workspace, options={"maxFileSize": MAX_FILE_SIZE})
    yield
    await lsp_client.shutdown_session()


def open_text(client: LanguageClient, uri: str, text: str, version: int = 1) -> None:
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", version, text))
    )


def change_text(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def code_points(index: LineIndex, pos: types.Position) -> Position:
    """A UTF-16 LSP position as a code-point position (what the analysis uses)."""
    line = index.line(pos.line)
    units = 0
    for column, ch in enumerate(line):
        if units >= pos.character:
            return Position(pos.line, column)
        units += 2 if ord(ch) > 0xFFFF else 1
    assert units == pos.character, f"{pos} splits a character or is past the line's end"
    return Position(pos.line, len(line))


def text_at(index: LineIndex, rng: types.Range) -> str:
    start, end = code_points(index, rng.start), code_points(index, rng.end)
    assert index.contains(Range(start, end)), (rng, index.end)
    return index.slice(Range(start, end))


def symbol_ranges(symbols: Sequence[types.DocumentSymbol]) -> list[types.Range]:
    found = []
    for symbol in symbols:
        found += [symbol.range, symbol.selection_range]
        found += symbol_ranges(symbol.children or [])
    return found


async def outline(client: LanguageClient, uri: str) -> list[types.DocumentSymbol]:
    result = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri=uri))
    )
    assert result is not None
    return [s for s in result if isinstance(s, types.DocumentSymbol)]


# Caps ------------------------------------------------------------------------------------


async def test_a_list_of_far_more_than_the_node_limit_opens_with_one_located_problem(
    client: LanguageClient, workspace: Path
) -> None:
    uri = (workspace / "million.scenario.yaml").as_uri()
    started = time.monotonic()
    open_text(client, uri, "name: big\nsteps: [" + ",".join(["1"] * 1_600_000) + "]\n")
    (found,) = await diagnostics(client, uri, seconds=LOADED)
    assert time.monotonic() - started < 20  # measured: well under 2 s
    assert found.code == "too-many-nodes"
    assert found.range == types.Range(start=types.Position(0, 0), end=types.Position(0, 0))
    assert await outline(client, uri) == []


async def test_at_most_a_thousand_problems_are_published_plus_a_summary(
    client: LanguageClient, workspace: Path
) -> None:
    uri = (workspace / "many.scenario.yaml").as_uri()
    open_text(client, uri, "name: big\nsteps: [" + ", ".join(["1"] * 20_000) + "]\n")
    found = await diagnostics(client, uri, seconds=LOADED)
    assert len(found) == MAX_PROBLEMS + 1
    assert found[-1].code == "more-problems"
    assert found[-1].message.startswith("… and 19,000 more problems")


async def test_requests_on_a_file_over_the_size_limit_do_not_read_it(
    client: LanguageClient, workspace: Path
) -> None:
    # A valid spec padded past the limit: read, it would offer check kinds at `kind: `.
    text = "name: x\nsteps:\n  - checks:\n      - kind: \n" + "# padding\n" * 500_000
    uri = (workspace / "huge.scenario.yaml").as_uri()
    open_text(client, uri, text)
    (found,) = await diagnostics(client, uri, seconds=LOADED)
    assert found.code == "too-large"
    identifier = types.TextDocumentIdentifier(uri=uri)
    pos = types.Position(line=3, character=14)
    completion = await client.text_document_completion_async(
        types.CompletionParams(identifier, pos)
    )
    hover = await client.text_document_hover_async(types.HoverParams(identifier, pos))
    symbols = await outline(client, uri)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(identifier))
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            identifier, types.Range(pos, pos), types.CodeActionContext(diagnostics=[found])
        )
    )
    assert (completion, hover) == (None, None)
    assert [*symbols, *(lenses or []), *(actions or [])] == []


# Positions -------------------------------------------------------------------------------


async def test_random_texts_get_ranges_inside_them_that_point_at_the_right_text(
    client: LanguageClient, workspace: Path
) -> None:
    r = random.Random(11)
    for number in range(25):
        spec = random_spec(r)
        uri = (workspace / f"random{number}.scenario.yaml").as_uri()
        open_text(client, uri, spec.text)
        found = await diagnostics(client, uri, seconds=LOADED)
        index = LineIndex(spec.text)
        texts = {(d.code, text_at(index, d.range)) for d in found}
        symbols = await outline(client, uri)
        for rng in symbol_ranges(symbols):
            text_at(index, rng)
        if any(d.code == "syntax" for d in found):
            continue  # a code point libyaml refuses: only "inside the document" is promised
        for code, expected in spec.expected:
            if code == "symbol":
                assert text_at(index, symbols[0].selection_range) == expected
            else:
                assert (code, expected) in texts


async def test_random_edits_of_the_examples_keep_every_answer_bounded_and_inside(
    client: LanguageClient, workspace: Path
) -> None:
    r = random.Random(7)
    diagnostics_versions(client)  # each edit's answers are checked against its own text
    for example in sorted(EXAMPLES.glob("*.yaml")):
        original = example.read_text(encoding="utf-8")
        uri = (workspace / example.name).as_uri()
        open_text(client, uri, original)
        identifier = types.TextDocumentIdentifier(uri=uri)
        for version, text in enumerate(edit_sequence(r, original, 6), start=2):
            change_text(client, uri, text, version)
            index = LineIndex(text)
            offset = r.randint(0, len(text))
            at = index.position(offset)
            line = index.line(at.line)
            pos = types.Position(
                at.line, at.character + sum(ord(c) > 0xFFFF for c in line[: at.character])
            )
            started = time.monotonic()
            completion = await client.text_document_completion_async(
                types.CompletionParams(identifier, pos)
            )
            hover = await client.text_document_hover_async(types.HoverParams(identifier, pos))
            symbols = await outline(client, uri)
            found = await diagnostics_of_version(client, uri, version, LOADED)
            assert time.monotonic() - started < 20
            ranges = [d.range for d in found] + symbol_ranges(symbols)
            if completion is not None:
                items = completion.items if isinstance(completion, types.CompletionList) else []
                ranges += [
                    i.text_edit.range for i in items if isinstance(i.text_edit, types.TextEdit)
                ]
            if hover is not None and hover.range is not None:
                ranges.append(hover.range)
            for rng in ranges:
                text_at(index, rng)
    errors = [m.message for m in client.log_messages if m.type == types.MessageType.Error]
    assert errors == []
