"""Quick fixes, code lenses and the Markdown of checks and parameters
(server/analysis/actions.py, lenses.py, docs.py)."""

from __future__ import annotations

from checkspec.engine import Check
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.problems import Position, Range
from checkspec.server.analysis.actions import quick_fixes
from checkspec.server.analysis.docs import check_markdown, field_markdown, parameter_list
from checkspec.server.analysis.lenses import RUN_FILE, RUN_SCENARIO, code_lenses
from checkspec.server.analysis.schema import FieldDoc
from tests.support.analysis import WORKSPACE, dedent

TYPO = dedent(
    """
    name: x
    steps:
      - interacts: [{inputs: a, outputs: b}]
        checks:
          - kind: strng_matching
            keyword: b
    """
)


def fixes_at(start: Position, end: Position | None = None) -> list[str]:
    document = analyze(TYPO, "t.scenario.yaml", None)
    return [f.title for f in quick_fixes(document, Range(start, end or start))]


def test_a_quick_fix_is_offered_wherever_the_cursor_touches_the_typo() -> None:
    # `strng_matching` is at line 4, characters 14-28
    for character in (14, 20, 28):  # its start, inside, right after its last letter
        assert fixes_at(Position(4, character)) == ["Change to 'string_matching'"]
    assert fixes_at(Position(4, 13)) == []
    assert fixes_at(Position(4, 29)) == []
    assert fixes_at(Position(3, 0)) == []
    assert fixes_at(Position(3, 0), Position(4, 14)) == ["Change to 'string_matching'"]
    assert fixes_at(Position(4, 28), Position(6, 0)) == ["Change to 'string_matching'"]
    assert fixes_at(Position(0, 0), Position(9, 0)) == ["Change to 'string_matching'"]
    (fix,) = quick_fixes(analyze(TYPO, "t.scenario.yaml", None), Range.point(4, 20))
    assert fix.problem.code == "unknown-kind"
    assert [(e.range, e.new_text) for e in fix.edits] == [
        (Range(Position(4, 14), Position(4, 28)), "string_matching")
    ]


def test_lenses_run_each_runnable_scenario_and_the_whole_file() -> None:
    suite = dedent(
        """
        name: s
        scenarios:
          - name: one
            steps: []
          - name: broken
            steps: [{checks: [{kind: nope}]}]
          - name: three
            steps: []
        """
    )
    lenses = code_lenses(analyze(suite, "s.suite.yaml", None))
    assert [(lens.range.start, lens.title, lens.command, lens.scenario) for lens in lenses] == [
        (Position(0, 0), "▶ Run all (2 of 3)", RUN_FILE, None),
        (Position(2, 10), "▶ Run scenario", RUN_SCENARIO, 0),
        (Position(4, 10), "⚠ not runnable: unknown check 'nope'", "", 1),
        (Position(6, 10), "▶ Run scenario", RUN_SCENARIO, 2),
    ]
    (single,) = code_lenses(analyze("name: x\nsteps: []\n", "t.scenario.yaml", None))
    assert (single.title, single.scenario, single.range) == (
        "▶ Run scenario",
        0,
        Range(Position(0, 6), Position(0, 7)),
    )
    (broken,) = code_lenses(
        analyze("name: x\nsteps: [{checks: [{kind: nope}]}]\n", "t.scenario.yaml", None)
    )
    assert (broken.title, broken.command) == ("⚠ not runnable: unknown check 'nope'", "")


def doc(**kw: object) -> FieldDoc:
    base: dict[str, object] = {
        "name": "p",
        "type": "string",
        "description": "What p is.",
        "default": None,
    }
    base.update(kw)
    return FieldDoc(**base)  # type: ignore[arg-type]


def test_a_parameter_is_explained_with_what_applies_to_it() -> None:
    assert (
        field_markdown(doc(), "x check") == "**p**: `string` — x check\n\nWhat p is.\n\nRequired."
    )
    assert field_markdown(doc(default='"a"', description="")) == '**p**: `string`\n\nDefault: `"a"`'
    assert field_markdown(doc(default="not set")) == "**p**: `string`\n\nWhat p is."
    choices = field_markdown(doc(type="'a' | 'b'", default='"a"', choices=("a", "b")))
    assert choices.endswith('Default: `"a"`\n\nOne of: `a`, `b`')
    boolean = field_markdown(doc(type="boolean", default="true", choices=("true", "false")))
    assert "One of" not in boolean
    spelled = field_markdown(doc(default="null", spellings=("key", "text_key")))
    assert spelled.endswith("Default: `null`\n\nAlso accepted as: `key`, `text_key`")


def test_the_parameter_list_puts_required_first_and_escapes_markdown() -> None:
    listed = parameter_list(
        {
            "b": doc(name="b", default="not set"),
            "a": doc(name="a", type="'x' | 'y'", description="Two\n  lines | pipe."),
            "c": doc(name="c", type="list_of*", default='"a|b"'),
        }
    )
    assert listed.splitlines() == [
        "- `a` *'x' | 'y'*, **required** — Two lines | pipe.",
        "- `b` *string*, optional — What p is.",
        '- `c` *list\\_of\\**, default `"a|b"` — What p is.',
    ]


def test_a_custom_check_is_documented_with_its_preset() -> None:
    custom = WORKSPACE.custom_checks["custom_polite"]
    shown = check_markdown("custom_polite", Check.registry()["string_matching"], custom=custom)
    parts = shown.split("\n\n")
    assert parts[:4] == [
        "**custom_polite** — custom check based on `string_matching`",
        "The answer says please.",
        "Preset in checkspec.yaml:",
        "```yaml\ntype: string_matching\nkeyword: please\n```",
    ]
    assert parts[4].startswith("- `text` *string*, optional")
    assert "- `kind`" not in shown
    plain = check_markdown("equals", Check.registry()["equals"])
    assert plain.startswith("**equals** — Passes when the value equals the expected value.")
    assert "- `expected_value` *any*, **required**" in plain
