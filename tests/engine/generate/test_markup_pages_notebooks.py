"""HTML sites and Jupyter notebooks as a reader sees them (issue 49 item 1): a page's
main content without the site's navigation, sidebars, banners and footers; a notebook's
markdown and code cells without their outputs, each at its line of the .ipynb file."""

from __future__ import annotations

import json
from pathlib import Path

from checkspec.engine.generate.knowledge import load_knowledge_base
from checkspec.engine.generate.markup import html_blocks

PAGE = """\
<html><head><title>Install - Docs</title></head><body>
<header><a href="/">Site</a><nav><ul><li>Home</li><li>Docs</li></ul></nav></header>
<div class="wrap"><div role="navigation"><p>Guide index</p></div>
<main><article><header><h1>Install</h1></header>
<p>Run pip install example.</p>
<aside class="toc"><p>On this page</p></aside>
<pre><code>pip install example</code></pre>
</article></main></div>
<footer><p>Copyright 2024 Example</p></footer>
</body></html>
"""


def test_an_html_page_gives_its_main_content_only() -> None:
    found = [(b.text, b.line, b.heading, b.code) for b in html_blocks(PAGE.splitlines(True))]
    assert found == [
        ("Install", 4, 1, False),
        ("Run pip install example.", 5, 0, False),
        ("pip install example", 7, 0, True),
    ]


def test_a_page_without_main_drops_its_chrome_and_keeps_the_rest() -> None:
    page = (
        "<body><nav><a>Home</a></nav><h1>Title</h1><p>Body text.</p>"
        "<aside><p>Related</p></aside><footer>Legal</footer></body>"
    )
    assert [b.text for b in html_blocks([page])] == ["Title", "Body text."]


def _notebook(path: Path) -> Path:
    cells = [
        {
            "cell_type": "markdown",
            "metadata": {},
            "source": ["# Training\n", "\n", "Fit the **model** first.\n"],
        },
        {
            "cell_type": "code",
            "execution_count": 1,
            "metadata": {},
            "outputs": [{"name": "stdout", "output_type": "stream", "text": ["SECRET OUTPUT\n"]}],
            "source": ["model.fit(data)\n", "model.save()"],
        },
        {"cell_type": "markdown", "metadata": {}, "source": "The loss goes down."},
        {"cell_type": "raw", "metadata": {}, "source": ["raw cell"]},
    ]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(notebook, indent=1) + "\n", encoding="utf-8")  # as Jupyter does
    return path


def test_a_notebook_gives_markdown_and_code_cells_without_outputs(tmp_path: Path) -> None:
    path = _notebook(tmp_path / "train.ipynb")
    kb = load_knowledge_base([path])
    text = "\n\n".join(c.text for c in kb.chunks)
    assert "Fit the model first." in text
    assert "```\nmodel.fit(data)\nmodel.save()\n```" in text
    assert "The loss goes down." in text
    assert "SECRET OUTPUT" not in text and "raw cell" not in text
    assert kb.chunks[0].title == "Training"
    lines = path.read_text(encoding="utf-8").splitlines()
    for chunk in kb.chunks:
        first = chunk.text.lstrip("`\n").split()[0]
        assert first in lines[chunk.line - 1], (chunk.line, first)


def test_a_broken_notebook_is_skipped_saying_why(tmp_path: Path) -> None:
    (tmp_path / "bad.ipynb").write_text("{not json", encoding="utf-8")
    (tmp_path / "ok.md").write_text("# Ok\n\nText.\n", encoding="utf-8")
    kb = load_knowledge_base([tmp_path])
    assert any("bad.ipynb: skipped, not a readable notebook" in w for w in kb.warnings)
