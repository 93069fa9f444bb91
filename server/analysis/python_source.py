"""Where `package.module:function` is defined, found by reading source files (never importing).

A target (`python:agent:answer`) or an `fn` reference names a module and an attribute.
The module is looked for as a file under the folders a run would import it from (the
spec file's folder, then the workspace root, then `sys.path`), and the attribute in its
syntax tree (`ast`): a `def`, `async def`, `class` or assignment, through classes for a
dotted attribute (`Agent.answer`). Nothing is imported or executed.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from checkspec.engine.spec.problems import Position, Range

# A module larger than this is not parsed (a generated file): the link goes to its top.
_MAX_SOURCE_BYTES = 2_000_000


@dataclass(frozen=True)
class SourcePlace:
    path: Path
    range: Range  # of the name in its `def` line, or the file's start


def split_reference(value: str) -> tuple[str, str] | None:
    """`python:pkg.mod:fn` or `pkg.mod:fn` -> ("pkg.mod", "fn"); None for anything else."""
    text = value[len("python:") :] if value.startswith("python:") else value
    module, sep, attr = text.partition(":")
    if not sep or not module or not attr or ":" in attr:
        return None
    names = [*module.split("."), *attr.split(".")]
    if not all(name.isidentifier() for name in names):
        return None
    return module, attr


def module_file(module: str, folders: Iterable[Path], *, use_sys_path: bool = True) -> Path | None:
    """The source file of `module` under the first folder holding it (no import)."""
    parts = module.split(".")
    candidates = list(folders)
    if use_sys_path:
        candidates.extend(Path(p) for p in sys.path if p)
    for folder in candidates:
        base = folder.joinpath(*parts)
        for path in (base.with_suffix(".py"), base / "__init__.py"):
            try:
                if path.is_file():
                    return path
            except OSError:
                continue
    return None


def find_definition(reference: str, folders: Iterable[Path]) -> SourcePlace | None:
    """The `def` of a reference (or its module's top when the name is not found there)."""
    parts = split_reference(reference)
    if parts is None:
        return None
    module, attr = parts
    path = module_file(module, folders)
    if path is None:
        return None
    found = _attribute_range(path, attr.split("."))
    return SourcePlace(path, found or Range.point(0, 0))


def _attribute_range(path: Path, names: list[str]) -> Range | None:
    try:
        if path.stat().st_size > _MAX_SOURCE_BYTES:
            return None
        source = path.read_text(encoding="utf-8", errors="replace")
        tree = ast.parse(source, filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return None
    lines = source.splitlines()
    body: list[ast.stmt] = tree.body
    found: Range | None = None
    for name in names:
        node = _defined_in(body, name)
        if node is None:
            return found
        found = _name_range(node, name, lines)
        body = node.body if isinstance(node, ast.ClassDef) else []
    return found


def _defined_in(body: list[ast.stmt], name: str) -> ast.stmt | None:
    """The last top-level statement of `body` that binds `name` (as Python would keep)."""
    found: ast.stmt | None = None
    for stmt in body:
        if name in _bound_names(stmt):
            found = stmt
    return found


def _bound_names(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [stmt.name]
    if isinstance(stmt, ast.Assign):
        return [t.id for t in stmt.targets if isinstance(t, ast.Name)]
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    if isinstance(stmt, ast.ImportFrom | ast.Import):
        return [alias.asname or alias.name.split(".")[0] for alias in stmt.names]
    return []


def _name_range(node: ast.stmt, name: str, lines: list[str]) -> Range:
    """The name in the statement's first line (`def answer(` -> `answer`), else the line."""
    line = node.lineno - 1  # of a decorated `def`, the `def` line itself
    text = lines[line] if 0 <= line < len(lines) else ""
    column = _word_column(text, name)
    if column is None:
        return Range(Position(line, 0), Position(line, len(text)))
    return Range(Position(line, column), Position(line, column + len(name)))


def _word_column(text: str, name: str) -> int | None:
    start = 0
    while (index := text.find(name, start)) >= 0:
        before = text[index - 1] if index else " "
        after = text[index + len(name)] if index + len(name) < len(text) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return index
        start = index + 1
    return None
