"""The viewer's connections: a request's head is read whole before any thread serves it.

One thread (the one calling `serve_forever`) accepts connections and reads each one's
request head, without blocking, until its blank line. A connection only gets a thread and
one of `max_serving` slots once its head is complete, so clients that trickle bytes or
send half a header hold no slot: each has `head_deadline` seconds in all (not per byte) to
send its head, and at most `max_waiting` wait at once, the oldest closed when one more
comes. A normal request is then answered whatever number of slow clients are connected.

The thread answering a request reads its head from memory and writes the answer within
the handler's `timeout` in all for each write (Python's `sendall` timeout), so a slot is
held for the time to build the answer plus that at most. When every slot is taken, a complete
request is answered 503 at once.

Standard library only (socketserver's loop serves a connection from its first byte).
"""

from __future__ import annotations

import contextlib
import io
import selectors
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

HEAD_END = (b"\r\n\r\n", b"\n\n")


@dataclass(frozen=True)
class Limits:
    """What one server allows: each server (the viewer, the traces collector) has its own."""

    backlog: int  # connections the kernel queues before accept
    head_deadline: float  # seconds, in all, for a request head to arrive
    max_head_bytes: int
    max_waiting: int  # connections still sending their head; past it the oldest is closed
    max_serving: int  # requests answered at once; one more is answered 503


@dataclass
class _Waiting:
    """A connection whose request head is still coming."""

    address: Any
    deadline: float
    head: bytearray = field(default_factory=bytearray)


class HeadFirstHandler(BaseHTTPRequestHandler):
    """A handler that reads the head the server already read (`head`), not the socket."""

    def __init__(self, request: Any, client_address: Any, server: Any, head: bytes = b"") -> None:
        self._head = head
        super().__init__(request, client_address, server)

    def setup(self) -> None:
        super().setup()
        if self._head:
            self.rfile = io.BytesIO(self._head)


def _answer_and_close(connection: socket.socket, status: str) -> None:
    """A short answer, sent only if the socket takes it at once, then closed. What the
    client sent is drained first: closed with unread bytes, the socket would send a reset
    that can overtake the answer."""
    try:
        while connection.recv(65536):
            pass
    except OSError:  # nothing more to read now (BlockingIOError), or already reset
        pass
    try:
        connection.send(
            f"HTTP/1.0 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode()
        )
        connection.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    connection.close()


