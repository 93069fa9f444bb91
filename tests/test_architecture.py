"""ARCHITECTURE.md holds against the code (issue 50 item 5): what a test can check of it.

- Its first picture, the tiers, is pyproject.toml's `layers` contract, tier by tier (the
  contract is exhaustive, so the picture names every package of the engine), and the
  front ends it marks as apart (`┃`) are the independence contract's.
- The front ends never import one another, not even for type checkers (import-linter
  leaves those imports out: `exclude_type_checking_imports`).
- Every package of the engine has its line under "The packages and what each promises",
  and every package named there or in the picture exists (a name in parentheses is a
  place kept for a module not written yet).
- Every file the page points to is there, and so is every definition it names as
  "FILE's `NAME`" (a pointer goes stale when code moves).
- litellm and the openai SDK are imported only in engine/llm/client.py.
"""

from __future__ import annotations

import ast
import os
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import grimp

from tests.support.paths import REPO

PAGE = REPO / "ARCHITECTURE.md"
ENGINE = REPO / "engine"
FRONT_ENDS = {
    "cli": "checkspec.engine.cli",
    "pytest_plugin": "checkspec.engine.pytest_plugin",
    "server": "checkspec.server",
}
# Folders of the checkout that hold no file the page may point to.
NOT_SOURCE = {".git", "node_modules", "build", "dist", "__pycache__", ".typecheck"}


def _page() -> str:
    return PAGE.read_text(encoding="utf-8")


def _section(title: str) -> str:
    text = _page()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def _contracts(kind: str) -> list[dict[str, object]]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == kind]


def _pictured_tiers() -> list[tuple[str, list[str]]]:
    """(name, names) of each tier of the picture: `N  tier name  a  b ┃ c ...`, its names
    going on over the indented lines below it; `│` lines join the tiers."""
    picture = _section("Tiers").split("```")[1]
    tiers: list[tuple[str, list[str]]] = []
    for line in picture.splitlines():
        opening = re.match(r"^\s*\d+\s+(\S+(?: \S+)*)\s{2,}(\S.*)$", line)
        if opening:
            tiers.append((opening.group(1), opening.group(2).replace("┃", " ").split()))
        elif line.strip() not in ("", "│"):
            tiers[-1][1].extend(line.split())
    return tiers


def _contract_tiers() -> list[list[str]]:
    (layers,) = _contracts("layers")
    assert layers["containers"] == ["checkspec.engine"]
    return [[name.strip() for name in tier.split(":")] for tier in layers["layers"]]  # type: ignore[attr-defined]


def test_the_pictured_tiers_are_the_contract() -> None:
    pictured = _pictured_tiers()
    assert len(pictured) == len(_contract_tiers())
    assert "server" in pictured[0][1]  # the language server is a front end
    engine_only = [[n for n in names if n != "server"] for _, names in pictured]
    assert [sorted(t) for t in engine_only] == [sorted(t) for t in _contract_tiers()]


def test_the_front_ends_pictured_apart_are_the_independent_ones() -> None:
    picture = _section("Tiers").split("```")[1]
    (line,) = [line for line in picture.splitlines() if "┃" in line]
    apart = re.search(r"(\S+(?:\s*┃\s*\S+)+)", line)
    assert apart is not None
    names = [name.strip() for name in apart.group(1).split("┃")]
    (independence,) = _contracts("independence")
    assert {FRONT_ENDS[name] for name in names} == set(independence["modules"])  # type: ignore[arg-type]


def test_the_front_ends_never_import_one_another_even_for_type_checkers() -> None:
    graph = grimp.build_graph(
        "checkspec.engine", "checkspec.server", cache_dir=None, exclude_type_checking_imports=False
    )
    chains = {
        (importer, imported): graph.find_shortest_chains(
            importer=importer, imported=imported, as_packages=True
        )
        for importer in FRONT_ENDS.values()
        for imported in FRONT_ENDS.values()
        if importer != imported
    }
    assert {pair: found for pair, found in chains.items() if found} == {}


def _engine_packages() -> set[str]:
    return {
        path.stem
        for path in ENGINE.iterdir()
        if (path.suffix == ".py" and path.stem != "__init__")
        or (path.is_dir() and (path / "__init__.py").exists())
    }


def _described() -> set[str]:
    """The names each line of "The packages and what each promises" opens with."""
    names: set[str] = set()
    for line in _section("The packages and what each promises").splitlines():
        opening = re.match(r"^- (`[^`]+`(?:, `[^`]+`)*)", line)
        if opening:
            for name in re.findall(r"`([^`]+)`", opening.group(1)):
                names.add(name.removesuffix("/").removesuffix(".py"))
    return names


def test_every_package_of_the_engine_is_described_and_every_one_described_exists() -> None:
    assert _described() == _engine_packages() | {"server"}


