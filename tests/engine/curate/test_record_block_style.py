"""Recorded outputs are written in the file's own style: in a block YAML file a mapping
or a list on lines of their own and a multi-line string as a `|` block scalar (not a
one-line flow mapping of hundreds of characters); a flow mapping or a JSON file keeps
its flow form; every byte the recording does not touch stays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from checkspec.engine.curate.record import Ran, block_lines, record

ANSWER = {
    "answer": "Refunds take 30 days.\nContact support for help.\n",
    "sources": ["kb/refunds.md", "kb/help.md"],
    "meta": {"model": "m", "tokens": 12},
}

SCENARIO = """\
# kept
name: refund  # kept too
steps:
  - interacts:
      - inputs: How long do refunds take?
    checks:
      - {kind: string_matching, keyword: days}
"""


def recorded(tmp_path: Path, text: str, outputs: list[Any], name: str = "t.scenario.yaml") -> str:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    done = record([Ran(path, f"{name}::refund", outputs, live=True)], write=True)
    assert done.recorded == 1 and not done.skipped, done.skipped
    [change] = done.changes
    assert change.new is not None
    return change.new.decode("utf-8")


def test_a_mapping_with_a_multi_line_string_is_written_as_a_block(tmp_path: Path) -> None:
    text = recorded(tmp_path, SCENARIO, [ANSWER])
    assert text == SCENARIO.replace(
        "      - inputs: How long do refunds take?\n",
        "      - inputs: How long do refunds take?\n"
        "        outputs:\n"
        "          answer: |\n"
        "            Refunds take 30 days.\n"
        "            Contact support for help.\n"
        "          sources:\n"
        "            - kb/refunds.md\n"
        "            - kb/help.md\n"
        "          meta:\n"
        "            model: m\n"
        "            tokens: 12\n",
    )
    assert yaml.safe_load(text)["steps"][0]["interacts"][0]["outputs"] == ANSWER


def test_a_value_written_inline_is_replaced_by_a_block(tmp_path: Path) -> None:
    before = SCENARIO.replace(
        "take?\n", "take?\n        outputs: {answer: old, sources: []}\n        # after\n"
    )
    text = recorded(tmp_path, before, [ANSWER])
    assert "outputs: {" not in text and "        # after\n" in text
    assert text.startswith("# kept\nname: refund  # kept too\n")
    assert yaml.safe_load(text)["steps"][0]["interacts"][0]["outputs"] == ANSWER


def test_a_block_value_is_replaced_by_a_block(tmp_path: Path) -> None:
    first = recorded(tmp_path, SCENARIO, [ANSWER])
    changed = {**ANSWER, "answer": "No refunds.\nSorry.", "sources": []}
    text = recorded(tmp_path, first, [changed])
    assert "          answer: |-\n            No refunds.\n            Sorry.\n" in text
    assert "          sources: []\n" in text
    assert yaml.safe_load(text)["steps"][0]["interacts"][0]["outputs"] == changed
    assert text.endswith("    checks:\n      - {kind: string_matching, keyword: days}\n")


@pytest.mark.parametrize(
    "value",
    [
        "one line",
        "two\nlines\n",
        "no final line end\nhere",
        "blank lines kept\n\n\n",
        "  leading spaces\nkeep quotes",
        "tab\tand \u00e9\nfine\n",
        "a\r\nwindows line",
        ["a", {"b": "c\nd\n"}, [1, 2], {}],
        {"nested": {"deeper": ["x\ny\n", None, True, 1.5]}},
    ],
)
def test_any_value_reads_back_as_itself(tmp_path: Path, value: Any) -> None:
    text = recorded(tmp_path, SCENARIO, [value])
    assert yaml.safe_load(text)["steps"][0]["interacts"][0]["outputs"] == value


def test_which_values_take_a_block() -> None:
    assert block_lines("one line") is None  # on the key's line
    assert block_lines({}) is None and block_lines([]) is None
    assert block_lines("two\nlines\n") == ["|", "two", "lines"]
    assert block_lines("two\nlines") == ["|-", "two", "lines"]
    assert block_lines("  indented\nfirst line") is None  # a block cannot start so
    assert block_lines(["x"]) == ["- x"]


def test_a_flow_interaction_and_a_json_file_keep_their_flow_form(tmp_path: Path) -> None:
    flow = SCENARIO.replace(
        "      - inputs: How long do refunds take?\n", "      - {inputs: How long?}\n"
    )
    text = recorded(tmp_path, flow, [ANSWER])
    assert "      - {inputs: How long?, outputs: {answer: " in text
    as_json = (
        '{"name": "refund", "steps": [{"interacts": [{"inputs": "q"}], '
        '"checks": [{"kind": "string_matching", "keyword": "days"}]}]}\n'
    )
    text = recorded(tmp_path, as_json, [ANSWER], name="t.scenario.json")
    assert '"outputs": {"answer": "Refunds take 30 days.\\nContact support for help.\\n"' in text


def test_a_crlf_file_gets_crlf_lines(tmp_path: Path) -> None:
    text = recorded(tmp_path, SCENARIO.replace("\n", "\r\n"), [ANSWER])
    assert "\n" not in text.replace("\r\n", "")
    assert "          answer: |\r\n            Refunds take 30 days.\r\n" in text
