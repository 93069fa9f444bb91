"""server/lsp/background.py: a big document's edits are queued and applied, in order,
by the worker thread or by `doc.editing` (a caller that cannot await), and its analysis
is the one of its current text, as a fresh analysis would make it (issue 48, item 3)."""

from __future__ import annotations

import asyncio
import json

import pytest
from lsprotocol import types

from checkspec.engine.spec.document import analyze
from checkspec.server.lsp import background
from checkspec.server.lsp.documents import DocumentStore, OpenDocument
from tests.support.analysis_summary import summary

URI = "file:///work/big.dataset.jsonl"


def rows(count: int) -> str:
    turn = {"input": "q", "output": "a", "checks": [{"identifier": "equals", "params": {}}]}
    return "".join(
        json.dumps({"name": f"r{n}", "interactions": [turn]}) + "\n" for n in range(count)
    )


def insert(store: DocumentStore, line: int, character: int, text: str, version: int) -> None:
    at = types.Position(line=line, character=character)
    change = types.TextDocumentContentChangePartial(range=types.Range(start=at, end=at), text=text)
    store.update(URI, [change], version, "utf-16")


@pytest.fixture
def big(monkeypatch: pytest.MonkeyPatch) -> tuple[DocumentStore, OpenDocument]:
    monkeypatch.setattr(background, "BACKGROUND_CHARS", 1000)  # a few KB is "big" here
    store = DocumentStore()
    doc = store.open(URI, rows(60), 1)
    return store, doc


def expected(text: str) -> object:
    return summary(analyze(text, "/work/big.dataset.jsonl"))


def test_edits_are_queued_and_applied_in_order_when_the_text_is_needed(
    big: tuple[DocumentStore, OpenDocument],
) -> None:
    store, doc = big
    before = doc.own_editing.text
    insert(store, 3, 10, "A", 2)
    insert(store, 3, 11, "B", 3)  # a position in the text the first edit made
    assert doc.pending and doc.own_editing.text is before  # nothing applied on the loop
    lines = before.split("\n")
    lines[3] = lines[3][:10] + "AB" + lines[3][10:]
    assert doc.text == "\n".join(lines) and not doc.pending  # applied by `editing`
    assert summary(store.analysis(doc)) == expected(doc.text)


async def test_the_worker_analyses_the_current_text_and_an_edit_makes_it_start_again(
    big: tuple[DocumentStore, OpenDocument],
) -> None:
    store, doc = big
    first = asyncio.ensure_future(background.analysed(doc))
    await asyncio.sleep(0)  # the job started on the opened text
    insert(store, 5, 0, '{"name": "new", "interactions": []}\n', 2)
    assert await first is None  # made for a text that is no longer the document's
    found = await background.current_analysis(doc)
    assert not doc.pending and doc.job is None
    assert "new" in doc.own_editing.text
    assert summary(found) == expected(doc.own_editing.text)
