"""Checks are validated once per text (engine/spec/check_analysis.py, `check_problems`).

When only problems are wanted (the language server, `checkspec validate`), a check whose
text was seen before, at the same column and in the same context, gets the problems found
then, moved to where it now is. These tests pin that it gives exactly what validating
each check again gives, wherever the same text sits.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from checkspec.engine.spec import check_analysis, scenario_analysis
from checkspec.engine.spec.document import Document, analyze
from checkspec.engine.spec.workspace import Workspace
from tests.support.paths import REPO

ROOT = REPO


# The two reuse caches, replaced per test (`fresh` below empties both).
SCENARIOS: dict[Any, Any] = {}
CHECKS: dict[Any, Any] = {}


@pytest.fixture(autouse=True)
def problems_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    SCENARIOS.clear()
    CHECKS.clear()
    monkeypatch.setattr(scenario_analysis, "_CACHE", SCENARIOS)
    monkeypatch.setattr(check_analysis, "_CHECKS", CHECKS)
    yield


def _scenario(name: str, check: str, indent: str = "") -> str:
    body = f"""\
- name: {name}
  steps:
  - interacts:
    - {{inputs: hi, outputs: {{answer: yes}}}}
    checks:
{check}"""
    return "".join(indent + line + "\n" for line in body.splitlines())


BAD = """\
    - kind: string_matching
      key: trace.last.outputs.answr
      keyword: [not, a, string]
