"""Lanes: each test is marked by what it starts, found from its code, not from a list.

A test is `subprocess` when its code (the test, its fixtures, and the test helpers they
call, followed through tests/) names something that starts a process: `subprocess`,
`Popen`, `multiprocessing`, a pytest_lsp client (`lsp_client`: the language server over
stdio), `pytester` (an inner pytest whose runs use worker processes), the executors'
worker pools. It is `server` when it starts a server or reaches the network: the
OpenAI-compatible stub (a local HTTP server), sockets, HTTP clients.

`make check` runs `-m fast` with CHECKSPEC_TEST_LANE=fast: the tests marked neither way.
There a guard (tests/conftest.py) fails any test, fixtures included, that starts a process
or opens an internet socket anyway (the engine or a tool can start one where no name in
the test says so): such a test says what it starts with `pytest.mark.subprocess` (or
`server`) on itself. Property tests draw a tenth of their examples there.
"""

from __future__ import annotations

import contextlib
import inspect
import multiprocessing.process
import os
import socket
import subprocess
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest

# Names whose presence in a test's code (or its fixtures' and helpers') means it starts
# a process.
STARTS_PROCESS = frozenset(
    {
        "subprocess",
        "Popen",
        "create_subprocess_exec",
        "create_subprocess_shell",
        "multiprocessing",
        "ProcessPoolExecutor",
        "WorkerPool",
        "LocalExecutor",
        "RayExecutor",
        "ray",
        "fork",
        "execv",
        "ClientServerConfig",
    }
)
# Entry points of the product that start worker processes whatever the test's names say:
# `checkspec run` in-process runs scenarios in a worker pool.
STARTERS = frozenset({("checkspec.engine.cli.main", "main")})
# ... a server, or the network.
STARTS_SERVER = frozenset(
    {
        "running_stub",
        "OpenAIStub",
        "ThreadingHTTPServer",
        "HTTPServer",
        "socket",
        "urlopen",
        "httpx",
        "serve_forever",
    }
)
# Fixtures that start something whatever their code says (their code lives in plugins).
PROCESS_FIXTURES = frozenset({"lsp_client", "pytester", "testdir"})

LANE_ENV = "CHECKSPEC_TEST_LANE"  # "fast": the guard below is on


def _names(code: types.CodeType) -> Iterator[str]:
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _reached(func: Callable[..., Any], seen: set[int]) -> Iterator[str]:
    """The global and attribute names `func` uses, and those of the test helpers it
    calls (functions and classes of tests/, followed once each)."""
    func = inspect.unwrap(func)
    code = getattr(func, "__code__", None)
    if code is None or id(code) in seen:
        return
    seen.add(id(code))
    module_globals = getattr(func, "__globals__", {})
    for name in _names(code):
        yield name
        value = module_globals.get(name)
        if type(value).__name__ in STARTS_PROCESS:  # e.g. a ClientServerConfig
            yield type(value).__name__
        if inspect.isfunction(value) and (value.__module__, value.__name__) in STARTERS:
            yield "subprocess"
        for target in _helpers(value):
            yield from _reached(target, seen)


def _of_tests(value: Any) -> bool:
    module = getattr(value, "__module__", None) or ""
    return module.startswith("tests.") and module != __name__


def _helpers(value: Any) -> Iterator[Callable[..., Any]]:
    if not _of_tests(value):
        return
    if inspect.isfunction(value):
        yield value
    elif inspect.isclass(value):
        for member in vars(value).values():
            if inspect.isfunction(member):
                yield member


def lane_of(item: pytest.Item) -> str:
    """The lane of `item`: subprocess, server or fast."""
    fixtures = set(getattr(item, "fixturenames", ()))
    if fixtures & PROCESS_FIXTURES:
        return "subprocess"
    funcs: list[Callable[..., Any]] = []
    if isinstance(item, pytest.Function):
        funcs.append(item.function)
        info = getattr(item, "_fixtureinfo", None)
        for defs in info.name2fixturedefs.values() if info else ():
            for d in defs:
                if (getattr(d.func, "__module__", None) or "").startswith("pytest_lsp"):
                    return "subprocess"  # a pytest_lsp.fixture: a server over stdio
                if _of_tests(d.func):
                    funcs.append(d.func)
    seen: set[int] = set()
    names = {name for func in funcs for name in _reached(func, seen)}
    if names & STARTS_PROCESS:
        return "subprocess"
    if names & STARTS_SERVER:
        return "server"
    return "fast"


def mark_lanes(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("subprocess") or item.get_closest_marker("server"):
            continue
        lane = lane_of(item)
        item.add_marker(lane)


class StartedSomething(Exception):
    """Raised in the fast lane when a test starts a process or opens a network socket."""


def _refuse(what: str) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise StartedSomething(
            f"this test {what} in the fast lane (make check): mark it "
            "@pytest.mark.subprocess or @pytest.mark.server (tests/support/lanes.py)"
        )

    return refuse


@contextlib.contextmanager
def guarded() -> Iterator[None]:
    """Starting a process, forking, or an internet socket's connect or bind raise."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(subprocess.Popen, "__init__", _refuse("starts a process"))
        patch.setattr(multiprocessing.process.BaseProcess, "start", _refuse("starts a process"))
        patch.setattr(os, "fork", _refuse("forks"))
        real_connect, real_bind = socket.socket.connect, socket.socket.bind

        def connect(self: socket.socket, address: Any) -> Any:
            if self.family in (socket.AF_INET, socket.AF_INET6):
                _refuse("opens a network connection")()
            return real_connect(self, address)

        def bind(self: socket.socket, address: Any) -> Any:
            if self.family in (socket.AF_INET, socket.AF_INET6):
                _refuse("starts a server")()
            return real_bind(self, address)

        patch.setattr(socket.socket, "connect", connect)
        patch.setattr(socket.socket, "bind", bind)
        yield


def in_fast_lane(item: pytest.Item) -> bool:
    return os.environ.get(LANE_ENV) == "fast" and item.get_closest_marker("fast") is not None


# The fast lane's property tests draw a tenth of their examples (at least FAST_EXAMPLES):
# `make test` keeps every budget.
FAST_EXAMPLES = 20


def trim_examples(item: pytest.Item) -> None:
    test = getattr(item, "obj", None)
    inner = getattr(getattr(test, "hypothesis", None), "inner_test", None)
    chosen = getattr(inner, "_hypothesis_internal_use_settings", None) or getattr(
        test, "_hypothesis_internal_use_settings", None
    )
    if chosen is None:
        return
    from hypothesis import settings

    fewer = settings(chosen, max_examples=max(FAST_EXAMPLES, chosen.max_examples // 10))
    for holder in (test, inner):
        if holder is not None and hasattr(holder, "_hypothesis_internal_use_settings"):
            holder._hypothesis_internal_use_settings = fewer  # noqa: SLF001
