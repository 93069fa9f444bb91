"""The tests' own layout (issue 37): a test module imports helpers from tests/support (or
its folder's conftest fixtures), never from another test module, so a newcomer finds a
helper in one place and running one test file never runs another's module code."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent


def _imported(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return found


def test_no_test_module_imports_another() -> None:
    wrong = [
        f"{path.relative_to(TESTS.parent)} imports {module}"
        for path in sorted(TESTS.rglob("*.py"))
        for module in _imported(path)
        if module.startswith("tests.") and module.rsplit(".", 1)[-1].startswith("test_")
    ]
    assert wrong == [], "move the shared helper to tests/support:\n" + "\n".join(wrong)
