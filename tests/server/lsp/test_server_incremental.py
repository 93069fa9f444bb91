"""Incremental document sync end to end: a real client sends ranges, as editors do.

The server asks for incremental changes, applies each range (UTF-16 columns, several
changes per notification, line breaks of every kind) to its own copy of the text, and
re-reads only the scenarios a change touches; the diagnostics must be those of the text
the client holds. pygls's own copy of the document stays the same text.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from checkspec.engine.spec.document import analyze
from tests.support.lsp_helpers import (
    diagnostics,
    diagnostics_of_version,
    diagnostics_versions,
    start_session,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "checkspec.server"])


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("incremental")


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient, workspace: Path):
    result, _ = await start_session(lsp_client, workspace)
    lsp_client.sync_kind = result.capabilities.text_document_sync  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


def suite(count: int, end: str = "\n", emoji: str = "") -> str:
    scenarios = "".join(
        f"  - name: case {i}{end}"
        f"    steps:{end}"
        f"      - interacts:{end}"
        f"          - inputs: Where is order {i}? {emoji}{end}"
        f"            outputs: It ships on day {i}.{end}"
        f"        checks:{end}"
        f"          - kind: string_matching{end}"
        f"            keyword: ships{end}"
        for i in range(count)
    )
    return f"name: orders{end}scenarios:{end}{scenarios}"


def opened(client: LanguageClient, path: Path, text: str) -> str:
    uri = path.as_uri()
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, text))
    )
    return uri


def change(client: LanguageClient, uri: str, version: int, *edits: tuple[types.Range, str]) -> None:
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=version, uri=uri),
            [types.TextDocumentContentChangePartial(range=r, text=t) for r, t in edits],
        )
    )


def at(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


def codes_and_lines(found: list[types.Diagnostic]) -> list[tuple[object, int]]:
    return sorted((d.code, d.range.start.line) for d in found)


def expected(text: str, name: str) -> list[tuple[object, int]]:
    """What a fresh analysis of the client's text says (code, line), for comparison."""
    document = analyze(text, name)
    return sorted((p.code, p.range.start.line) for p in document.all_problems)


def apply(text: str, line: int, start: int, end: int, new: str, eol: str = "\n") -> str:
    """Replace columns [start, end) of one line (ASCII before them) of `text`."""
    lines = text.split(eol)
    lines[line] = lines[line][:start] + new + lines[line][end:]
    return eol.join(lines)


async def test_the_server_asks_for_incremental_changes(client: LanguageClient) -> None:
    sync = client.sync_kind  # type: ignore[attr-defined]
    kind = sync.change if isinstance(sync, types.TextDocumentSyncOptions) else sync
    assert kind == types.TextDocumentSyncKind.Incremental


async def test_a_range_edit_breaks_and_restores_a_kind(
    client: LanguageClient, workspace: Path
) -> None:
    text = suite(30)
    uri = opened(client, workspace / "a.suite.yaml", text)
    assert await diagnostics(client, uri) == []
    line = text.split("\n").index("          - kind: string_matching", 100)
    change(client, uri, 2, (types.Range(at(line, 20), at(line, 20)), "zz"))
    found = await diagnostics(client, uri, lambda d: bool(d))
    assert [(d.code, d.range.start.line) for d in found] == [("unknown-kind", line)]
    change(client, uri, 3, (types.Range(at(line, 20), at(line, 22)), ""))
    assert await diagnostics(client, uri) == []


async def test_several_changes_in_one_notification_apply_in_order(
    client: LanguageClient, workspace: Path
) -> None:
    text = suite(10)
    uri = opened(client, workspace / "b.suite.yaml", text)
    await diagnostics(client, uri)
    kind_lines = [i for i, s in enumerate(text.split("\n")) if "kind:" in s]
    first, second = kind_lines[2], kind_lines[7]
    # The second change is in the coordinates the first one left: one line more above it.
    change(
        client,
        uri,
        2,
        (types.Range(at(first, 18), at(first, 18)), "z\n          # a comment"),
        (types.Range(at(second + 1, 18), at(second + 1, 18)), "y"),
    )
    text = apply(text, first, 18, 18, "z\n          # a comment")
    text = apply(text, second + 1, 18, 18, "y")
    found = await diagnostics(client, uri, lambda d: len(d) == 2)
    assert codes_and_lines(found) == expected(text, "b.suite.yaml")
    assert codes_and_lines(found) == [("unknown-kind", first), ("unknown-kind", second + 1)]


