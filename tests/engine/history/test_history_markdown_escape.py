"""The pull-request comment (`compare --format markdown`) shows what comes from users'
files, models and agents as text (issue 36): a bare `\\r` cannot end a table row and start
a heading, `[text](url)` and `![img](url)` are no live link or image, HTML is inert."""

from __future__ import annotations

import re
from typing import Any

from markdown_it import MarkdownIt

from checkspec.engine.core.safe_text import markdown_cell, terminal
from checkspec.engine.history.compare import compare
from checkspec.engine.history.render import compare_markdown

HOSTILE = [
    "a\r\r## nothing newly failing",
    "b\n\n# heading",
    "c\u2028d",
    "[click](https://evil.example)",
    "![img](https://evil.example/x.png)",
    "<img src=x onerror=alert(1)>",
    "pipe | in | name",
    "`code` and **bold**",
    "&lt;entity&gt;",
]


def report(status: str, output: str) -> dict[str, Any]:
    return {
        "format": "checkspec-run/1",
        "run": {"id": "r-" + status},
        "scenarios": [
            {
                "id": f"f`[x](y)`.yaml::{name}",
                "scenario_name": name,
                "file": "f`[x](y)`|.yaml",
                "line": 3,
                "status": status,
                "tags": [name],
                "steps": [{"results": [{"status": status, "check": "equals", "message": name}]}],
                "final_trace": {"interactions": [{"inputs": name, "outputs": output + name}]},
            }
            for name in HOSTILE
        ],
    }


def render(markdown: str) -> str:
    return MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)


def test_hostile_names_and_outputs_stay_text_in_the_comment() -> None:
    markdown = compare_markdown(compare(report("pass", "old "), report("fail", "new ")))
    html = render(markdown)
    assert html.count("<h2>") == 1 and "<h1>" not in html  # only "## checkspec: compare"
    assert "<a " not in html and "<img" not in html and "<strong>bold" not in html
    rows = [line for line in markdown.splitlines() if line.startswith("| ")]
    separators = sum(line.startswith("| ---") for line in rows)
    assert html.count("<tr>") == len(rows) - separators  # no row cut short
    for table in html.split("<table>")[1:]:  # every row keeps its table's cells
        head, body = table.split("</thead>")
        assert {row.count("<td") for row in body.split("<tr>")[1:]} == {
            len(re.findall(r"<th[ >]", head))
        }
    assert "[click](https://evil.example)" in html


def test_a_cell_is_one_line_with_pipes_and_html_escaped() -> None:
    assert "\n" not in markdown_cell("a\r\nb\rc\nd") and "\r" not in markdown_cell("a\rb")
    assert markdown_cell("x|y") == "x\\|y"
    assert markdown_cell("<b>&") == "&lt;b&gt;&amp;"
    assert markdown_cell("![i](u)") == "\\!\\[i\\]\\(u\\)"


def test_terminal_text_shows_control_characters_as_escapes() -> None:
    assert terminal("red \x1b[31m\x07 \u202e") == "red \\x1b[31m\\x07 \\u202e"
    assert terminal("a\nb\tc") == "a\nb\tc"
    assert terminal("a\r\nb\rc", one_line=True) == "a b c"
