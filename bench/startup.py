"""How long checkspec takes to start: whole processes, median of N runs each.

    .venv/bin/python bench/startup.py            # 10 runs of each
    .venv/bin/python bench/startup.py --runs 20

- `python -c pass`: the bare interpreter (the yardstick of the issue's "within 3x");
- `checkspec --version`, `checkspec --help`: the console script, as a user runs it;
- `checkspec validate` of one small scenario file (two deterministic checks);
- `import lsprotocol.types` and `import pygls.lsp.server` alone: what any pygls server
  loads before it can answer;
- the language server: from spawning `python -m checkspec.server` to the `initialize`
  result (a JSON-RPC client written here with the standard library, so the client's own
  imports are not counted), then to the first diagnostics of a small file it opens; and
  to the `initialize` result when started as `checkspec lsp`, as the VS Code extension
  does (the CLI finds the server through its entry point).

Runs alternate between the commands, so they see the same load. The load average is
printed before and after: on a shared machine everything scales with it. The commands run
with Python's bytecode cache on (one warm-up run of each writes it first), as after a
`pip install`, even when PYTHONDONTWRITEBYTECODE is set here (without the cache every
module is compiled from source at each start: about 0.2 s more for the server).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SMALL = """\
name: greeting
steps:
  - interacts:
      - inputs: hi
        outputs: hello there
    checks:
      - kind: string_matching
        keyword: hello
      - kind: equals
        expected_value: hello there
"""


def _frame(payload: dict[str, object]) -> bytes:
    body = json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read_message(stream) -> dict[str, object]:  # type: ignore[no-untyped-def]
    length = 0
    while True:
        line = stream.readline()
        if not line:
            raise EOFError("the server closed its output")
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(stream.read(length))


ENV = dict(os.environ)


SERVER = [sys.executable, "-m", "checkspec.server"]
EDITOR_SERVER = [str(BIN / "checkspec"), "lsp"]  # how the VS Code extension starts it


def server_start(
    spec: Path, exit_after_initialize: bool = False, argv: list[str] = SERVER
) -> tuple[float, float]:
    """(spawn -> initialize result, spawn -> first diagnostics of `spec`), in seconds.

    With `exit_after_initialize`: (spawn -> initialize result, the server's CPU seconds
    up to it), the server killed as soon as it answered.
    """
    cpu = _children_cpu()
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=spec.parent,
        env=ENV,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(
            _frame(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "processId": os.getpid(),
                        "rootUri": spec.parent.as_uri(),
                        "capabilities": {},
                    },
                }
            )
        )
        proc.stdin.flush()
        while _read_message(proc.stdout).get("id") != 1:
            pass
        initialized = time.perf_counter() - start
        if exit_after_initialize:
            # Killed at once: a server that answers before it has loaded everything would
            # go on loading before it read an `exit`; its CPU up to the answer is wanted.
            proc.kill()
            proc.wait(timeout=10)
            return initialized, _children_cpu() - cpu
        uri = spec.as_uri()
        for message in (
            {"jsonrpc": "2.0", "method": "initialized", "params": {}},
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {
                        "uri": uri,
                        "languageId": "yaml",
                        "version": 1,
                        "text": spec.read_text(encoding="utf-8"),
                    }
                },
            },
        ):
            proc.stdin.write(_frame(message))
        proc.stdin.flush()
        while True:
            message = _read_message(proc.stdout)
            if message.get("method") == "textDocument/publishDiagnostics":
                if message["params"]["uri"] == uri:  # type: ignore[index]
                    break
            elif "id" in message and "method" in message:  # a request of the server
                proc.stdin.write(_frame({"jsonrpc": "2.0", "id": message["id"], "result": None}))
                proc.stdin.flush()
        diagnosed = time.perf_counter() - start
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
        proc.stdin.flush()
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return initialized, diagnosed


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one whole process."""
    cpu = _children_cpu()
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, _children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    checkspec = str(BIN / "checkspec")
    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)
        spec = cwd / "greeting.scenario.yaml"
        spec.write_text(SMALL, encoding="utf-8")
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            # the floor of the server's start: pygls and the LSP types it is built on
            "python -c 'import lsprotocol.types'": [
                sys.executable,
                "-c",
                "import lsprotocol.types",
            ],
            "python -c 'import pygls.lsp.server'": [
                sys.executable,
                "-c",
                "import pygls.lsp.server",
            ],
            "checkspec --version": [checkspec, "--version"],
            "checkspec --help": [checkspec, "--help"],
            "checkspec validate (one small file)": [checkspec, "validate", str(spec)],
        }
        check = subprocess.run(commands["checkspec validate (one small file)"], cwd=cwd, env=ENV)
        assert check.returncode == 0, "the small file should be valid"
        for argv in commands.values():  # warm-up: the bytecode cache is written
            timed(argv, cwd)
        server_start(spec)
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        times["server: spawn -> initialize result"] = []
        times["server: spawn -> first diagnostics"] = []
        print(f"load average before: {os.getloadavg()[0]:.2f}", file=sys.stderr)
        for _ in range(args.runs):
            for name, argv in commands.items():
                wall, cpu = timed(argv, cwd)
                times[name].append(wall)
                cpus[name].append(cpu)
            initialized, diagnosed = server_start(spec)
            times["server: spawn -> initialize result"].append(initialized)
            times["server: spawn -> first diagnostics"].append(diagnosed)
            cpus.setdefault("server: spawn -> initialize result", []).append(
                server_start(spec, exit_after_initialize=True)[1]
            )
            initialized, cpu = server_start(spec, exit_after_initialize=True, argv=EDITOR_SERVER)
            times.setdefault("`checkspec lsp`: spawn -> initialize result", []).append(initialized)
            cpus.setdefault("`checkspec lsp`: spawn -> initialize result", []).append(cpu)
        print(f"load average after: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    bare = statistics.median(times["python -c pass"])
    print(f"| command (median of {args.runs}) | wall ms | min ms | x python -c pass | CPU ms |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, values in times.items():
        median = statistics.median(values)
        cpu = f"{statistics.median(cpus[name]) * 1000:.0f}" if name in cpus else "-"
        print(
            f"| {name} | {median * 1000:.0f} | {min(values) * 1000:.0f} "
            f"| {median / bare:.1f} | {cpu} |"
        )


if __name__ == "__main__":
    main()
