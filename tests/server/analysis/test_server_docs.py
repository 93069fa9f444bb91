"""Docs and completion as a spec file is written: compact, YAML-shaped, required first."""

from __future__ import annotations

from pathlib import Path

from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.problems import Position
from checkspec.engine.spec.workspace import workspace_from_text
from checkspec.server.analysis.completion import complete
from checkspec.server.analysis.hover import hover

STEP = """name: x
steps:
  - interacts:
      - inputs: hi
        outputs: hello
    checks:
      - kind: equals
{blank}
"""


def test_enter_below_a_check_offers_its_parameters_at_the_dash_column_required_first() -> None:
    text = STEP.format(blank="      ")  # the indentation Enter leaves: the dash's column
    found = complete(analyze(text, "t.scenario.yaml"), text, Position(7, 6))
    ordered = sorted(found, key=lambda item: item.sort)
    assert ordered[0].label == "expected_value"  # needed by equals, so first
    assert ordered[0].insert == "  expected_value: "  # written at the check's own column
    assert ordered[0].replace.start == Position(7, 6)
    indented = STEP.format(blank="        ")
    at_keys = complete(analyze(indented, "t.scenario.yaml"), indented, Position(7, 8))
    assert sorted(at_keys, key=lambda item: item.sort)[0].label == "expected_value"


def test_a_custom_checks_regex_is_shown_as_written_in_checkspec_yaml(tmp_path: Path) -> None:
    config = tmp_path / "checkspec.yaml"
    config.write_text(
        "custom_checks:\n  - identifier: custom_days\n    params:\n"
        "      type: regex_matching\n      pattern: '\\b\\d+-day\\b'\n"
    )
    workspace = workspace_from_text(config.read_text(), config)
    text = "name: x\nsteps:\n  - checks:\n      - kind: custom_days\n"
    shown = hover(analyze(text, "t.scenario.yaml", workspace), Position(3, 16), workspace)
    assert shown is not None
    assert "pattern: \\b\\d+-day\\b" in shown.markdown  # one backslash each, as typed
    assert "\\\\b" not in shown.markdown


def test_yaml_hovers_speak_of_files_not_the_python_api() -> None:
    text = STEP.format(blank="")
    shown = hover(analyze(text, "t.scenario.yaml"), Position(0, 1))
    assert shown is not None
    assert shown.markdown.startswith("**name**: `string` — in a scenario")
    assert "fluent" not in shown.markdown