"""


def _seen(doc: Document) -> list[Any]:
    """Everything a front end shows of the problems and checks, positions included."""
    problems = sorted(
        (p.range, p.code, p.message, p.severity, p.fix, p.fix_title) for p in doc.every_problem()
    )
    heads = [[(c.step, c.index, c.kind, c.head) for c in e.checks] for e in doc.scenarios]
    return [problems, heads]


def _fresh(
    text: str, path: str, workspace: Workspace | None = None, *, keep: bool = False
) -> list[Any]:
    SCENARIOS.clear()
    CHECKS.clear()
    return _seen(analyze(text, path, workspace or Workspace(), keep=keep))


def _reused(text: str, path: str, workspace: Workspace | None = None) -> list[Any]:
    SCENARIOS.clear()  # every scenario analysed again, its checks from CHECKS
    return _seen(analyze(text, path, workspace or Workspace(), keep=False))


def test_the_same_bad_check_in_many_scenarios_is_reported_at_each() -> None:
    text = "name: s\nscenarios:\n" + "".join(_scenario(f"n{i}", BAD) for i in range(4))
    doc = analyze(text, "s.suite.yaml", keep=False)
    assert len(CHECKS) == 1  # validated once
    lines = [sorted({p.range.start.line for p in e.problems}) for e in doc.scenarios]
    assert lines == [[8, 9], [16, 17], [24, 25], [32, 33]]
    deprecated = [p for p in doc.every_problem() if p.code == "deprecated-alias"]
    assert [p.fix[0].range.start.line for p in deprecated] == [8, 16, 24, 32]
    assert [[c.head.start.line for c in e.checks] for e in doc.scenarios] == [[7], [15], [23], [31]]
    assert _seen(doc) == _fresh(text, "s.suite.yaml")


def test_reused_checks_equal_fresh_ones_after_lines_move() -> None:
    text = "name: s\nscenarios:\n" + "".join(_scenario(f"n{i}", BAD) for i in range(3))
    analyze(text, "s.suite.yaml", keep=False)
    moved = text.replace("scenarios:\n", "# a comment\n\nscenarios:\n")
    assert _reused(moved, "s.suite.yaml") == _fresh(moved, "s.suite.yaml")


def test_the_same_text_at_another_column_is_validated_again() -> None:
    # One line, the same characters: the problems' columns still differ.
    check = "    - {kind: string_matching, key: trace.last.outputs.answr, keyword: [1]}\n"
    flat = "name: s\nscenarios:\n" + _scenario("a", check)
    deep = "name: s\nscenarios:\n" + _scenario("a", check, indent="  ")
    analyze(flat, "s.suite.yaml", keep=False)
    assert _reused(deep, "s.suite.yaml") == _fresh(deep, "s.suite.yaml")
    assert len(CHECKS) == 1
    assert _reused(flat, "s.suite.yaml") != _fresh(deep, "s.suite.yaml")


def test_a_check_in_a_scenario_holding_an_alias_is_not_reused() -> None:
    text = "name: s\nscenarios:\n" + _scenario("a", "    - &c {kind: equals, expected_value: 1}\n")
    text += _scenario("b", "    - *c\n")
    doc = analyze(text, "s.suite.yaml", keep=False)
    keys = [key[0] for key in CHECKS]
    assert keys == ["&c {kind: equals, expected_value: 1}"]  # the anchor's; not `*c`
    assert [len(e.checks) for e in doc.scenarios] == [1, 1]


def test_custom_checks_are_part_of_the_context() -> None:
    from checkspec.engine.spec.workspace import find_workspace

    check = "    - kind: custom_mentions_refund_window\n"
    text = "name: s\nscenarios:\n" + _scenario("a", check)
    alone = _seen(analyze(text, "s.suite.yaml", Workspace(), keep=False))
    assert [p[1] for p in alone[0]] == ["unknown-custom-check"]
    workspace = find_workspace([ROOT / "examples" / "checkspec.yaml"])
    assert "custom_mentions_refund_window" in workspace.custom_checks
    defined = _reused(text, "s.suite.yaml", workspace)
    assert defined == _fresh(text, "s.suite.yaml", workspace)
    assert "unknown-custom-check" not in [p[1] for p in defined[0]]


def _spec_files() -> list[Path]:
    found = [p for p in sorted((ROOT / "examples").iterdir()) if p.suffix in (".yaml", ".json")]
    found += sorted((ROOT / "tests").rglob("*.suite.yaml"))
    found += sorted((ROOT / "tests").rglob("*.scenario.yaml"))
    found += sorted((ROOT / "tests").rglob("*.dataset.yaml"))
    return [p for p in found if p.name != "checkspec.yaml"]


@pytest.mark.parametrize("path", _spec_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_spec_file_reads_the_same_with_checks_reused(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    first = _fresh(text, str(path))
    # Shifted down and analysed again, each check now comes from what was found above.
    shifted = "\n\n\n" + text if not text.startswith(("{", "[")) else text
    assert _reused(shifted, str(path)) == _fresh(shifted, str(path))
    assert _reused(text, str(path)) == first


@pytest.mark.unmeasured  # volume: a smaller test measures the same lines
def test_the_schema_agreement_corpus_reads_the_same_with_checks_reused() -> None:
    # 1,900+ files: every conformance check case, every spelling of every field, edge
    # cases of each kind; each analysed as `run` does (every check validated and walked
    # for its trace paths), as the server does, then three lines lower with every check
    # read back from the analysis before.
    from tests.support.spec_corpus import CORPUS, CUSTOM

    workspace = Workspace(config=CUSTOM)
    differ = []
    for case in CORPUS:
        # Every check validated and walked, as `run` does; then problems only.
        built = _fresh(case.text, case.name, workspace, keep=True)
        if _fresh(case.text, case.name, workspace) != built:
            differ.append("problems only: " + case.name + ": " + case.origin)
        shifted = "\n\n\n" + case.text
        if _reused(shifted, case.name, workspace) != _fresh(shifted, case.name, workspace):
            differ.append("reused: " + case.name + ": " + case.origin)
    assert len(CORPUS) > 1500
    assert differ == []


def test_validate_reads_problems_only_and_a_run_keeps_the_runnable_forms(tmp_path: Path) -> None:
    from checkspec.engine.cli.main import main

    spec = tmp_path / "s.suite.yaml"
    spec.write_text("name: s\nscenarios:\n" + _scenario("a", BAD), encoding="utf-8")
    assert main(["validate", str(spec)]) != 0
    assert len(CHECKS) == 1  # validate reused-by-text, as the server does
    # No switch left behind: an analysis keeps each scenario's runnable form by default.
    assert analyze(spec.read_text(encoding="utf-8"), str(spec)).scenarios[0].built is None
    good = "name: s\nscenarios:\n" + _scenario("a", "    - {kind: equals, expected_value: 1}\n")
    assert analyze(good, "g.suite.yaml").scenarios[0].built is not None


def test_a_long_check_is_remembered_by_a_digest_not_a_copy() -> None:
    rubric = "x" * 5000
    check = f"    - {{kind: string_matching, target_key: trace.last.outputs.answer, keyword: {rubric}}}\n"
    text = "name: s\nscenarios:\n" + _scenario("a", check) + _scenario("b", check)
    doc = analyze(text, "s.suite.yaml", keep=False)
    ((key, _, _),) = CHECKS
    assert isinstance(key, bytes) and len(key) == 16
    assert _seen(doc) == _fresh(text, "s.suite.yaml")


def test_validate_does_not_make_the_scenarios_runnable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from checkspec.engine.cli.main import main

    rebuilt: list[object] = []

    def spy(*args: object) -> None:
        rebuilt.append(args)

    monkeypatch.setattr(scenario_analysis, "_rebuilt_scenario", spy)
    good = "    - {kind: equals, target_key: trace.last.outputs.answer, expected_value: yes}\n"
    spec = tmp_path / "s.suite.yaml"
    spec.write_text("name: s\nscenarios:\n" + _scenario("a", good) + _scenario("b", good))
    assert main(["validate", str(spec)]) == 0
    assert rebuilt == []  # only problems were read: no scenario was built again to run


def _unique(count: int) -> str:
    return "name: s\nscenarios:\n" + "".join(
        _scenario(f"n{i}", f"    - {{kind: equals, expected_value: {i}}}\n") for i in range(count)
    )


def test_an_analysis_stops_looking_when_its_checks_do_not_repeat() -> None:
    text = _unique(check_analysis.REUSE_TRIAL + 300)
    doc = analyze(text, "s.suite.yaml", keep=False)
    assert len(CHECKS) == check_analysis.REUSE_TRIAL  # none found: no more looked up or kept
    assert _seen(doc) == _fresh(text, "s.suite.yaml")


def test_an_analysis_keeps_looking_while_its_checks_repeat() -> None:
    # One check in five is the same text from the start: every lookup is still made.
    count = check_analysis.REUSE_TRIAL + 300
    repeated = "    - {kind: equals, expected_value: -1}\n"
    text = "name: s\nscenarios:\n" + "".join(
        _scenario(
            f"m{i}", repeated if i % 5 == 0 else f"    - {{kind: equals, expected_value: {i}}}\n"
        )
        for i in range(count)
    )
    doc = analyze(text, "s.suite.yaml", keep=False)
    assert len(CHECKS) == sum(1 for i in range(count) if i % 5) + 1
    assert _seen(doc) == _fresh(text, "s.suite.yaml")
