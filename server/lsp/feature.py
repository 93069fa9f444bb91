"""One shape for every handler: declared in its feature's module, registered by server.py.

A feature module declares its handlers with one of three decorators; each gives a
`Handler` (the LSP method or command, its options, the function pygls calls), which
server.py lists and registers. Every handler is guarded (guard.py): an exception is
logged (window/logMessage) and answered with the handler's empty result.

- `document_request(METHOD, options, empty=...)`: a request about one open document. The
  handler takes a `DocumentRequest`: the document is looked up once, and a document not
  open or over the size limit is answered `empty()` at once; the analysis, the position
  codec and the request's position or range (in code points) are made when first asked.
- `handler(METHOD, options, empty=...)`: any other request or notification, `(ls, params)`.
- `command(NAME, empty=...)`: a workspace/executeCommand command, `(ls, *arguments)`.

Handlers are typed against `Host` (host.py), never the server class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, cast

from .background import current_analysis, in_background
from .guard import guarded
from .host import Host

if TYPE_CHECKING:
    from lsprotocol import types

    from checkspec.engine.spec.document import Document
    from checkspec.engine.spec.problems import Position, Range

    from .convert import PositionCodec
    from .documents import OpenDocument


class DocumentParams(Protocol):
    @property
    def text_document(self) -> types.TextDocumentIdentifier: ...


class _AtPosition(Protocol):
    @property
    def position(self) -> types.Position: ...


class _OverRange(Protocol):
    @property
    def range(self) -> types.Range: ...


P = TypeVar("P", bound=DocumentParams)
R = TypeVar("R")
F = TypeVar("F", bound=Callable[..., Any])


class Registry(Host, Protocol):
    """A host handlers are registered on, with pygls's decorators (CheckspecServer)."""

    def feature(self, feature_name: str, options: Any | None = None) -> Callable[[F], F]: ...

    def command(self, command_name: str) -> Callable[[F], F]: ...


@dataclass(frozen=True)
class Handler:
    method: str  # an LSP method, or a command's name
    options: Any  # the method's registration options (None: none)
    fn: Callable[..., Any]  # what pygls calls: (ls, params) or (ls, *arguments), guarded
    is_command: bool = False

    def register(self, server: Registry) -> None:
        if self.is_command:
            server.command(self.method)(self.fn)
        else:
            server.feature(self.method, self.options)(self.fn)


class DocumentRequest(Generic[P]):
    """A request about one open document (neither missing nor over the size limit)."""

    def __init__(self, ls: Host, params: P, doc: OpenDocument) -> None:
        self.ls = ls
        self.params = params
        self.doc = doc

    @cached_property
    def codec(self) -> PositionCodec:
        return self.ls.codec(self.doc)

    @cached_property
    def analysis(self) -> Document:
        """The document's analysis (made once per text, by the store)."""
        return self.ls.store.analysis(self.doc)

    @cached_property
    def position(self) -> Position:
        """The request's `position`, in code points (requests at a position)."""
        return self.codec.from_lsp(cast("_AtPosition", self.params).position)

    @cached_property
    def range(self) -> Range:
        """The request's `range`, in code points (requests over a range)."""
        return self.codec.from_range(cast("_OverRange", self.params).range)


def document_request(
    method: str, options: Any = None, *, empty: Callable[[], Any]
) -> Callable[[Callable[[DocumentRequest[P]], R]], Handler]:
    def decorate(fn: Callable[[DocumentRequest[P]], R]) -> Handler:
        # pygls passes the server to a handler whose first parameter is named `ls`.
        async def handle(ls: Host, params: P) -> R:
            uri = params.text_document.uri
            doc = ls.store.get(uri)
            if doc is not None and in_background(doc):
                # A big document's analysis is made off the loop (background.py): this
                # request waits for it, requests on other documents do not.
                await current_analysis(doc)
                doc = ls.store.get(uri)
            if doc is None or doc.too_large:
                answer: R = empty()
                return answer
            return fn(DocumentRequest(ls, params, doc))

        # Named like the feature: the error log says which handler failed.
        handle.__name__, handle.__qualname__ = fn.__name__, fn.__qualname__
        handle.__doc__ = fn.__doc__
        return Handler(method, options, guarded(empty)(handle))

    return decorate


def handler(
    method: str, options: Any = None, *, empty: Callable[[], Any] = lambda: None
) -> Callable[[Callable[..., Any]], Handler]:
    """A guarded `(ls: Host, params)` handler, sync or async."""

    def decorate(fn: Callable[..., Any]) -> Handler:
        return Handler(method, options, guarded(empty)(fn))

    return decorate


def command(name: str, *, empty: Callable[[], Any]) -> Callable[[Callable[..., Any]], Handler]:
    """A guarded `(ls: Host, *arguments)` command. pygls reads the annotations of its
    parameters at run time: `Host` must be imported at run time where it is declared."""

    def decorate(fn: Callable[..., Any]) -> Handler:
        return Handler(name, None, guarded(empty)(fn), is_command=True)

    return decorate
