"""The layers hold: import-linter checks the contracts of pyproject.toml.

`checkspec.engine` never imports `checkspec.server` (the CLI finds `checkspec lsp` by its
entry point), and `checkspec.server.analysis` imports neither pygls nor lsprotocol. The
server's modules import one another without a cycle (the features are typed against
`lsp/host.py`, never `lsp/server.py`, which imports them); so do the engine's, whose
tiers are a contract too (pyproject.toml, ARCHITECTURE.md).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

from checkspec.engine.cli import main as cli
from tests.support.paths import REPO

ROOT = REPO


def _lint(config: Path) -> int:
    here = Path.cwd()
    os.chdir(ROOT)
    try:
        return lint_imports(config_filename=str(config), no_cache=True, no_logo=True)
    finally:
        os.chdir(here)


def test_the_import_contracts_hold() -> None:
    assert _lint(ROOT / "pyproject.toml") == 0


def _cycles(package: str, *, type_only: bool) -> list[tuple[str, ...]]:
    """Each import `a -> b` with a way back from b to a (grimp, import-linter's graph,
    sees imports inside functions; `type_only`: those under TYPE_CHECKING too)."""
    import grimp

    graph = grimp.build_graph(package, cache_dir=None, exclude_type_checking_imports=not type_only)
    cycles = []
    for module in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back is not None:
                cycles.append((module, *back))
    return cycles


def test_the_server_has_no_import_cycle() -> None:
    assert _cycles("checkspec.server", type_only=True) == []


def test_the_engine_has_no_import_cycle() -> None:
    # Annotations may name what imports them (a result names the Suite that made it).
    assert _cycles("checkspec.engine", type_only=False) == []


def test_the_layers_count_imports_inside_functions() -> None:
    # The contract is not blind to deferred imports: `checkspec run` imports the executor
    # inside a function, and grimp sees it.
    import grimp

    graph = grimp.build_graph("checkspec.engine", cache_dir=None)
    assert graph.direct_import_exists(
        importer="checkspec.engine.cli.main", imported="checkspec.engine.executor.start"
    )


def test_a_broken_contract_is_reported(tmp_path: Path) -> None:
    # The contracts are not vacuous: the server does import pygls.
    config = tmp_path / "contracts.toml"
    config.write_text(
        '[tool.importlinter]\nroot_packages = ["checkspec.server"]\n'
        "include_external_packages = true\n"
        "[[tool.importlinter.contracts]]\n"
        'name = "no pygls"\ntype = "forbidden"\n'
        'source_modules = ["checkspec.server.lsp"]\nforbidden_modules = ["pygls"]\n',
        encoding="utf-8",
    )
    assert _lint(config) == 1


def test_lsp_starts_the_server_registered_for_it(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[bool] = []

    class Entry:
        def load(self):  # type: ignore[no-untyped-def]
            return lambda: started.append(True)

    def entry_points(group: str, name: str) -> list[Entry]:
        assert (group, name) == (cli.COMMANDS_GROUP, "lsp")
        return [Entry()]

    monkeypatch.setattr("importlib.metadata.entry_points", entry_points)
    assert cli.main(["lsp"]) == cli.EXIT_OK
    assert started == [True]


def test_lsp_without_a_server_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("importlib.metadata.entry_points", lambda group, name: [])
    assert cli.main(["lsp"]) == cli.EXIT_INVALID
    assert "not installed" in capsys.readouterr().err


def test_the_installed_entry_point_is_the_server() -> None:
    from importlib.metadata import entry_points

    (found,) = entry_points(group=cli.COMMANDS_GROUP, name="lsp")
    assert found.value == "checkspec.server.main:main"