class HeadFirstServer:
    """Serves `handler` (a HeadFirstHandler) on `address`; `shutdown()` from another thread
    stops `serve_forever()`, `server_close()` frees the port."""

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[HeadFirstHandler],
        limits: Limits,
        *,
        family: socket.AddressFamily,
    ) -> None:
        self.handler = handler
        self.request_queue_size = backlog = limits.backlog
        self.head_deadline = limits.head_deadline
        self.max_head_bytes = limits.max_head_bytes
        self.max_waiting = limits.max_waiting
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        try:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.socket.bind(address)
            self.socket.listen(backlog)
        except BaseException:
            self.socket.close()
            raise
        self.socket.setblocking(False)
        self.server_address: tuple[Any, ...] = self.socket.getsockname()
        self._slots = threading.BoundedSemaphore(limits.max_serving)
        self._held: set[int] = set()  # the connections holding a slot
        self._held_lock = threading.Lock()
        self._waiting: dict[socket.socket, _Waiting] = {}  # oldest first
        self._wake_read, self._wake_write = socket.socketpair()
        self._stop = threading.Event()
        self._stopped = threading.Event()
        self._stopped.set()

    # The loop: accept, read heads, close what is late.

    @classmethod
    def on(
        cls, host: str, port: int, handler: type[HeadFirstHandler], limits: Limits
    ) -> HeadFirstServer:
        """Listening on `host` (an IPv6 address with or without its brackets) and `port`."""
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        return cls((host.strip("[]"), port), handler, limits, family=family)

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        self._stop.clear()
        self._stopped.clear()
        selector = selectors.DefaultSelector()
        try:
            selector.register(self.socket, selectors.EVENT_READ, "accept")
            selector.register(self._wake_read, selectors.EVENT_READ, "wake")
            while not self._stop.is_set():
                for key, _ in selector.select(self._next_wait(poll_interval)):
                    if key.data == "accept":
                        self._accept(selector)
                    elif key.data == "wake":
                        self._wake_read.recv(4096)
                    else:
                        self._read(selector, key.fileobj)  # type: ignore[arg-type]
                self._close_late(selector)
        finally:
            for connection in list(self._waiting):
                connection.close()
            self._waiting.clear()
            selector.close()
            self._stopped.set()

    def _next_wait(self, poll_interval: float) -> float:
        if not self._waiting:
            return poll_interval
        first = next(iter(self._waiting.values()))  # the oldest has the nearest deadline
        return max(0.0, min(poll_interval, first.deadline - time.monotonic()))

    def _accept(self, selector: selectors.BaseSelector) -> None:
        for _ in range(self.request_queue_size):  # what is ready now, not forever
            try:
                connection, address = self.socket.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # out of descriptors, a reset before accept: the next one
                return
            connection.setblocking(False)
            if len(self._waiting) >= self.max_waiting:
                oldest = next(iter(self._waiting))
                self._forget(selector, oldest)
                _answer_and_close(oldest, "408 Request Timeout")
            self._waiting[connection] = _Waiting(address, time.monotonic() + self.head_deadline)
            selector.register(connection, selectors.EVENT_READ, "head")

    def _read(self, selector: selectors.BaseSelector, connection: socket.socket) -> None:
        waiting = self._waiting.get(connection)
        if waiting is None:
            return
        try:
            data = connection.recv(16384)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # the client went away before its head ended
            self._forget(selector, connection)
            connection.close()
            return
        # Only the new bytes (and the three before them) can complete the blank line: a
        # head trickled a byte at a time is not searched whole at every byte.
        start = max(0, len(waiting.head) - 3)
        waiting.head += data
        if any(waiting.head.find(end, start) >= 0 for end in HEAD_END):
            self._forget(selector, connection)
            self._dispatch(connection, waiting.address, bytes(waiting.head))
        elif len(waiting.head) > self.max_head_bytes:
            self._forget(selector, connection)
            _answer_and_close(connection, "431 Request Header Fields Too Large")

    def _close_late(self, selector: selectors.BaseSelector) -> None:
        now = time.monotonic()
        while self._waiting:
            connection, waiting = next(iter(self._waiting.items()))
            if waiting.deadline > now:
                return
            self._forget(selector, connection)
            _answer_and_close(connection, "408 Request Timeout")

    def _forget(self, selector: selectors.BaseSelector, connection: socket.socket) -> None:
        del self._waiting[connection]
        selector.unregister(connection)

    # A complete head: a slot and a thread.

    def _dispatch(self, connection: socket.socket, address: Any, head: bytes) -> None:
        if not self._slots.acquire(blocking=False):
            _answer_and_close(connection, "503 Service Unavailable")
            return
        with self._held_lock:
            self._held.add(id(connection))
        connection.setblocking(True)
        self.process_request(connection, address, head)

    def process_request(self, connection: socket.socket, address: Any, head: bytes = b"") -> None:
        """Answer on a thread of its own; the caller holds a slot for `connection`."""
        with self._held_lock:
            if id(connection) not in self._held:  # called directly (tests): take a slot
                self._slots.acquire()
                self._held.add(id(connection))
        thread = threading.Thread(
            target=self._answer, args=(connection, address, head), daemon=True
        )
        try:
            thread.start()
        except BaseException:
            # A Ctrl-C while the thread starts: it may be running (and gives the slot
            # back itself). Released twice, the semaphore would raise ValueError in place
            # of the KeyboardInterrupt, and the server would go on.
            self._give_back(connection)
            raise

    def _answer(self, connection: socket.socket, address: Any, head: bytes) -> None:
        try:
            self.handler(connection, address, self, head)
        except Exception:
            pass  # a client gone mid-answer: nothing to tell anyone
        finally:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_WR)
            connection.close()
            self._give_back(connection)

    def _give_back(self, connection: socket.socket) -> None:
        with self._held_lock:
            if id(connection) not in self._held:
                return
            self._held.discard(id(connection))
        self._slots.release()

    # Stopping.

    def shutdown(self) -> None:
        self._stop.set()
        with contextlib.suppress(OSError):
            self._wake_write.send(b"x")
        self._stopped.wait()

    def server_close(self) -> None:
        self.socket.close()
        self._wake_read.close()
        self._wake_write.close()
