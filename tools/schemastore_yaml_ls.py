"""Our SchemaStore entries as an editor uses them (issue 52 item 7): yaml-language-server,
pointed at a local copy of the catalog (schemas/schemastore-catalog.json with its URLs
moved to a server on 127.0.0.1), validates and completes a `*.scenario.yaml` that has no
modeline. Run by `make e2e` (it installs yaml-language-server from npm, as
bench/lsp_vs_yaml_ls.py does). Exit 0 when both hold.
"""

from __future__ import annotations

import asyncio
import functools
import json
import sys
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from lsprotocol import types

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.lsp_vs_yaml_ls import Client, _capabilities, _ensure_yaml_ls  # noqa: E402

SCENARIO = "name: greets\nsteps:\n  - interacts:\n      - inputs: hi\n    checks:\n      - kind: string_matching\n        keywrod: hello\n"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return None


def _local_copy(folder: Path, base: str) -> None:
    """The catalog and the schemas, with every https://checkspec.dev/schemas URL (the
    entries' and the schemas' $id) moved to the local server."""
    schemas = ROOT / "schemas"
    published = "https://checkspec.dev/schemas"
    for path in schemas.glob("*.json"):
        (folder / path.name).write_text(path.read_text(encoding="utf-8").replace(published, base))


async def check(catalog_url: str, work: Path) -> list[str]:
    settings = {
        "yaml": {
            "schemaStore": {"enable": True, "url": catalog_url},
            "validate": True,
            "completion": True,
            "hover": True,
        }
    }
    client = Client(settings)
    await client.start_io("node", str(_ensure_yaml_ls()), "--stdio")
    problems = []
    try:
        await client.initialize_async(
            types.InitializeParams(capabilities=_capabilities(), root_uri=work.as_uri())
        )
        client.initialized(types.InitializedParams())
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings))
        path = work / "greets.scenario.yaml"
        path.write_text(SCENARIO)
        uri = path.as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, SCENARIO))
        )
        try:
            await asyncio.wait_for(
                client.until(uri, lambda found: any("keywrod" in d.message for d in found)), 60
            )
        except TimeoutError:
            problems.append(
                f"no schema diagnostic for the misspelt key: {client.published.get(uri)}"
            )
        completion = await client.text_document_completion_async(
            types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(1, 0))
        )
        items = (
            completion.items if isinstance(completion, types.CompletionList) else completion or []
        )
        labels = {item.label for item in items}
        if not {"description", "tags"} <= labels:
            problems.append(f"no completion of the scenario's keys: {sorted(labels)[:20]}")
    finally:
        client.shutdown(None)  # type: ignore[arg-type]
        client.exit(None)  # type: ignore[arg-type]
        await client.stop()
    return problems


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        served = Path(folder) / "served"
        work = Path(folder) / "work"
        served.mkdir()
        work.mkdir()
        handler = functools.partial(_Quiet, directory=str(served))
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        base = f"http://127.0.0.1:{server.server_address[1]}"
        _local_copy(served, base)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            problems = asyncio.run(check(f"{base}/schemastore-catalog.json", work))
        finally:
            server.shutdown()
    for problem in problems:
        print(problem, file=sys.stderr)
    entries = json.loads((ROOT / "schemas" / "schemastore-catalog.json").read_text())["schemas"]
    print(
        f"SchemaStore entries ({len(entries)}) in yaml-language-server: "
        + ("FAILED" if problems else "a *.scenario.yaml validated and completed, no modeline")
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
