"""The compare page: `checkspec compare --format html` over two recorded runs, with the
listed scenarios of both runs embedded; self-contained and escaped like the report."""

from __future__ import annotations

import json
import re
from pathlib import Path

from checkspec.engine.history.compare import compare
from checkspec.engine.html import render_compare
from tests.support.cli import run_main
from tests.support.recorded_runs import NEW_KEYWORD, NEWLY_FAILING


def _data(page: str) -> dict:
    found = re.search(r'data-encoding="json">(.*?)</script>', page, re.DOTALL)
    assert found
    return json.loads(found.group(1))["data"]


def _payload(run_id: str, status: str, name: str = "s") -> dict:
    return {
        "format": "checkspec-run/1",
        "run": {"id": run_id, "started": "2026-01-01T00:00:00+00:00"},
        "scenarios": [
            {
                "id": f"a.scenario.yaml::{name}",
                "scenario_name": name,
                "file": "a.scenario.yaml",
                "status": status,
                "steps": [{"results": [{"status": status, "message": "m", "details": {}}]}],
                "final_trace": {"interactions": [{"inputs": "q", "outputs": status}]},
            }
        ],
    }


def test_compare_page_embeds_both_sides_of_what_changed() -> None:
    base, head = _payload("r1", "pass"), _payload("r2", "fail", name="</script>\u2028")
    head["scenarios"][0]["id"] = base["scenarios"][0]["id"]
    page = render_compare(compare(base, head), base=base, head=head)
    assert not re.search(r"https?://", page) and page.count("</script>") == 2
    data = _data(page)
    assert [c["head_status"] for c in data["newly_failing"]] == ["fail"]
    sides = data["scenarios"][base["scenarios"][0]["id"]]
    assert sides["base"]["status"] == "pass" and sides["head"]["status"] == "fail"
    assert data["newly_failing"][0]["name"] == "</script>\u2028"


def test_compare_page_without_the_runs_lists_the_changes_only() -> None:
    base, head = _payload("r1", "pass"), _payload("r2", "fail")
    data = _data(render_compare(compare(base, head).to_json()))
    assert data["newly_failing"] and "scenarios" not in data


def test_cli_compare_format_html(two_runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "compare.html"
    done = run_main(two_runs, "compare", "--format", "html", "-o", str(out))
    assert done.returncode == 1, done.stderr  # something newly fails
    data = _data(out.read_text(encoding="utf-8"))
    (newly,) = data["newly_failing"]
    assert newly["name"] == NEWLY_FAILING
    assert NEW_KEYWORD in json.dumps(data["scenarios"][newly["id"]]["head"])
