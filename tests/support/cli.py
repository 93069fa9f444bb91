"""The command line called in-process: `main([...])` in a folder, its output captured.

For tests of what a command does (its output, its exit code, the files it writes): a
process of its own costs each call the interpreter's start and the engine's imports
(~0.5 s under coverage). Tests of how the process itself behaves (signals, pipes, the
shell's exit status, the environment a process starts with) keep a real subprocess.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from checkspec.engine.cli.main import main


@dataclass(frozen=True)
class Done:
    """What subprocess.run(..., capture_output=True, text=True) would have given."""

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str


def _stream() -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="replace", write_through=True)


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    raw = stream.buffer.getvalue()  # type: ignore[attr-defined]
    # As a text-mode pipe reads it: universal newlines.
    return raw.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")


def run_main(
    cwd: Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    unset: tuple[str, ...] = (),
) -> Done:
    """`checkspec ARGS` run in `cwd`, in this process; `env`: variables set for the call,
    `unset`: prefixes of variables taken away for it (as a subprocess's `env=` would)."""
    out, err = _stream(), _stream()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        with (
            pytest.MonkeyPatch.context() as patch,
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            for name in [n for n in os.environ if unset and n.startswith(unset)]:
                patch.delenv(name)
            for name, value in (env or {}).items():
                patch.setenv(name, value)
            try:
                code = main(list(args))
            except SystemExit as ended:  # argparse's usage errors
                code = ended.code if isinstance(ended.code, int) else 1 if ended.code else 0
    finally:
        os.chdir(here)
        gc.unfreeze()  # main() freezes what is alive before a process's exit
    return Done(tuple(args), code, _text(out), _text(err))
