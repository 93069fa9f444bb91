"""Curation through the real command: list scenarios|tags, tag, checks, status, move,
delete, comment. Exit codes are the product here: each runs the command line's `main`
(in-process, tests/support/cli.py); one test runs `checkspec` in a process of its own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from checkspec.engine.curate.commit import Change, commit
from checkspec.engine.curate.files import CurateError, read_spec
from checkspec.engine.runs.project import Project
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.source import parse_source
from tests.support.cli import Done, run_main

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]

SUITE = """\
# the support suite
name: support
tags: [support]   # on every scenario
scenarios:
  # shipping first
  - name: shipping is EU only
    description: Canada is outside the EU
    steps:
      - interacts:
          - inputs: Do you ship to Canada?
            outputs: Sorry, Canada is outside the EU.
        checks:
          - kind: string_matching
            keyword: 'outside the EU'

  - name: opening hours
    tags: [hours]
    steps:
      - interacts: [{inputs: When are you open?, outputs: "9:00-18:00"}]
        checks:
          - {kind: regex_matching, pattern: '\\d{1,2}:\\d{2}'}
  - name: refund window
    tags:
      - billing
      - "needs review"
    steps:
      - interacts:
          - inputs: Can I get my money back?
            outputs: Within 30 days.
        checks:
          - kind: string_matching
            keyword: "30 days"