async def test_columns_are_utf16_and_line_ends_are_any(
    client: LanguageClient, workspace: Path
) -> None:
    diagnostics_versions(client)  # kept from now on: two edits in a row below
    text = suite(6, end="\r\n").replace("inputs: Where", "inputs: 🎉 Where")
    uri = opened(client, workspace / "c.suite.yaml", text)
    await diagnostics(client, uri)
    lines = text.split("\r\n")
    line = next(i for i, s in enumerate(lines) if "order 3?" in s)
    where = lines[line].index("Where")  # in code points; the emoji is two UTF-16 units
    change(client, uri, 2, (types.Range(at(line, where + 1), at(line, where + 1)), "#"))
    text = apply(text, line, where, where, "#", eol="\r\n")  # `🎉 #Where...`: a comment
    found = await diagnostics(client, uri, lambda d: bool(d))
    assert codes_and_lines(found) == expected(text, "c.suite.yaml")
    assert [d.code for d in found] == ["comment-in-text"]
    end = len(lines[line]) + 2  # the end of the line, in UTF-16 units
    change(client, uri, 3, (types.Range(at(line, end), at(line, end)), "\r\n  bad"))
    text = apply(text, line, end - 1, end - 1, "\r\n  bad", eol="\r\n")
    found = await diagnostics(client, uri, lambda d: any(x.code == "syntax" for x in d))
    assert codes_and_lines(found) == expected(text, "c.suite.yaml")
    change(client, uri, 4, (types.Range(at(line, end), at(line + 1, 5)), ""))  # undo both
    change(client, uri, 5, (types.Range(at(line, where + 1), at(line, where + 2)), ""))
    # Those of version 4 (the comment still there) may be published after the second
    # edit was sent: wait for version 5's.
    assert await diagnostics_of_version(client, uri, 5) == []


async def test_scenarios_after_a_new_line_move_with_it(
    client: LanguageClient, workspace: Path
) -> None:
    text = suite(20).replace("keyword: ships", "keyword: ships\n            case_sensitiv: true")
    uri = opened(client, workspace / "d.suite.yaml", text)
    before = await diagnostics(client, uri, lambda d: len(d) == 20, seconds=60)  # a bound
    change(client, uri, 2, (types.Range(at(4, 0), at(4, 0)), "\n\n# two more lines\n"))
    text = apply(text, 4, 0, 0, "\n\n# two more lines\n")
    # The open's diagnostics may be published again (the editor settings arrive) after
    # the change cleared them: wait for those of the changed text.
    want = expected(text, "d.suite.yaml")
    found = await diagnostics(client, uri, lambda d: codes_and_lines(list(d)) == want, 60)
    assert codes_and_lines(found) == want
    moved = [d.range.start.line for d in found if d.range.start.line > 4]
    assert moved == [d.range.start.line + 3 for d in before if d.range.start.line > 4]


def _sent(found: list[types.Diagnostic]) -> list[tuple[object, ...]]:
    return sorted(
        (d.code, d.message, d.range.start.line, d.range.start.character, d.range.end.character)
        for d in found
    )


async def test_whole_text_changes_give_what_range_changes_give(
    client: LanguageClient, workspace: Path
) -> None:
    """A full-sync client (whole texts on change) gets the diagnostics a range client gets
    after the same edits: the server diffs the whole text against the previous one."""
    text = suite(12, end="\r\n", emoji="🎉")
    ranged = opened(client, workspace / "ranged.suite.yaml", text)
    whole = opened(client, workspace / "whole.suite.yaml", text)
    await diagnostics(client, ranged)
    await diagnostics(client, whole)
    lines = text.split("\r\n")
    kinds = [i for i, s in enumerate(lines) if "kind:" in s]
    emoji_line = next(i for i, s in enumerate(lines) if "order 5?" in s)
    after_emoji = len(lines[emoji_line]) + 1  # UTF-16 units: the emoji counts two
    steps = [  # (range in UTF-16 positions, new text, the same on `text`)
        (types.Range(at(kinds[3], 20), at(kinds[3], 20)), "zz"),
        (types.Range(at(emoji_line, after_emoji), at(emoji_line, after_emoji)), " #x"),
        (types.Range(at(kinds[8], 10), at(kinds[9], 10)), ""),  # across scenarios
        (types.Range(at(2, 0), at(2, 0)), "# new\r\n\r\n"),
    ]
    for version, (rng, new) in enumerate(steps, start=2):
        change(client, ranged, version, (rng, new))
        text = _applied(text, rng, new)
        client.diagnostics.pop(whole, None)
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=version, uri=whole),
                [types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        # Wait for this version's diagnostics: a late publish of the previous one may come
        # first on a loaded machine.
        want = expected(text, "ranged.suite.yaml")
        found = await diagnostics(client, ranged, lambda d, w=want: codes_and_lines(list(d)) == w)
        assert codes_and_lines(found) == want
        found = await diagnostics(client, whole, lambda d, w=want: codes_and_lines(list(d)) == w)
        assert _sent(found) == _sent(client.diagnostics[ranged])


def _applied(text: str, rng: types.Range, new: str) -> str:
    """An LSP range (UTF-16 columns, CRLF lines) applied to `text`."""
    starts = [0] + [i + 2 for i in range(len(text)) if text.startswith("\r\n", i)]

    def offset(pos: types.Position) -> int:
        line_start = starts[pos.line]
        units, i = 0, line_start
        while units < pos.character:
            units += 2 if ord(text[i]) > 0xFFFF else 1
            i += 1
        return i

    return text[: offset(rng.start)] + new + text[offset(rng.end) :]
