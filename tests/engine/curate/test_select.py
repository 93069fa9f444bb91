"""The one evaluator of the selection language's filters (`narrow`): curation and the
project choose the same scenarios and refuse the same selections, in the same words."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkspec.engine.curate.select import Facts, Filters, narrow
from tests.support.cli import run_main

SUITE = """\
name: shop
tags: [shop]
scenarios:
  - name: refund
    tags: [billing]
    steps:
      - interacts: [{inputs: "I want my money back", outputs: "Refunded."}]
        checks: [{kind: string_matching, keyword: Refunded}]
  - name: hours
    status: draft
    steps:
      - interacts: [{inputs: "When do you open?", outputs: "At nine."}]
        checks: [{kind: string_matching, keyword: nine}]
"""


def facts(tags: list[str], status: str = "active", text: str = "") -> Facts:
    return Facts(tags, status, lambda words: all(w in text.casefold() for w in words))


def test_filters_narrow_in_order_and_say_what_status_left_out() -> None:
    a, b, c = facts(["x"], text="alpha"), facts(["x", "y"], "draft", "beta"), facts([])
    by_name = {"a": a, "b": b, "c": c}
    narrowed = narrow(["a", "b", "c"], Filters(("x",), None, "active"), by_name.__getitem__)
    assert (narrowed.kept, narrowed.not_of_status, narrowed.refusal) == (["a"], ["b"], None)
    narrowed = narrow(["a", "b", "c"], Filters((), "BETA", None), by_name.__getitem__)
    assert narrowed.kept == ["b"]


def test_a_tag_none_has_and_a_query_none_holds_refuse_a_status_none_has_does_not() -> None:
    by_name = {"a": facts(["x"], text="alpha"), "b": facts(["y"], text="beta")}
    refused = narrow(["a", "b"], Filters(("z",)), by_name.__getitem__).refusal
    assert refused is not None
    assert refused.message == "no scenario has the tag 'z'; tags in these files: x, y"
    refused = narrow(["a", "b"], Filters(("x",), "beta"), by_name.__getitem__).refusal
    assert refused is not None
    assert refused.message == "no scenario holds every word of --query 'beta'"
    assert narrow(["a"], Filters((), None, "draft"), by_name.__getitem__).refusal is None
    assert narrow([], Filters(("z",)), by_name.__getitem__).refusal is None  # no scenario


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (
            ("--tag", "nope"),
            "error: no scenario has the tag 'nope'; tags in these files: billing, shop",
        ),
        (("--query", "zzqx"), "error: no scenario holds every word of --query 'zzqx'"),
    ],
)
def test_every_command_refuses_an_empty_selection_alike(
    tmp_path: Path, flags: tuple[str, str], said: str
) -> None:
    (tmp_path / "shop.suite.yaml").write_text(SUITE, encoding="utf-8")
    before = (tmp_path / "shop.suite.yaml").read_bytes()
    commands = [
        ("run", ".", "--dry-run"),
        ("validate", "."),
        ("list", "scenarios", "."),
        ("list", "tags", "."),
        ("tag", "add", "new", "."),
        ("status", "active", "."),
        ("hub", "export", ".", "-o", "out.jsonl"),
    ]
    for command in commands:
        done = run_main(tmp_path, *command, *flags)
        assert (command, done.returncode, done.stderr.strip().splitlines()[-1]) == (
            command,
            2,
            said,
        )
    assert (tmp_path / "shop.suite.yaml").read_bytes() == before
    assert not (tmp_path / "out.jsonl").exists()


def test_curation_and_a_run_choose_the_same_scenarios(tmp_path: Path) -> None:
    (tmp_path / "shop.suite.yaml").write_text(SUITE, encoding="utf-8")
    listed = run_main(tmp_path, "list", "scenarios", ".", "--tag", "shop", "--status", "draft")
    assert (listed.returncode, listed.stdout) == (0, "'shop.suite.yaml::#1'\n")
    ran = run_main(tmp_path, "run", ".", "--tag", "shop", "--status", "draft")
    assert ran.returncode == 0 and "PASS  hours" in ran.stdout and "PASS  refund" not in ran.stdout
    checked = run_main(tmp_path, "validate", ".", "--tag", "shop", "--status", "draft")
    assert checked.stderr == "1 file(s), 1 chosen scenario(s): valid\n"


def test_validate_shows_the_problems_of_the_chosen_scenarios_and_of_the_file(
    tmp_path: Path,
) -> None:
    broken = SUITE.replace("keyword: Refunded}", "keyword: Refunded, nope: 1}")
    (tmp_path / "shop.suite.yaml").write_text(broken + "unknown_top: 1\n", encoding="utf-8")
    hours = run_main(tmp_path, "validate", ".", "--status", "draft")
    refund = run_main(tmp_path, "validate", ".", "--tag", "billing")
    assert hours.returncode == refund.returncode == 2
    assert "nope" not in hours.stderr and "nope" in refund.stderr
    assert "unknown_top" in hours.stderr and "unknown_top" in refund.stderr


def test_validate_with_a_filter_shows_a_file_that_cannot_be_read(tmp_path: Path) -> None:
    (tmp_path / "shop.suite.yaml").write_text(SUITE, encoding="utf-8")
    (tmp_path / "bad.suite.yaml").write_text("name: [unclosed\n", encoding="utf-8")
    checked = run_main(tmp_path, "validate", ".", "--tag", "billing")
    assert checked.returncode == 2 and "bad.suite.yaml:" in checked.stderr


def test_validate_with_a_filter_is_not_green_behind_other_scenarios_problems(
    tmp_path: Path,
) -> None:
    """A file shows at most 1,000 problems: those of the chosen scenarios are chosen from
    all of them, not from the first 1,000 (all of scenarios left out here)."""
    bad = "  - name: s{0}\n    tags: [{1}]\n    steps: [{{interacts: [{{inputs: q}}], nope: 1}}]\n"
    rows = [bad.format(i, "other" if i < 1001 else "mine") for i in range(1002)]
    (tmp_path / "big.suite.yaml").write_text("name: big\nscenarios:\n" + "".join(rows))
    checked = run_main(tmp_path, "validate", ".", "--tag", "mine")
    assert checked.returncode == 2
    assert checked.stderr.count("error:") == 1 and "big.suite.yaml:3008:40:" in checked.stderr
