"""Labels in the pages (issue 40 items 2 and 6): the calibration page draws each judge's
numbers, matrix and disagreements from its data; the run report offers "Label as correct /
incorrect" on a judged check (the `checkspec label` command). The pages' scripts run in
node over the minimal DOM of test_html_long_texts."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from typing import Any

import pytest

from checkspec.engine.calibrate.labels import Label
from checkspec.engine.calibrate.render import html
from checkspec.engine.calibrate.run import Calibration, Judge, Judged
from checkspec.engine.html.page import asset, page, slim_report
from tests.support.fake_dom import FAKE_DOM

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node runs the scripts")


def run_page(html_text: str, scripts: tuple[str, ...], check: str) -> Any:
    embedded = re.search(r'id="checkspec-data"[^>]*>(.*?)</script>', html_text, re.DOTALL)
    assert embedded
    program = (
        f"const DATA = {json.dumps(embedded.group(1))};\n"
        + FAKE_DOM
        + "".join(asset(name) for name in scripts)
        + check
    )
    done = subprocess.run(
        ["node", "-"], input=program, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def label(line: int, expect: str) -> Label:
    return Label(
        path="tone.suite.yaml",
        line=line,
        column=9,
        scenario="s <b>",
        identity=f"t::{line}",
        step=0,
        index=0,
        kind="llm_judge",
        name=None,
        expect=expect,
        prompt="inline:1234",
    )


def test_the_calibration_page_draws_judges_matrix_and_disagreements() -> None:
    cases = [
        Judged(label(3, "fail"), "m", ["fail"], ["caught"]),
        Judged(label(9, "pass"), "m", ["fail"], ["<script>alert(1)</script> too curt"]),
        Judged(label(15, "pass"), "m", ["pass"], ["fine"]),
    ]
    calibration = Calibration(
        [Judge("llm_judge", "m", "inline:1234", cases)], [c.label for c in cases]
    )
    text = html(calibration)
    assert "<script>alert" not in text
    out = run_page(
        text,
        ("calibration.js", "report.js"),
        r"""
setTimeout(() => {
  const texts = (cls) => app.all((n) => n.className === cls).map((n) => n.textContent);
  const cells = app.all((n) => n.className === "judge")[0].children.map((c) => c.textContent);
  const confusion = app.all((n) => n.className === "confusion")[0].children.map(
    (row) => row.children.map((c) => c.textContent));
  console.log(JSON.stringify([cells, confusion, texts("disagreement"), texts("reason")]));
}, 0);
""",
    )
    cells, confusion, disagreements, reasons = out
    assert cells[:6] == ["llm_judge @ m [inline:1234]", "3", "66.7%", "0.400", "50.0%", "100.0%"]
    assert confusion[1:] == [["label fail", "1", "0"], ["label pass", "1", "1"]]
    assert len(disagreements) == 1 and disagreements[0].startswith("tone.suite.yaml:9s <b>passfail")
    assert reasons == ["<script>alert(1)</script> too curt"]  # as text, never markup


@pytest.mark.parametrize(
    ("run", "replayed", "tail"),
    [
        (None, False, ""),  # a report without a kept run: the plain command
        ("20261205-171500-ab12", False, " --from-run 20261205-171500-ab12"),  # live answers
        ("20261205-171500-ab12", True, ""),  # recorded answers were judged: nothing to record
    ],
)
def test_the_run_report_offers_label_commands_on_a_judged_check(
    run: str | None, replayed: bool, tail: str
) -> None:
    scenario = {
        "scenario_name": "s",
        "id": "my suite.yaml::s",
        "file": "my suite.yaml",
        "status": "fail",
        "steps": [
            {
                "status": "fail",
                "results": [
                    {
                        "status": "fail",
                        "check": "llm_judge",
                        "line": 7,
                        "message": "rude",
                        "details": {"model": "openai/judge", "reason": "rude"},
                    },
                    {"status": "fail", "check": "equals", "line": 9, "message": "no"},
                ],
            }
        ],
        "final_trace": {"interactions": [{"inputs": "hi", "outputs": "go"}]},
        "replayed": replayed,
    }
    data: dict[str, Any] = {"status": "fail", "summary": {"fail": 1}, "scenarios": [scenario]}
    if run is not None:
        data["run"] = {"id": run}
    text = page("report", slim_report(data), "t")
    out = run_page(
        text,
        ("report.js",),
        r"""
setTimeout(() => {
  const row = app.all((n) => n.tagName === "details" && n.className === "row")[0];
  row.open = true; row.fire("toggle");
  const buttons = app.all((n) => n.className === "more label-as");
  const titles = buttons.map((b) => b.textContent);
  buttons[1].fire("click");
  const shown = app.all((n) => n.className === "muted label-command")[0].textContent;
  console.log(JSON.stringify([titles, shown]));
}, 0);
""",
    )
    titles, shown = out
    assert titles == ["Label as correct", "Label as incorrect"]  # on the judge, not on equals
    assert shown == "checkspec label 'my suite.yaml:7' pass" + tail


def test_the_calibration_page_draws_two_judges_side_by_side() -> None:
    one = [
        Judged(label(3, "fail"), "a", ["fail"], ["x"]),
        Judged(label(9, "pass"), "a", ["pass"], ["y"]),
    ]
    two = [
        Judged(label(3, "fail"), "b", ["pass"], ["x"]),
        Judged(label(9, "pass"), "b", ["pass"], ["y"]),
    ]
    judges = [Judge("llm_judge", "a", "p", one), Judge("llm_judge", "b", "p", two)]
    out = run_page(
        html(Calibration(judges, [c.label for c in one])),
        ("calibration.js", "report.js"),
        r"""
setTimeout(() => {
  const rows = (cls) => app.all((n) => n.className === cls).map((r) => r.children.map((c) => c.textContent));
  console.log(JSON.stringify([rows("compared"), rows("differ")]));
}, 0);
""",
    )
    compared, differ = out
    assert [row[:2] for row in compared] == [
        ["llm_judge @ a [p]", "100.0%"],
        ["llm_judge @ b [p]", "50.0%"],
    ]
    assert differ == [["tone.suite.yaml:3", "labelled fail", "fail / pass"]]
