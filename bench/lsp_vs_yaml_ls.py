"""checkspec's language server side by side with yaml-language-server 2.0.0.

    .venv/bin/python bench/lsp_vs_yaml_ls.py                      # N = 500, 2000, 8000
    .venv/bin/python bench/lsp_vs_yaml_ls.py --sizes 500 --edits 6 --only checkspec

Both servers get the same suite files (bench/workload.py: the engine benchmark's scenario,
repeated N times) over stdio, alternating per size (checkspec, yaml-ls, then the next N).
yaml-language-server is installed from npm into bench/.yaml-ls/ (git-ignored) on first use
and pointed at our committed schemas through workspace/didChangeConfiguration (`yaml.schemas`,
schema store off). Each server, as an editor drives it:

- initialize: from spawning the process to the initialize result;
- ready: from spawning the process to the answer of its first request after
  `initialized` (a hover in a file not open). checkspec answers `initialize` before it has
  loaded pygls (server/early_initialize.py) and loads it meanwhile; this is when it serves;
- open: didOpen, sent once the server is ready, -> the first diagnostics of the file;
- edits: 20 edits alternately breaking a `kind:` value in the middle scenario and restoring
  it, each sent as the server asked (incremental range or whole text) once the previous
  one is reflected; the time until the diagnostics reflect it (an error in that scenario,
  or none). Median and max;
- completion at a `kind:` value and hover on a kind: medians of several requests;
- peak RSS: the server process's VmHWM;
- checkspec only: the longest garbage-collection pause during the edits, logged by the
  server to CHECKSPEC_GC_LOG.

The machine is shared: the load average is printed first; compare ratios within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.workload import write_suite_yaml  # noqa: E402

YAML_LS_VERSION = "2.0.0"
YAML_LS_DIR = ROOT / "bench" / ".yaml-ls"
YAML_LS_BIN = YAML_LS_DIR / "node_modules" / "yaml-language-server" / "bin" / "yaml-language-server"
OUT = ROOT / "bench" / "out"
TIMEOUT = 300.0  # seconds for any one answer: a server that needs more has failed


@dataclass
class Result:
    initialize: float = 0.0
    ready: float = 0.0
    open: float = 0.0
    edits: list[float] = field(default_factory=list)
    completion: list[float] = field(default_factory=list)
    completion_items: int = 0
    hover: list[float] = field(default_factory=list)
    peak_mib: float = 0.0
    gc_max_ms: float | None = None
    gc_over_50ms: int | None = None


class Client(LanguageClient):
    """A bare editor: stores diagnostics, answers the few requests servers make."""

    def __init__(self, settings: dict[str, Any]) -> None:
        super().__init__("bench-client", "1")
        self.settings = settings
        self.published: dict[str, list[types.Diagnostic]] = {}
        self.changed = asyncio.Event()

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.published[params.uri] = list(params.diagnostics)
            self.changed.set()

        @self.feature(types.WORKSPACE_CONFIGURATION)
        def configuration(params: types.ConfigurationParams) -> list[Any]:
            return [self.settings.get(item.section or "", None) for item in params.items]

        @self.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(params: types.RegistrationParams) -> None:
            return None

        @self.feature(types.WINDOW_LOG_MESSAGE)
        def log(params: types.LogMessageParams) -> None:
            return None

    async def until(self, uri: str, predicate: Any) -> None:
        """Wait for diagnostics of `uri` that satisfy `predicate`."""
        deadline = time.perf_counter() + TIMEOUT
        while True:
            found = self.published.get(uri)
            if found is not None and predicate(found):
                return
            self.changed.clear()
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"no matching diagnostics for {uri}")
            await asyncio.wait_for(self.changed.wait(), left)


@dataclass
class Server:
    name: str
    command: list[str]
    settings: dict[str, Any]  # pushed with didChangeConfiguration, answered when pulled
    env: dict[str, str] = field(default_factory=dict)


def _capabilities() -> types.ClientCapabilities:
    markdown = [types.MarkupKind.Markdown, types.MarkupKind.PlainText]
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=["utf-16"]),
        workspace=types.WorkspaceClientCapabilities(configuration=True),
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(),
            completion=types.CompletionClientCapabilities(
                completion_item=types.ClientCompletionItemOptions(
                    snippet_support=True, documentation_format=markdown
                )
            ),
            hover=types.HoverClientCapabilities(content_format=markdown),
        ),
    )


def _peak_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _sync_kind(result: types.InitializeResult) -> types.TextDocumentSyncKind:
    sync = result.capabilities.text_document_sync
    if isinstance(sync, types.TextDocumentSyncOptions):
        return sync.change or types.TextDocumentSyncKind.None_
    return sync if sync is not None else types.TextDocumentSyncKind.None_


def _gc_pauses(path: Path) -> list[float]:
    if not path.exists():
        return []
    return [float(line.split()[1]) for line in path.read_text().splitlines() if line.strip()]


async def measure(
    server: Server, path: Path, target: dict[str, int], edits: int, full_sync: bool = False
) -> Result:
    result = Result()
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    client = Client(server.settings)
    gc_log = Path(tempfile.mkstemp(prefix="gc-", suffix=".log")[1])
    env = {**os.environ, **server.env, "CHECKSPEC_GC_LOG": str(gc_log)}
    started = time.perf_counter()
    await client.start_io(*server.command, env=env)
    pid = client._server.pid  # type: ignore[union-attr]  # noqa: SLF001
    try:
        init = await asyncio.wait_for(
            client.initialize_async(
                types.InitializeParams(
                    capabilities=_capabilities(),
                    root_uri=path.parent.as_uri(),
                    workspace_folders=[types.WorkspaceFolder(path.parent.as_uri(), "bench")],
                )
            ),
            TIMEOUT,
        )
        result.initialize = time.perf_counter() - started
        client.initialized(types.InitializedParams())
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings=server.settings)
        )
        try:  # any answer will do, an error too: the server reads requests again
            await asyncio.wait_for(
                client.text_document_hover_async(
                    types.HoverParams(
                        types.TextDocumentIdentifier(path.with_name("none.yaml").as_uri()),
                        types.Position(0, 0),
                    )
                ),
                TIMEOUT,
            )
        except TimeoutError:
            raise
        except Exception:  # an error answer: the server read the request
            pass
        result.ready = time.perf_counter() - started
        # --full-sync: send whole texts as a full-sync client does, whatever the server takes.
        incremental = not full_sync and _sync_kind(init) == types.TextDocumentSyncKind.Incremental

        started = time.perf_counter()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, text))
        )
        await client.until(uri, lambda found: True)
        result.open = time.perf_counter() - started

        first, last = target["first"], target["last"]

        def in_scenario(found: list[types.Diagnostic]) -> bool:
            return any(first <= d.range.start.line <= last for d in found)

        line, column = target["line"], target["column"]
        original = text.split("\n")[line][column:]  # the kind, e.g. "equals"
        word = original.strip()
        gc_log.write_text("")
        for number in range(edits):
            broken = number % 2 == 0
            old, new = (word, word + "zz") if broken else (word + "zz", word)
            edit_range = types.Range(
                types.Position(line, column), types.Position(line, column + len(old))
            )
            text = _replace_line_part(text, line, column, old, new)
            change: Any = (
                types.TextDocumentContentChangePartial(range=edit_range, text=new)
                if incremental
                else types.TextDocumentContentChangeWholeDocument(text=text)
            )
            started = time.perf_counter()
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    types.VersionedTextDocumentIdentifier(version=number + 2, uri=uri), [change]
                )
            )
            want = in_scenario if broken else (lambda found: not in_scenario(found))
            await client.until(uri, want)
            result.edits.append(time.perf_counter() - started)
        pauses = _gc_pauses(gc_log)
        if server.name == "checkspec":
            result.gc_max_ms = max(pauses, default=0.0)
            result.gc_over_50ms = sum(1 for p in pauses if p > 50)

        doc = types.TextDocumentIdentifier(uri)
        at = types.Position(line, column)
        for _ in range(5):
            started = time.perf_counter()
            found = await asyncio.wait_for(
                client.text_document_completion_async(types.CompletionParams(doc, at)), TIMEOUT
            )
            result.completion.append(time.perf_counter() - started)
            items = found.items if isinstance(found, types.CompletionList) else found or []
            result.completion_items = len(items)
        on_kind = types.Position(line, column + 1)
        for _ in range(10):
            started = time.perf_counter()
            await asyncio.wait_for(
                client.text_document_hover_async(types.HoverParams(doc, on_kind)), TIMEOUT
            )
            result.hover.append(time.perf_counter() - started)
        result.peak_mib = _peak_mib(pid)
        await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
        client.exit(None)
    finally:
        process = client._server  # type: ignore[union-attr]  # noqa: SLF001
        if process is not None and process.returncode is None:
            process.kill()
        await asyncio.wait_for(client.stop(), 10)
        gc_log.unlink(missing_ok=True)
    return result


def _replace_line_part(text: str, line: int, column: int, old: str, new: str) -> str:
    lines = text.split("\n")
    assert lines[line][column : column + len(old)] == old, (lines[line], old)
    lines[line] = lines[line][:column] + new + lines[line][column + len(old) :]
    return "\n".join(lines)


def _target(text: str, count: int) -> dict[str, int]:
    """Where the edits go: the `kind: equals` of the middle scenario, and its line span."""
    lines = text.split("\n")
    name = f"- name: scenario-{count // 2:05d}"
    first = lines.index(name)
    last = first + 1
    while last < len(lines) and not lines[last].startswith("- "):
        last += 1
    line = next(i for i in range(first, last) if lines[i].strip() == "- kind: equals")
    column = lines[line].index("equals")
    return {"first": first, "last": last - 1, "line": line, "column": column}


def _ensure_yaml_ls() -> Path:
    if not YAML_LS_BIN.exists():
        YAML_LS_DIR.mkdir(parents=True, exist_ok=True)
        print(f"installing yaml-language-server {YAML_LS_VERSION} into {YAML_LS_DIR} ...")
        subprocess.run(
            [
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                f"yaml-language-server@{YAML_LS_VERSION}",
            ],
            cwd=YAML_LS_DIR,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return YAML_LS_BIN


def _servers(only: str | None) -> list[Server]:
    schemas = {(ROOT / "schemas" / "suite.schema.json").as_uri(): "*.suite.yaml"}
    servers = [
        Server("checkspec", [sys.executable, "-m", "checkspec.server"], {"checkspec": {}}),
        Server(
            "yaml-ls",
            ["node", str(_ensure_yaml_ls()) if only != "checkspec" else "", "--stdio"],
            {
                "yaml": {
                    "schemas": schemas,
                    "schemaStore": {"enable": False},
                    "validate": True,
                    "completion": True,
                    "hover": True,
                }
            },
        ),
    ]
    return [s for s in servers if only is None or s.name == only]


def _median_ms(values: list[float]) -> str:
    return f"{1000 * statistics.median(values):.0f} ms" if values else "n/a"


def _seconds(value: float) -> str:
    return f"{value:.3f} s" if value < 10 else f"{value:.1f} s"


def _ratio(ours: float, theirs: float) -> str:
    return f"{theirs / ours:.1f}x" if ours > 0 else "n/a"


def _table(sizes: list[int], results: dict[tuple[str, int], Result]) -> str:
    names = sorted({name for name, _ in results}, key=lambda n: n != "checkspec")
    both = names == ["checkspec", "yaml-ls"]
    head = "| | " + " | ".join(f"N={n:,}" for n in sizes) + " |"
    rows = [head, "| --- |" + " --- |" * len(sizes)]

    def row(label: str, cell: Any) -> None:
        rows.append(f"| {label} | " + " | ".join(cell(n) for n in sizes) + " |")

    def pair(metric: Any, fmt: Any) -> Any:
        def cell(n: int) -> str:
            got = [results.get((name, n)) for name in names]
            if any(r is None for r in got):
                return "n/a"
            values = [metric(r) for r in got]
            shown = " / ".join(fmt(v) for v in values)
            return f"{shown} ({_ratio(values[0], values[1])})" if both else shown

        return cell

    who = " / ".join(names)
    median = statistics.median
    row(f"initialize, {who}", pair(lambda r: r.initialize, _seconds))
    row(f"ready (spawn → first request answered), {who}", pair(lambda r: r.ready, _seconds))
    row(f"open → first diagnostics, {who}", pair(lambda r: r.open, _seconds))
    row(f"edit → diagnostics (median), {who}", pair(lambda r: median(r.edits), _seconds))
    row(f"edit → diagnostics (max), {who}", pair(lambda r: max(r.edits), _seconds))
    row(
        f"completion at a `kind:` value (median), {who}",
        pair(lambda r: median(r.completion), _seconds),
    )
    row(f"hover on a kind (median), {who}", pair(lambda r: median(r.hover), _seconds))
    row(f"peak memory, {who}", pair(lambda r: r.peak_mib, lambda v: f"{v:,.0f} MiB"))
    if "checkspec" in names:

        def gc_cell(n: int) -> str:
            r = results.get(("checkspec", n))
            if r is None or r.gc_max_ms is None:
                return "n/a"
            return f"{r.gc_max_ms:.0f} ms ({r.gc_over_50ms} over 50 ms)"

        row("checkspec: longest GC pause during the edits", gc_cell)
    return "\n".join(rows)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--sizes", default="500,2000,8000", help="scenario counts (comma-separated)"
    )
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--only", choices=["checkspec", "yaml-ls"])
    parser.add_argument("--json", type=Path, help="write every measurement here")
    parser.add_argument(
        "--full-sync",
        action="store_true",
        help="send each edit as the whole text (a full-sync client), not as a range",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}, {os.cpu_count()} CPUs")
    servers = _servers(args.only)
    results: dict[tuple[str, int], Result] = {}
    for count in sizes:
        path = write_suite_yaml(OUT / f"lsp-{count}.suite.yaml", count)
        target = _target(path.read_text(encoding="utf-8"), count)
        for server in servers:
            print(f"N={count:,} {server.name} ...", flush=True)
            results[(server.name, count)] = found = await measure(
                server, path, target, args.edits, args.full_sync
            )
            print(
                f"  initialize {found.initialize:.3f} s, ready {found.ready:.3f} s, open {found.open:.3f} s, edits median "
                f"{_median_ms(found.edits)} (max {max(found.edits):.3f} s), completion "
                f"{_median_ms(found.completion)} ({found.completion_items} items), hover "
                f"{_median_ms(found.hover)}, peak {found.peak_mib:.0f} MiB"
                + (
                    f", longest GC pause {found.gc_max_ms:.0f} ms"
                    if found.gc_max_ms is not None
                    else ""
                ),
                flush=True,
            )
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
    print()
    print(_table(sizes, results))
    if args.json:
        data = {f"{name} N={n}": vars(r) for (name, n), r in results.items()}
        args.json.write_text(json.dumps(data, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
