"""Long texts in the report pages (issue 36): an output of 1 MB of one character is shown
cut to CUT characters with buttons that show more and all of it (the page took 46 s to
lay it out whole); the page's CSP runs only its own script, by hash, so no inline event
handler runs. report.js is run by node over a minimal stand-in for the DOM."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
from typing import Any

import pytest

from checkspec.engine.html.page import asset, page, render_report, slim_report
from tests.support.fake_dom import FAKE_DOM

CHECK = r"""
setTimeout(() => {
  const row = app.all((n) => n.tagName === "details" && n.className === "row")[0];
  row.open = true; row.fire("toggle");
  const out = [];
  const msg = () => app.all((n) => n.className === "msg")[1];  // the assistant's turn
  out.push(msg().textContent.length);
  app.all((n) => n.className === "more show-more")[0].fire("click");
  out.push(msg().textContent.length);
  app.all((n) => n.className === "more show-all")[0].fire("click");
  out.push(msg().textContent.length);
  out.push(app.all((n) => n.className === "msg")[0].textContent);  // a short one, whole
  out.push(app.all((n) => n.className === "name")[0].textContent.length);
  console.log(JSON.stringify(out));
}, 0);
"""


def _payload(output: str, name: str) -> dict[str, Any]:
    scenario = {
        "scenario_name": name,
        "id": "a.scenario.yaml::s",
        "file": "a.scenario.yaml",
        "status": "fail",
        "steps": [{"results": [{"status": "fail", "message": "m"}], "status": "fail"}],
        "final_trace": {"interactions": [{"inputs": "hi", "outputs": output}]},
    }
    return {"status": "fail", "summary": {"fail": 1}, "scenarios": [scenario]}


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the page's script")
def test_a_megabyte_of_one_character_is_shown_cut_with_more_and_all() -> None:
    full = "x" * 1_000_000
    html = page("report", slim_report(_payload(full, "n" * 5000)), "t", compress_over=10**9)
    embedded = re.search(r'id="checkspec-data"[^>]*>(.*?)</script>', html, re.DOTALL)
    assert embedded
    program = (
        f"const DATA = {json.dumps(embedded.group(1))};\n" + FAKE_DOM + asset("report.js") + CHECK
    )
    done = subprocess.run(
        ["node", "-"], input=program, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    cut, more, everything, short, name = json.loads(done.stdout)
    assert cut == 20_000
    assert 20_000 < more < everything
    assert everything == 1_000_000  # all shown, the note and buttons gone
    assert short == "hi" and name == 301


def test_the_csp_allows_only_the_pages_own_script() -> None:
    html = render_report(_payload("x", "s"))
    csp = re.search(r'Content-Security-Policy" content="([^"]+)"', html)
    assert csp
    policy = dict(part.strip().split(" ", 1) for part in csp.group(1).split(";"))
    assert "unsafe-inline" not in policy["script-src"]
    script = re.findall(r"<script>(.*?)</script>", html, re.DOTALL)
    assert len(script) == 1
    digest = base64.b64encode(hashlib.sha256(script[0].encode()).digest()).decode()
    assert policy["script-src"] == f"'sha256-{digest}'"
    assert not re.search(r"<[^>]+\son[a-z]+\s*=", html)  # no inline handler in the markup