"""

ROW = {
    "interactions": [
        {
            "input": {"messages": [{"role": "user", "content": "Où est ma commande ?"}]},
            "output": {"response": {"role": "assistant", "content": "Elle arrive demain."}},
            "checks": [{"identifier": "string_matching", "params": {"keyword": "demain"}}],
        }
    ],
    "tags": ["fr"],
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "checkspec.yaml").write_text("jobs: 1\n")
    (tmp_path / "support.suite.yaml").write_text(SUITE)
    rows = [ROW, {**ROW, "tags": ["fr", "billing"], "name": "remboursement"}]
    (tmp_path / "faq.dataset.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "one.scenario.yaml").write_text(
        "name: lonely\ntags: [billing]\nsteps:\n  - interacts: [{inputs: hi, outputs: hello}]\n"
        "    checks: [{kind: string_matching, keyword: hello}]\n"
    )
    return tmp_path


def cli(project: Path, *args: str) -> Done:
    return run_main(project, *args)


def cli_process(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], cwd=project, capture_output=True, text=True, timeout=120, check=False
    )


def snapshot(project: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(project.rglob("*")) if p.is_file()}


# -- listing --------------------------------------------------------------------------


def test_list_scenarios_text_gives_selector_and_tags(project: Path) -> None:
    done = cli(project, "list", "scenarios")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "'faq.dataset.jsonl::#0'  [fr]",
        "faq.dataset.jsonl::remboursement  [fr, billing]",
        "sub/one.scenario.yaml::lonely  [billing]",
        "'support.suite.yaml::shipping is EU only'",
        "'support.suite.yaml::opening hours'  [hours]",
        "'support.suite.yaml::refund window'  [billing, needs review]",
    ]


def test_list_json_gives_the_identity_shards_use(project: Path) -> None:
    done = cli(project, "list", "scenarios", "--format", "json")
    listed = json.loads(done.stdout)
    assert listed["total"] == 6
    by_file: dict[str, list[str]] = {}
    for row in listed["scenarios"]:
        by_file.setdefault(row["file"], []).append(row["identity"])
        assert set(row) == {
            "selector",
            "identity",
            "file",
            "line",
            "index",
            "name",
            "tags",
            "status",
        }
    for file, identities in by_file.items():
        path = project / file
        document = analyze(path.read_text(), str(path))
        import os

        here = os.getcwd()
        os.chdir(project)
        try:
            identity = Project.open([path]).identity
            assert identities == [identity(str(path), e) for e in document.scenarios]
        finally:
            os.chdir(here)


def test_query_matches_names_inputs_outputs_check_parameters_and_comments(project: Path) -> None:
    def names(*args: str) -> list[str]:
        done = cli(project, "list", "scenarios", "--format", "json", *args)
        assert done.returncode == 0, done.stderr
        return [row["name"] for row in json.loads(done.stdout)["scenarios"]]

    assert names("--query", "CANADA") == ["shipping is EU only"]  # an input, any case
    assert names("--query", "30 days") == ["refund window"]  # an output and a parameter
    assert names("--query", "demain") == ["Où est ma commande ?", "remboursement"]
    assert names("--query", "outside eu") == ["shipping is EU only"]  # every word
    assert names("--query", "\\d{1,2}") == ["opening hours"]  # a check parameter
    assert names("--tag", "billing") == ["remboursement", "lonely", "refund window"]
    assert names("--tag", "support") == [  # the suite's own tags count
        "shipping is EU only",
        "opening hours",
        "refund window",
    ]
    assert names("--tag", "billing", "--limit", "1", "--offset", "1") == ["lonely"]
    assert cli(project, "comment", "support.suite.yaml::opening hours", "ask légal").returncode == 0
    assert names("--query", "LÉGAL") == ["opening hours"]


def test_list_tags_counts_each_tag(project: Path) -> None:
    done = cli(project, "list", "tags")
    assert done.stdout.splitlines() == [
        "billing       3",
        "fr            2",
        "hours         1",
        "needs review  1",
    ]
    listed = json.loads(cli(project, "list", "tags", "--format", "json").stdout)
    assert listed[0] == {"tag": "billing", "count": 3}


# -- selectors ------------------------------------------------------------------------


def test_unknown_selectors_exit_2_with_the_nearest_names_and_change_nothing(project: Path) -> None:
    before = snapshot(project)
    done = cli(project, "tag", "add", "x", "support.suite.yaml::opening hour")
    assert done.returncode == 2
    assert "no scenario named 'opening hour'" in done.stderr
    assert "'opening hours'" in done.stderr
    done = cli(project, "tag", "add", "x", "support.suite.yaml::#7")
    assert done.returncode == 2 and "#0 to #2" in done.stderr
    done = cli(project, "delete", "nowhere.suite.yaml", "--yes")
    assert done.returncode == 2 and "nowhere.suite.yaml" in done.stderr
    # a good selector beside a bad one: nothing is changed either
    done = cli(project, "tag", "add", "x", "faq.dataset.jsonl", "support.suite.yaml::nope")
    assert done.returncode == 2
    assert snapshot(project) == before


def test_selectors_by_index_and_name_pick_those_scenarios(project: Path) -> None:
    done = cli(
        project,
        "tag",
        "add",
        "picked",
        "faq.dataset.jsonl::#1",
        "support.suite.yaml::refund window",
    )
    assert done.returncode == 0, done.stderr
    listed = cli(project, "list", "scenarios", "--tag", "picked", "--format", "json").stdout
    names = [row["name"] for row in json.loads(listed)["scenarios"]]
    assert names == ["remboursement", "refund window"]


# -- edits ----------------------------------------------------------------------------


def test_tag_add_keeps_every_other_byte(project: Path) -> None:
    done = cli(project, "tag", "add", "reviewed", "support.suite.yaml")
    assert done.returncode == 0, done.stderr
    text = (project / "support.suite.yaml").read_text()
    expected = (
        SUITE.replace(
            "  - name: shipping is EU only\n",
            "  - name: shipping is EU only\n    tags: [reviewed]\n",
        )
        .replace("    tags: [hours]\n", "    tags: [hours, reviewed]\n")
        .replace('      - "needs review"\n', '      - "needs review"\n      - reviewed\n')
    )
    assert text == expected
    again = cli(project, "tag", "add", "reviewed", "support.suite.yaml")  # nothing to add
    assert again.returncode == 0
    assert (project / "support.suite.yaml").read_text() == expected


def test_tag_remove_from_flow_and_block_lists(project: Path) -> None:
    done = cli(project, "tag", "remove", "hours", "needs review", "support.suite.yaml")
    assert done.returncode == 0, done.stderr
    text = (project / "support.suite.yaml").read_text()
    assert text == SUITE.replace("tags: [hours]", "tags: []").replace(
        '      - "needs review"\n', ""
    )
    done = cli(project, "tag", "remove", "billing", "faq.dataset.jsonl")
    rows = [json.loads(line) for line in (project / "faq.dataset.jsonl").read_text().splitlines()]
    assert [r["tags"] for r in rows] == [["fr"], ["fr"]]


def test_jsonl_edits_touch_only_their_rows(project: Path) -> None:
    path = project / "faq.dataset.jsonl"
    before = path.read_text().splitlines(keepends=True)
    assert cli(project, "status", "draft", "faq.dataset.jsonl::#1").returncode == 0
    after = path.read_text().splitlines(keepends=True)
    assert after[0] == before[0]
    assert after[1] == before[1].replace('"remboursement"', '"remboursement", "status": "draft"')


def test_dry_run_prints_a_unified_diff_and_writes_nothing(project: Path) -> None:
    before = snapshot(project)
    done = cli(project, "status", "draft", "support.suite.yaml::opening hours", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("--- a/support.suite.yaml\n+++ b/support.suite.yaml\n@@ ")
    assert "+    status: draft\n" in done.stdout
    assert snapshot(project) == before


def test_a_file_with_a_syntax_error_is_refused_by_name(project: Path) -> None:
    broken = project / "broken.suite.yaml"
    broken.write_text("name: x\nscenarios:\n  - name: [unclosed\n")
    before = snapshot(project)
    done = cli(project, "tag", "add", "x", "support.suite.yaml", "broken.suite.yaml")
    assert done.returncode == 2
    assert "broken.suite.yaml:" in done.stderr
    assert snapshot(project) == before
    assert cli(project, "list", "scenarios").returncode == 2


def test_a_file_changed_since_it_was_read_is_refused_and_nothing_is_written(
    project: Path,
) -> None:
    one = read_spec(project / "support.suite.yaml")
    two = read_spec(project / "faq.dataset.jsonl")
    (project / "faq.dataset.jsonl").write_text("{}\n")  # someone else wrote it meanwhile
    changes = [
        Change(one.path, one.data, b"name: changed\nscenarios: []\n"),
        Change(two.path, two.data, b""),
    ]
    with pytest.raises(CurateError, match=r"faq\.dataset\.jsonl: changed since it was read"):
        commit(changes, project)
    assert (project / "support.suite.yaml").read_text() == SUITE  # all or none
    assert (project / "faq.dataset.jsonl").read_text() == "{}\n"
    assert [p.name for p in project.iterdir() if p.name.startswith(".")] == []  # no temp files


def test_a_failed_replace_puts_back_what_was_written(project: Path, monkeypatch) -> None:
    import os

    from checkspec.engine.curate import commit as module

    one = read_spec(project / "support.suite.yaml")
    two = read_spec(project / "faq.dataset.jsonl")
    real = os.replace
    calls = []

    def failing(src: str, dst: object) -> None:
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(module.os, "replace", failing)
    with pytest.raises(CurateError, match="nothing changed"):
        commit([Change(one.path, one.data, b"a: 1\n"), Change(two.path, two.data, b"b\n")], project)
    assert (project / "support.suite.yaml").read_bytes() == one.data
    assert (project / "faq.dataset.jsonl").read_bytes() == two.data


def test_checks_disable_marks_the_check_and_runs_skip_it(project: Path) -> None:
    done = cli(project, "checks", "disable", "regex_matching", "support.suite.yaml")
    assert done.returncode == 0, done.stderr
    text = (project / "support.suite.yaml").read_text()
    assert "- {kind: regex_matching, pattern: '\\d{1,2}:\\d{2}', enabled: false}" in text
    report = cli(project, "run", "support.suite.yaml", "--format", "json")
    data = json.loads(report.stdout)
    statuses = {}
    for scenario in data["scenarios"]:
        statuses[scenario["scenario_name"]] = scenario["status"]
    assert statuses["opening hours"].lower() == "skip"
    assert statuses["shipping is EU only"].lower() == "pass"
    done = cli(project, "checks", "enable", "regex_matching", "support.suite.yaml")
    assert (project / "support.suite.yaml").read_text() == SUITE


def test_delete_lists_without_yes_and_deletes_with_it(project: Path) -> None:
    # In a process of its own: the exit statuses as a shell sees them.
    before = snapshot(project)
    done = cli_process(project, "delete", "support.suite.yaml::opening hours")
    assert done.returncode == 1
    assert "support.suite.yaml:16  opening hours" in done.stdout
    assert snapshot(project) == before
    done = cli_process(project, "delete", "support.suite.yaml::opening hours", "--yes")
    assert done.returncode == 0, done.stderr
    text = (project / "support.suite.yaml").read_text()
    start = SUITE.index("  - name: opening hours")
    end = SUITE.index("  - name: refund window")
    assert text == SUITE[:start] + SUITE[end:]
    assert cli(project, "validate", "support.suite.yaml").returncode == 0


def test_delete_every_scenario_leaves_an_empty_list(project: Path) -> None:
    done = cli(project, "delete", "support.suite.yaml", "--yes")
    assert done.returncode == 0, done.stderr
    root = parse_source((project / "support.suite.yaml").read_text()).root
    assert root is not None and root.value["scenarios"] == []
    assert (project / "support.suite.yaml").read_text().startswith("# the support suite\n")


def test_comment_adds_a_comments_list_that_validates(project: Path) -> None:
    done = cli(
        project,
        "comment",
        "support.suite.yaml::refund window",
        "faq.dataset.jsonl::#0",
        "Zoë: is 30 days right? # not a YAML comment",
        "--author",
        "zoë",
    )
    assert done.returncode == 0, done.stderr
    root = parse_source((project / "support.suite.yaml").read_text()).root
    assert root is not None
    comments = root.value["scenarios"][2]["comments"]
    assert comments[0]["content"] == "Zoë: is 30 days right? # not a YAML comment"
    assert comments[0]["author"] == "zoë" and comments[0]["created"].endswith("Z")
    row = json.loads((project / "faq.dataset.jsonl").read_text().splitlines()[0])
    assert row["comments"][0]["content"].startswith("Zoë")
    assert cli(project, "validate", ".").returncode == 0
    cli(project, "comment", "support.suite.yaml::refund window", "second")
    root = parse_source((project / "support.suite.yaml").read_text()).root
    assert root is not None
    assert [c["content"] for c in root.value["scenarios"][2]["comments"]][1] == "second"


def test_move_into_a_new_suite_and_copy_into_json(project: Path) -> None:
    done = cli(project, "move", "support.suite.yaml::opening hours", "--to", "new/more.suite.yaml")
    assert done.returncode == 0, done.stderr
    moved = (project / "new" / "more.suite.yaml").read_text()
    assert moved.startswith("name: more\nscenarios:\n- name: opening hours\n  tags: [hours]\n")
    assert "opening hours" not in (project / "support.suite.yaml").read_text()
    assert cli(project, "validate", ".").returncode == 0
    done = cli(project, "move", "support.suite.yaml::#0", "--to", "copy.suite.json", "--copy")
    assert done.returncode == 0, done.stderr
    data = json.loads((project / "copy.suite.json").read_text())
    assert data["scenarios"][0]["name"] == "shipping is EU only"
    assert "shipping is EU only" in (project / "support.suite.yaml").read_text()
    # into an existing suite, after its last scenario, with that file's indentation
    done = cli(project, "move", "sub/one.scenario.yaml", "--to", "new/more.suite.yaml")
    assert done.returncode == 0, done.stderr
    assert not (project / "sub" / "one.scenario.yaml").exists()
    assert "- name: lonely\n  tags: [billing]\n" in (project / "new/more.suite.yaml").read_text()
    assert cli(project, "validate", ".").returncode == 0


def test_move_between_a_suite_and_a_dataset_is_refused(project: Path) -> None:
    before = snapshot(project)
    done = cli(project, "move", "support.suite.yaml::#0", "--to", "faq.dataset.jsonl")
    assert done.returncode == 2
    assert "does not convert" in done.stderr
    assert snapshot(project) == before


def test_move_rows_into_a_new_yaml_dataset(project: Path) -> None:
    done = cli(project, "move", "faq.dataset.jsonl::#1", "--to", "more.dataset.yaml")
    assert done.returncode == 0, done.stderr
    assert len((project / "faq.dataset.jsonl").read_text().splitlines()) == 1
    assert cli(project, "validate", ".").returncode == 0
    listed = cli(project, "list", "scenarios", "more.dataset.yaml").stdout
    assert "remboursement" in listed


# -- record mode ----------------------------------------------------------------------

AGENT = "def answer(inputs):\n    return 'hello ' + str(inputs)\n"

RECORDED_SUITE = """\
name: live  # calls the agent
target: python:agent:answer
scenarios:
  - name: greets
    steps:
      - interacts:
          - inputs: ana
        checks: [{kind: string_matching, keyword: hello}]
