"""The HTML run report: one self-contained page (nothing fetched, works from file://), its
data embedded safely, and `checkspec run --format html` writing it."""

from __future__ import annotations

import base64
import gzip
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from checkspec.engine.html import render_report
from checkspec.engine.html.page import embed_json, page, slim_report
from tests.support.paths import REPO as _REPO

REPO = _REPO
EXAMPLES = REPO / "examples"


def _embedded(page: str) -> Any:
    found = re.search(
        r'<script type="application/json" id="checkspec-data" data-encoding="([^"]+)">(.*?)'
        r"</script>",
        page,
        re.DOTALL,
    )
    assert found, "no embedded data"
    value = json.loads(found.group(2))
    if found.group(1) == "gzip+base64":
        return json.loads(gzip.decompress(base64.b64decode(value)))
    assert found.group(1) == "json"
    return value


def _report(**scenario: Any) -> dict[str, Any]:
    base = {
        "scenario_name": "s",
        "id": "a.scenario.yaml::s",
        "file": "a.scenario.yaml",
        "line": 1,
        "status": "fail",
        "tags": ["t"],
        "steps": [
            {
                "results": [{"status": "fail", "message": "m", "metrics": [], "details": {}}],
                "status": "fail",
                "error": None,
                "check_names": [],
            }
        ],
        "final_trace": {"interactions": [], "last": {"inputs": "x", "outputs": "y"}},
    }
    base.update(scenario)
    return {"status": "fail", "summary": {"fail": 1}, "duration_s": 0.1, "scenarios": [base]}


def test_page_is_self_contained() -> None:
    page = render_report(_report())
    # Nothing that would reach the network or another file: no URL, no external src/href.
    assert not re.search(r"https?://", page, re.IGNORECASE)
    assert not re.search(r"""\b(src|href)\s*=\s*["']?(?!#|data:)[^\s"'>]""", page)
    assert not re.search(r"<link\b|@import|url\(", page, re.IGNORECASE)
    assert "<style>" in page and "function listView" in page  # inlined, not linked
    assert page.count("<script") == 2  # the data and the script, both inline


def test_data_cannot_end_its_script_element() -> None:
    hostile = "</script><script>alert(1)</script><!-- \u2028\u2029 & </SCRIPT >"
    page = render_report(_report(scenario_name=hostile, output=hostile))
    data_start = page.index('id="checkspec-data"')
    data_end = page.index("</script>", data_start)
    embedded = page[data_start:data_end]
    assert "<" not in embedded.split(">", 1)[1]
    assert "\u2028" not in embedded and "\u2029" not in embedded
    scenario = _embedded(page)["data"]["scenarios"][0]
    assert scenario["scenario_name"] == hostile and scenario["output"] == hostile
    assert page.count("</script>") == 2


def test_embed_json_round_trips_every_character() -> None:
    value = {"text": "".join(chr(c) for c in range(0, 0x3000)) + "\u2028\u2029</script>"}
    text = embed_json(value)
    assert "<" not in text and "\u2028" not in text
    assert json.loads(text) == value


def test_title_is_escaped() -> None:
    page = render_report(_report(), title="<b>&")
    assert "<title>&lt;b&gt;&amp;</title>" in page


def test_slimmed_data_keeps_what_the_page_shows() -> None:
    data = _embedded(render_report(_report()))["data"]
    scenario = data["scenarios"][0]
    assert "last" not in scenario["final_trace"]  # a copy of the final interaction
    assert scenario["steps"][0]["results"][0]["message"] == "m"
    assert scenario["tags"] == ["t"] and scenario["file"] == "a.scenario.yaml"


def test_run_format_html_writes_the_page(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    command = [sys.executable, "-m", "checkspec.engine.cli.main", "run", ".", "--no-history"]
    done = subprocess.run(
        [*command, "--format", "html", "-o", str(out)],
        cwd=EXAMPLES,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr  # the examples have a failure and an error
    page = out.read_text(encoding="utf-8")
    data = _embedded(page)
    assert data["page"] == "report"
    statuses = sorted(s["status"] for s in data["data"]["scenarios"])
    assert statuses.count("fail") == 1 and statuses.count("error") == 1
    assert not re.search(r"https?://", page)


def test_big_data_is_embedded_gzipped(tmp_path: Path) -> None:
    payload = _report(scenario_name="</script>\u2028" + "x" * 5000)
    small = page("report", slim_report(payload), "t")
    packed = page("report", slim_report(payload), "t", compress_over=1000)
    assert 'data-encoding="json"' in small and 'data-encoding="gzip+base64"' in packed
    assert len(packed) < len(small)
    assert _embedded(packed) == _embedded(small)
    assert packed.count("</script>") == 2


def test_repeats_are_embedded_for_the_page(tmp_path: Path) -> None:
    out = tmp_path / "repeat.html"
    command = [sys.executable, "-m", "checkspec.engine.cli.main", "run", ".", "--no-history"]
    done = subprocess.run(
        [*command, "--repeat", "2", "--format", "html", "-o", str(out)],
        cwd=EXAMPLES,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    data = _embedded(out.read_text(encoding="utf-8"))["data"]
    assert data["run"]["repeat"] == 2
    assert all(s["repeats"]["runs"] == 2 for s in data["scenarios"])
