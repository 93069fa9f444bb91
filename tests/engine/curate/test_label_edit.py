"""Writing a person's label (`expect:`) with the curation edits (issue 40 items 1 and 6):
the one line or key added, every other byte kept, in the file's own style; curation edits
and the Hub's format keep labels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checkspec.engine.curate import edits
from checkspec.engine.curate.commit import commit
from checkspec.engine.curate.files import CurateError, parse_spec, read_spec
from checkspec.engine.curate.hub import export_rows, import_rows
from checkspec.engine.curate.label import label_check, label_edits
from checkspec.engine.spec.document import analyze

SUITE = (
    "# a suite with comments   \r\n"
    "name: tone\r\n"
    "scenarios:\r\n"
    "  - name: one   # kept\r\n"
    "    steps:\r\n"
    "      - interacts:\r\n"
    "          - {inputs: hi, outputs: 'Hello   there'}\r\n"
    "        checks:\r\n"
    "          - kind: llm_judge   # the tone judge\r\n"
    "            prompt: |\r\n"
    "              Is it polite?\r\n"
    "          - {kind: toxicity, name: calm}\r\n"
    "          - kind: string_matching\r\n"
    "            keyword: Hello\r\n"
)


def label(text: str, line: int, value: str, name: str = "t.suite.yaml") -> str:
    spec = parse_spec(Path(name), text.encode(), text)
    return label_edits(spec, line, value).result()


def test_a_label_adds_one_line_and_round_trips_byte_for_byte() -> None:
    labelled = label(SUITE, 8, "fail")
    lines = labelled.split("\r\n")
    assert lines[9] == "            expect: fail"  # after kind:, at its indentation, CRLF kept
    assert "\r\n".join(lines[:9] + lines[10:]) == SUITE  # nothing else changed
    # Again with the same label: no edit; another label: the value alone changes.
    assert label(labelled, 8, "fail") == labelled
    assert label(labelled, 9, "pass") == labelled.replace("expect: fail", "expect: pass")
    assert not analyze(labelled, "t.suite.yaml").errors


def test_a_flow_mapping_gets_the_key_in_flow_style() -> None:
    labelled = label(SUITE, 11, "pass")
    assert "          - {kind: toxicity, expect: pass, name: calm}\r\n" in labelled
    assert labelled.replace(", expect: pass", "") == SUITE


def test_a_dataset_check_gets_it_beside_identifier_and_json_keeps_its_style() -> None:
    row = {
        "interactions": [
            {
                "input": "hi",
                "output": "yo",
                "checks": [{"identifier": "llm_judge", "params": {"prompt": "p"}}],
            }
        ]
    }
    text = json.dumps({"name": "d", "scenarios": [row]}, indent=2) + "\n"
    line = next(n for n, t in enumerate(text.splitlines()) if '"identifier"' in t)
    labelled = label(text, line, "fail", "d.dataset.json")
    data = json.loads(labelled)
    assert data["scenarios"][0]["interactions"][0]["checks"][0]["expect"] == "fail"
    added = labelled.splitlines()[line + 1]
    assert added.strip() == '"expect": "fail",'
    assert (
        "\n".join(labelled.splitlines()[: line + 1] + labelled.splitlines()[line + 2 :]) + "\n"
        == text
    )


def test_a_check_calling_no_model_or_no_check_is_refused() -> None:
    with pytest.raises(CurateError, match="'string_matching' calls no model"):
        label(SUITE, 12, "pass")
    with pytest.raises(CurateError, match="no check written here"):
        label(SUITE, 1, "pass")
    with pytest.raises(CurateError, match="pass or fail"):
        label(SUITE, 8, "maybe")


def test_label_check_writes_through_the_curation_commit(tmp_path: Path) -> None:
    path = tmp_path / "t.suite.yaml"
    path.write_bytes(SUITE.encode())
    commit([label_check(path, 8, "pass")], tmp_path)
    assert path.read_bytes().decode().count("expect: pass") == 1


def test_curation_edits_keep_labels() -> None:
    labelled = label(SUITE, 8, "fail")
    spec = parse_spec(Path("t.suite.yaml"), labelled.encode(), labelled)
    editor = edits.Editor(spec)
    assert edits.set_checks_enabled(editor, spec.items[0], ["llm_judge"], enabled=False) == 1
    edits.add_tags(editor, spec.items[0], ["tone"])
    after = editor.result()
    assert "            expect: fail\r\n" in after
    assert "enabled: false" in after and "tone" in after


def test_hub_export_keeps_the_label_in_a_field_the_hub_models_accept(tmp_path: Path) -> None:
    hub_types = pytest.importorskip("giskard_hub.types.scenario")
    path = tmp_path / "faq.dataset.yaml"
    path.write_text(
        "name: faq\nscenarios:\n  - interactions:\n      - input: hi\n        output: yo\n"
        "        checks:\n          - identifier: hub_correctness\n            expect: fail\n"
        "            params: {reference: r}\n          - identifier: string_matching\n"
        "            params: {keyword: yo}\n"
    )
    rows = export_rows([read_spec(path)], lambda _: tmp_path)
    checks = rows[0]["interactions"][0]["checks"]
    assert checks[0]["expect"] == "fail" and "expect" not in checks[1]
    through_sdk = [
        hub_types.Scenario.model_validate(row).model_dump(mode="json", by_alias=True)
        for row in rows
    ]
    assert through_sdk[0]["interactions"][0]["checks"][0]["expect"] == "fail"
    back = import_rows(through_sdk)
    assert back[0]["interactions"][0]["checks"][0]["expect"] == "fail"
    assert "expect" not in back[0]["interactions"][0]["checks"][1]