def test_every_pictured_name_exists_but_a_place_kept() -> None:
    pictured = {name for _, names in _pictured_tiers() for name in names}
    kept = {name for name in pictured if name.startswith("(")}
    assert pictured - kept == _engine_packages() | {"server"}
    assert not {name.strip("()") for name in kept} & _engine_packages(), (
        "a module now stands in a kept place: drop the parentheses (here and in the contract)"
    )


def _files() -> list[str]:
    found = []
    for folder, folders, files in os.walk(REPO):
        folders[:] = [f for f in folders if f not in NOT_SOURCE and not f.startswith(".venv")]
        found.extend(Path(folder, f).relative_to(REPO).as_posix() for f in files)
    return found


def _matching(pointer: str, files: list[str]) -> list[str]:
    return [f for f in files if f == pointer or f.endswith("/" + pointer)]


def _pointers() -> Iterator[str]:
    # a path with a folder in it, as the page writes them (engine/spec/cancel.py, lsp/runs.py)
    yield from re.findall(r"(?<![\w./*-])((?:[\w-]+/)+[\w.-]+\.(?:py|md|ts|json|toml))", _page())


def test_every_file_the_page_points_to_is_there() -> None:
    files = _files()
    missing = sorted({p for p in _pointers() if not _matching(p, files)})
    assert missing == []


def test_every_definition_the_page_names_is_in_its_file() -> None:
    files = _files()
    named = re.findall(r"`?([\w/]+\.py)`?'s `(\w+)`", _page())
    assert len(named) >= 8  # the pattern still reads the page
    stale = []
    for pointer, name in named:
        defined = re.compile(rf"^\s*(?:async\s+def|def|class)\s+{name}\b|^\s*{name}\s*[:=]", re.M)
        sources = [(REPO / f).read_text(encoding="utf-8") for f in _matching(pointer, files)]
        if not any(defined.search(text) for text in sources):
            stale.append(f"{pointer}'s {name}")
    assert stale == []


def test_only_the_model_client_imports_the_model_sdks() -> None:
    graph = grimp.build_graph(
        "checkspec.engine",
        "checkspec.server",
        cache_dir=None,
        include_external_packages=True,
        exclude_type_checking_imports=False,
    )
    for sdk in ("litellm", "openai"):
        assert graph.find_modules_that_directly_import(sdk) == {"checkspec.engine.llm.client"}


def _code_names() -> set[tuple[str, str]]:
    """(as written, name) of each function or class the page sets in code font:
    `run_settings`, `settings.require_readable`, `use_settings(settings)`, `RunSession`."""
    named = set()
    for written in re.findall(r"`([^`\s]+)`", _page()):
        found = re.match(r"^(?:[\w.]+\.)?([A-Za-z_]\w*)(?:\(.*\))?$", written)
        if found and (
            "_" in found.group(1).strip("_") or re.match(r"^[A-Z][a-z]+[A-Z]\w*$", found.group(1))
        ):
            named.add((written, found.group(1)))
    return named


def test_every_function_and_class_the_page_names_is_defined() -> None:
    code = "\n".join(
        path.read_text(encoding="utf-8")
        for folder in ("engine", "server", "tools")
        for path in (REPO / folder).rglob("*.py")
    )
    named = _code_names()
    assert len(named) >= 20  # the pattern still reads the page
    undefined = sorted(
        written
        for written, name in named
        if not re.search(rf"(?:def|class)\s+{name}\b|^\s*{name}\s*[:=]|\b{name}\s*=", code, re.M)
    )
    assert undefined == []


def test_the_pytest_plugin_defers_the_run_session_executor_and_settings() -> None:
    """It loads in every pytest session (the page, "Front ends"): what a run needs is
    imported inside the functions that run."""
    tree = ast.parse((ENGINE / "pytest_plugin.py").read_text(encoding="utf-8"))
    at_load = [
        node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module is not None
    ]
    assert "spec.kinds" in at_load  # the walk reads the module's top level
    deferred = ("runs", "executor", "settings")
    assert [m for m in at_load if m.split(".")[0] in deferred] == []


def test_every_section_of_the_page_named_elsewhere_is_there() -> None:
    """`ARCHITECTURE.md, "Key contracts"` in a docstring or a doc names a heading (or a
    bold paragraph: "Packaging") that is on the page."""
    page = _page()
    titles = set(re.findall(r"^#+ (.+)$", page, re.M)) | set(re.findall(r"\*\*(.+?)\.\*\*", page))
    cited = {
        (path, title)
        for folder in ("engine", "server", "docs", "tests", "tools")
        for path in (REPO / folder).rglob("*")
        if path.suffix in (".py", ".md") and "reference" not in path.parts
        for title in re.findall(
            r'ARCHITECTURE\.md[,( ]*"([A-Z][^"\n]*)"', path.read_text(encoding="utf-8")
        )
    }
    assert len(cited) >= 3  # the pattern still reads the citations
    assert sorted(f"{p.relative_to(REPO)}: {t}" for p, t in cited if t not in titles) == []