"""


def test_record_writes_live_outputs_and_a_later_run_reports_drift(project: Path) -> None:
    (project / "agent.py").write_text(AGENT)
    suite = project / "live.suite.yaml"
    suite.write_text(RECORDED_SUITE)
    rows = project / "live.dataset.yaml"
    rows.write_text(
        "name: rows\ninput_schema: {type: string}\noutput_schema: {type: string}\nscenarios:\n"
        "  - interactions:\n      - input: bob\n        checks:\n"
        "          - {identifier: string_matching, params: {keyword: hello, target_key: trace.last.outputs}}\n"
    )
    (project / "checkspec.yaml").write_text("jobs: 1\ntarget: python:agent:answer\n")
    done = cli(project, "run", "live.suite.yaml", "live.dataset.yaml", "--record")
    assert done.returncode == 0, done.stderr
    assert "recorded 2 scenario(s)' outputs in 2 file(s)" in done.stderr
    assert suite.read_text() == RECORDED_SUITE.replace(
        "          - inputs: ana\n", "          - inputs: ana\n            outputs: hello ana\n"
    )
    assert "      - input: bob\n        output: hello bob\n        checks:\n" in rows.read_text()
    again = cli(project, "run", "live.suite.yaml", "--fail-on-drift")
    assert again.returncode == 0 and "drift" not in again.stderr
    (project / "agent.py").write_text(AGENT.replace("'hello '", "'hello there '"))
    drifted = cli(project, "run", "live.suite.yaml", "live.dataset.yaml")
    assert drifted.returncode == 0
    assert "live.suite.yaml:8: drift in 'greets':" in drifted.stderr
    assert "-hello ana" in drifted.stderr and "+hello there ana" in drifted.stderr
    assert "2 output(s) drifted" in drifted.stderr
    assert cli(project, "run", "live.suite.yaml", "--fail-on-drift").returncode == 1
    # without --record the file is left as it was
    assert "outputs: hello ana\n" in suite.read_text()


def test_why_a_scenario_was_not_recorded_is_said_only_under_record(project: Path) -> None:
    # The first step fails, so the run makes 1 interaction of the file's 2: not recorded.
    (project / "agent.py").write_text(AGENT)
    suite = project / "short.suite.yaml"
    suite.write_text(
        RECORDED_SUITE.replace("keyword: hello", "keyword: bye")
        + "      - interacts:\n          - inputs: bo\n"
    )
    plain = cli(project, "run", "short.suite.yaml")
    assert plain.returncode == 1
    assert "record:" not in plain.stderr and "not recorded" not in plain.stderr
    asked = cli(project, "run", "short.suite.yaml", "--record")
    assert asked.returncode == 1
    assert (
        "record: short.suite.yaml::greets: the run made 1 interaction(s), the file writes 2: "
        "not recorded" in asked.stderr
    )


# -- hostile files ----------------------------------------------------------------------

HOSTILE = {
    "crlf.suite.yaml": (
        b"name: s\r\nscenarios:\r\n  # kept\r\n  - name: first\r\n    tags: [x]\r\n"
        b"    steps:\r\n      - interacts: [{inputs: hi, outputs: hello}]\r\n"
        b"        checks: [{kind: string_matching, keyword: hello}]\r\n"
        b"  - name: untouched\r\n    steps: []\r\n"
    ),
    "bom.suite.yaml": (
        "\ufeffname: s\nscenarios:\n  - name: first\n    tags: [x]\n    steps:\n"
        "      - interacts: [{inputs: hi, outputs: hello}]\n"
        "        checks: [{kind: string_matching, keyword: hello}]\n"
        "  - name: untouched\n    steps: []\n"
    ).encode(),
    "tabs.suite.yaml": (
        b"name: s\nscenarios:\n  - name: first\t# a tab, then a comment\n    tags: [x]\t\n"
        b"    steps:\n      - interacts: [{inputs: hi, outputs: hello}]\n"
        b"        checks: [{kind: string_matching, keyword: hello}]\n"
        b"  - name: untouched\n    steps: []\n"
    ),
    "unicode.suite.yaml": (
        'name: s\nscenarios:\n  - name: "caf\u00e9 \U0001f600 \u200b \u05e9\u05dc\u05d5\u05dd"\n'
        "    tags: [x]\n    steps:\n      - interacts: [{inputs: hi, outputs: hello}]\n"
        "        checks: [{kind: string_matching, keyword: hello}]\n"
        "  - name: untouched\n    steps: []\n"
    ).encode(),
    "flow.suite.yaml": (
        b"{name: s, scenarios: [{name: first, tags: [x], steps: [{interacts: "
        b"[{inputs: hi, outputs: hello}], checks: [{kind: string_matching, keyword: hello}]}]},"
        b" {name: untouched, steps: []}]}\n"
    ),
}
UNTOUCHED = {
    "crlf.suite.yaml": b"  - name: untouched\r\n    steps: []\r\n",
    "flow.suite.yaml": b"{name: untouched, steps: []}]}\n",
}
EDITS = [
    ("tag", "add", "new tag", "{0}::#0"),
    ("tag", "remove", "x", "{0}::#0"),
    ("status", "draft", "{0}::#0"),
    ("comment", "{0}::#0", "looks right — Zoë"),
    ("checks", "disable", "string_matching", "{0}::#0"),
    ("move", "{0}::#0", "--to", "moved.suite.yaml"),
    ("delete", "{0}::#0", "--yes"),
]


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_every_edit_keeps_a_hostile_files_bytes_and_validates(tmp_path: Path, name: str) -> None:
    (tmp_path / "checkspec.yaml").write_text("jobs: 1\n")
    path = tmp_path / name
    untouched = UNTOUCHED.get(name, b"  - name: untouched\n    steps: []\n")
    for edit in EDITS:
        path.write_bytes(HOSTILE[name])
        (tmp_path / "moved.suite.yaml").unlink(missing_ok=True)
        done = cli(tmp_path, *[part.format(name) for part in edit])
        assert done.returncode == 0, (edit, done.stderr)
        after = path.read_bytes()
        assert after != HOSTILE[name], edit
        assert after.endswith(untouched), (edit, after)  # the other scenario, byte for byte
        assert after.startswith(HOSTILE[name][:8]), edit  # a BOM, the first line's bytes
        if name == "crlf.suite.yaml":
            assert after.count(b"\n") == after.count(b"\r\n"), (edit, after)  # no bare LF
        checked = cli(tmp_path, "validate", name, *(["moved.suite.yaml"] if "move" in edit else []))
        assert checked.returncode == 0, (edit, checked.stdout, checked.stderr, after)


def test_every_edit_of_a_jsonl_with_a_bad_line_exits_2_located_and_changes_nothing(
    project: Path,
) -> None:
    bad = project / "bad.dataset.jsonl"
    bad.write_text(json.dumps(ROW) + '\n{"name": "broken", oops\n' + json.dumps(ROW) + "\n")
    before = snapshot(project)
    for edit in [*EDITS, ("move", "faq.dataset.jsonl::#0", "--to", "{0}")]:
        args = [part.format("bad.dataset.jsonl") for part in edit]
        args = [a.replace("moved.suite.yaml", "moved.dataset.jsonl") for a in args]
        done = cli(project, *args)
        assert done.returncode == 2, (edit, done.stderr)
        assert "bad.dataset.jsonl:2:20: " in done.stderr, (edit, done.stderr)
        assert snapshot(project) == before, edit


def test_an_unknown_check_exits_2_with_the_nearest_ones(project: Path) -> None:
    before = snapshot(project)
    done = cli(project, "checks", "disable", "string_matchng", "support.suite.yaml")
    assert done.returncode == 2
    assert "support.suite.yaml:6:1: no check 'string_matchng'" in done.stderr
    assert "did you mean 'string_matching'" in done.stderr
    assert snapshot(project) == before
