"""The language-server test client every server test uses: start a session (registrations
and refreshes answered), open and change files, wait for diagnostics, positions, edits."""

from __future__ import annotations

import asyncio
import sys
import textwrap
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "checkspec.server"])


@dataclass
class ServerRequests:
    """What the server asked of its client: registrations (file watchers) and refreshes
    ("code lenses", "inlay hints": after a run, the editor is told to ask again)."""

    registrations: list[types.Registration] = field(default_factory=list)
    refreshed: list[str] = field(default_factory=list)


def accept_server_requests(client: LanguageClient) -> ServerRequests:
    """Answer the requests a running server sends to its client as an editor would (the
    test client does not): dynamic registration of file watchers, code lens and inlay
    hint refreshes after a run. Returns what was asked, for the tests that look."""
    seen = ServerRequests()

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        seen.registrations.extend(params.registrations)

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def refresh_lenses(params: None) -> None:
        seen.refreshed.append("code lenses")

    @client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def refresh_hints(params: None) -> None:
        seen.refreshed.append("inlay hints")

    return seen


async def start_session(
    client: LanguageClient,
    root: Path,
    *,
    options: dict[str, Any] | None = None,
    capabilities: types.ClientCapabilities | None = None,
    folders: bool = False,
) -> tuple[types.InitializeResult, ServerRequests]:
    """Initialize `client`'s server on the workspace `root` as VS Code would (its
    capabilities unless given; `options` as the `checkspec` initializationOptions), with
    the server's requests answered (accept_server_requests)."""
    seen = accept_server_requests(client)
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities or client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")]
            if folders
            else None,
            initialization_options=None if options is None else {"checkspec": options},
        )
    )
    return result, seen


def open_file(client: LanguageClient, path: Path, text: str, *, save: bool = True) -> str:
    text = textwrap.dedent(text).lstrip("\n")
    if save:
        path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)
        )
    )
    return uri


def change_file(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def diagnostics(
    client: LanguageClient,
    uri: str,
    until: Callable[[Sequence[types.Diagnostic]], bool] = lambda d: True,
    seconds: float = 5.0,
) -> list[types.Diagnostic]:
    """The diagnostics published for `uri`, once they satisfy `until` (a bound on
    waiting, not a timing claim)."""
    for _ in range(int(seconds * 100)):
        found = client.diagnostics.get(uri)
        if found is not None and until(found):
            return list(found)
        await asyncio.sleep(0.01)
    raise AssertionError(f"no matching diagnostics for {uri}: {client.diagnostics.get(uri)}")


_VERSIONS: weakref.WeakKeyDictionary[LanguageClient, dict[str, int | None]] = (
    weakref.WeakKeyDictionary()
)


def diagnostics_versions(client: LanguageClient) -> dict[str, int | None]:
    """The document version of the diagnostics last published for each URI, kept from
    now on (pytest-lsp keeps the diagnostics only): a test that edits faster than the
    server publishes waits for those of the text it sent (`diagnostics_of_version`)."""
    versions = _VERSIONS.get(client)
    if versions is None:
        versions = _VERSIONS[client] = {}
        features = client.protocol.fm.features
        keep = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

        def publish(params: types.PublishDiagnosticsParams) -> None:
            versions[params.uri] = params.version
            keep(params)

        features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    return versions


async def diagnostics_of_version(
    client: LanguageClient, uri: str, version: int, seconds: float = 120
) -> list[types.Diagnostic]:
    """The diagnostics published for `uri` at `version` (a bound on waiting, not a timing
    claim); diagnostics_versions(client) must have been called before the edit."""
    versions = diagnostics_versions(client)
    return await diagnostics(client, uri, lambda _: versions.get(uri) == version, seconds)


def position_of(text: str, needle: str, offset: int = 0) -> types.Position:
    """Where `needle` starts (+offset) in the dedented text; the lines here are ASCII."""
    text = textwrap.dedent(text).lstrip("\n")
    index = text.index(needle) + offset
    line = text.count("\n", 0, index)
    return types.Position(line=line, character=index - (text.rfind("\n", 0, index) + 1))


async def complete(client: LanguageClient, uri: str, pos: types.Position) -> list[str]:
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)
    )
    assert isinstance(result, types.CompletionList)
    return [item.label for item in result.items]


def apply_edits(text: str, edits: Sequence[types.TextEdit]) -> str:
    """Apply LSP edits (ASCII text, so UTF-16 columns are characters)."""
    lines = text.split("\n")
    for edit in sorted(
        edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
    ):
        start, end = edit.range.start, edit.range.end
        head = lines[start.line][: start.character]
        tail = lines[end.line][end.character :]
        lines[start.line : end.line + 1] = (head + edit.new_text + tail).split("\n")
    return "\n".join(lines)


def pull_capabilities() -> types.ClientCapabilities:
    capabilities = client_capabilities("visual-studio-code")
    assert capabilities.text_document is not None and capabilities.workspace is not None
    capabilities.text_document.diagnostic = types.DiagnosticClientCapabilities(
        dynamic_registration=False, related_document_support=True
    )
    capabilities.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(
        refresh_support=True
    )
    return capabilities


async def workspace_pull(client: Any, previous: dict[str, str] | None = None) -> dict[str, Any]:
    report = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(
            previous_result_ids=[
                types.PreviousResultId(uri=uri, value=value)
                for uri, value in (previous or {}).items()
            ]
        )
    )
    return {item.uri: item for item in report.items}


async def symbols(client: LanguageClient, query: str) -> list[types.SymbolInformation]:
    """workspace/symbol's answer for `query` (a list of SymbolInformation, as ours sends)."""
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))
    assert isinstance(found, list)
    return [s for s in found if isinstance(s, types.SymbolInformation)]
