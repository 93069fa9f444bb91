"""A quote or a flow bracket opened and never closed in a .yaml spec file is reported
where it opens (the line to fix), not where the text ran out: on the CLI as
`file:line:col` and in the analysis' Problem range (what the editor underlines)."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkspec.engine.spec.problems import Position, Range
from tests.support.cli import run_main
from tests.support.project_files import load_file

UNCLOSED = {
    "quote": (
        'name: refund\nsteps:\n  - interacts:\n      - inputs: "How long do refunds take?\n'
        "        outputs: thirty days\n    checks:\n"
        "      - {kind: equals, expected_value: thirty days}\n",
        Position(3, 16),
        "the quoted string opened here is never closed (found unexpected end of stream at 8:1)",
    ),
    "list": (
        "name: refund\ntags: [billing, refunds\nsteps:\n  - interacts: [{inputs: a, outputs: b}]\n"
        "    checks: [{kind: equals, expected_value: b}]\n",
        Position(1, 6),
        "the `[` list opened here is never closed (did not find expected ',' or ']' at 3:6)",
    ),
    "mapping": (
        "name: refund\nsteps:\n  - interacts:\n      - {inputs: a, outputs: b\n"
        "    checks: [{kind: equals, expected_value: b}]\n",
        Position(3, 8),
        "the `{` mapping opened here is never closed",
    ),
}


@pytest.mark.parametrize("case", sorted(UNCLOSED))
def test_the_cli_and_the_analysis_place_it_where_it_opens(tmp_path: Path, case: str) -> None:
    text, start, message = UNCLOSED[case]
    path = tmp_path / "t.scenario.yaml"
    path.write_text(text, encoding="utf-8")
    done = run_main(tmp_path, "validate", "t.scenario.yaml")
    assert done.returncode == 2
    where = f"t.scenario.yaml:{start.line + 1}:{start.character + 1}: error: {message}"
    assert where in done.stderr, done.stderr
    [problem] = [p for p in load_file(path).all_problems if p.code == "syntax"]
    assert problem.range == Range(start, Position(start.line, start.character + 1))
