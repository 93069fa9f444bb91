"""How cleanly `checkspec generate --from-docs` reads real documentation (issue 49).

For each set of tests/data/real_docs/ (Sphinx, MkDocs Material, Docusaurus MDX, MyST, HTML,
a PDF, notebooks), reads it as
`generate` does (no model) and reports:

- residue: markup left in chunk text outside code blocks (roles, directives, admonition
  and tab markers, HTML comments, front matter, JSX tags; `MARKUP_RESIDUE`), goal 0;
- provenance: the share of chunks whose first words are on the chunk's line or within the
  3 lines after it, goal >= 99%.

- recall (`--recall`): the share of the sentences of the set's rendering by its own
  project's tool found, word for word, in some chunk; goal >= 98%. The renderers are
  installed once under ~/.cache/checkspec-bench/docs-reading (a venv from PyPI: Sphinx
  with sphinx-tabs, myst-parser and sphinx-design, MkDocs with mkdocs-material,
  nbconvert, pdfminer.six; an npm folder: @mdx-js/mdx, React, remark-gfm and
  remark-directive); one that cannot be installed or run is named in the table, its
  set's recall "not measured". Sentences the renderer itself left markup in (a syntax
  it does not know: FastAPI's `{* file *}` includes, mystmd-only directives) are left
  out of the count, and counted.

    .venv/bin/python bench/docs_reading.py            # residue and provenance
    .venv/bin/python bench/docs_reading.py --recall   # and recall: the table of bench/README.md
    .venv/bin/python bench/docs_reading.py --recall --show   # and each residue, late chunk,
                                                             # missing sentence
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from checkspec.engine.generate.knowledge import Chunk, load_knowledge_base

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # bench.generate: its venvs

CORPUS = ROOT / "tests" / "data" / "real_docs"
# Markup a reader never sees, as it would be left in text by a reader that missed it.
MARKUP_RESIDUE = re.compile(
    r"(?<![\w`]):[\w:+.-]+:`"  # a reStructuredText role, :class:`X`
    r"|\{[\w:+.-]+\}`"  # a MyST role, {ref}`x`
    r"|^[ \t]*\.\. [\w:.-]+::"  # a directive left as text
    r"|^[ \t]*(!!!|\?\?\?\+?|===|:::|///)"  # admonition, details, tab, container markers
    r"|<!--|-->"  # HTML comments
    r"|^[ \t]*---[ \t]*$"  # front matter fences
    r"|^\s*</?[A-Z][A-Za-z]*[\s/>]"  # JSX components (a line of its own)
    r"|^[ \t]*(import|export) .* from ['\"]"
    r"|\{\*\s|:material-|:octicons-"  # code includes, icons  # MDX imports
    r"|\{\s*[#.][\w-]+[^}]*\}|\{:?\s*[\w-]+=[\"']"  # attribute lists, { .annotate }
    r"|\[\^[^\]\s]+\]"  # footnotes, [^1]
    r"|#\s*\(\d+\)!"  # code annotations
    r"|¶",  # a heading's permalink
    re.MULTILINE,
)
_FENCED = re.compile(r"^(`{3,})\n.*?^\1$", re.MULTILINE | re.DOTALL)
_WORD = re.compile(r"\w{2,}")


_INLINE_CODE = re.compile(r"(`+)(.+?)\1")


def residue(chunk: Chunk, source: str = "") -> list[str]:
    """The markup left in the chunk's text outside its code blocks, but for markup the
    page itself shows as inline code (`` {ref}`x` ``: a page about the syntax)."""
    shown = {m.group(2) for m in _INLINE_CODE.finditer(source)} if "`" in source else set()
    return [
        m.group(0)
        for m in MARKUP_RESIDUE.finditer(_FENCED.sub("", chunk.text))
        if not any(m.group(0).strip() in code for code in shown)
    ]


def provenance_right(chunk: Chunk, lines: list[str], pdf: bool = False) -> bool:
    """Whether one of the chunk's first three words is on its line or within the 3 lines
    after it (three: a word Sphinx adds, "Added in version 2.0", is in no source line);
    for a PDF (`lines` its pages' text), on its page."""
    text = chunk.text.lstrip("`").removeprefix("\n").removeprefix("- ")
    first = _WORD.findall(text[:200])[:3]
    if not first:
        return True
    window = lines[max(0, chunk.line - 1) : chunk.line + (0 if pdf else 3)]
    return any(word in line for word in first for line in window)


_SENTENCE = re.compile(r"(?<=[.!?:])\s+|\n\s*\n")
_WORDS = re.compile(r"\w+")


def _words(text: str) -> str:
    return " ".join(_WORDS.findall(text.lower()))


# -- references: each set rendered by its project's own tool ---------------------------

REFERENCES = Path.home() / ".cache" / "checkspec-bench" / "docs-reading"
# One venv for the Python renderers, one npm folder for MDX; made once, from PyPI and npm.
REFERENCE_TOOLS = (
    "sphinx",
    "sphinx-tabs",
    "myst-parser",
    "sphinx-design",
    "mkdocs",
    "mkdocs-material",
    "nbconvert",
    "pdfminer.six",
)
MDX_PACKAGES = ("@mdx-js/mdx", "react", "react-dom", "remark-gfm", "remark-directive")


class ToolMissing(Exception):
    """A renderer that could not be installed or run: the set's recall is not measured."""


def reference_python() -> Path:
    """The venv holding the Python renderers (bench/generate.py's ensure_venv)."""
    from bench.generate import ensure_venv

    python, why = ensure_venv(REFERENCES, "references", REFERENCE_TOOLS)
    if python is None:
        raise ToolMissing(f"the Python renderers could not be installed: {why}")
    return python


def _run(argv: list[str], cwd: Path | None = None) -> str:
    import subprocess

    done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, check=False)
    if done.returncode != 0:
        raise ToolMissing(f"{Path(argv[0]).name} failed: {done.stderr.strip()[-400:]}")
    return done.stdout


class _Text:
    """The text of an HTML page, or of its element starting at `start` (a regex), one
    paragraph a block element, scripts, styles, SVG and permalinks left out."""

    BLOCKS = frozenset(
        [
            "p",
            "div",
            "li",
            "ul",
            "ol",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "pre",
            "tr",
            "table",
            "dt",
            "dd",
            "dl",
            "blockquote",
            "section",
            "article",
            "details",
            "summary",
            "figcaption",
            "br",
            "hr",
            "main",
            "label",
        ]
    )
    HIDDEN = frozenset(["script", "style", "svg", "template", "head", "button"])

    @classmethod
    def of(cls, html: str, start: str = "", end: str = "") -> str:
        from html.parser import HTMLParser

        if start and (found := re.search(start, html)):
            html = html[found.start() :]
        if end and (found := re.search(end, html)):
            html = html[: found.start()]
        parts: list[str] = []
        hiding: list[str] = []  # the open tags that hide what they hold

        class Parser(HTMLParser):
            def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
                classes = dict(attrs).get("class") or ""
                # Permalinks, line numbers, footnote numbers and their back-links.
                hidden = ("headerlink", "linenos", "linenodiv", "footnote-ref", "footnote-backref")
                if hiding or tag in cls.HIDDEN or any(c in classes for c in hidden):
                    hiding.append(tag)
                elif tag in cls.BLOCKS:
                    parts.append("\n\n")

            def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
                if not hiding and tag in cls.BLOCKS:
                    parts.append("\n\n")

            def handle_endtag(self, tag: str) -> None:
                if hiding:
                    if tag in hiding:  # closes the innermost of its kind
                        del hiding[len(hiding) - 1 - hiding[::-1].index(tag) :]
                elif tag in cls.BLOCKS:
                    parts.append("\n\n")

            def handle_data(self, data: str) -> None:
                if not hiding:
                    parts.append(data.replace("¶", ""))

        parser = Parser(convert_charrefs=True)
        parser.feed(html)
        return "".join(parts)


def sphinx_reference(folder: Path, python: Path, myst: bool = False) -> str:
    """Sphinx's text rendering (`sphinx-build -b text`) of a reStructuredText set, or of a
    MyST set with myst-parser and sphinx-design (notebooks left to the notebook set)."""
    import shutil
    import tempfile

    suffix = ".md" if myst else ".rst"
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "src"
        shutil.copytree(folder, source)
        root = sorted(p.relative_to(source).with_suffix("") for p in source.rglob("*" + suffix))[0]
        if myst:
            conf = (
                'extensions = ["myst_parser", "sphinx_design"]\n'
                'source_suffix = {".md": "markdown"}\n'
                'myst_enable_extensions = ["colon_fence", "dollarmath", "amsmath", "deflist",'
                ' "fieldlist", "substitution", "tasklist", "attrs_inline", "attrs_block"]\n'
                'exclude_patterns = ["**.ipynb"]\n'
            )
        else:
            conf = 'extensions = ["sphinx_tabs.tabs"]\n'
        (source / "conf.py").write_text(f'project = "x"\n{conf}root_doc = "{root.as_posix()}"\n')
        out = Path(tmp) / "out"
        # Warnings (unknown directives of another MyST tool) are the renderer's own.
        _run([str(python), "-m", "sphinx", "-q", "-b", "text", str(source), str(out)])
        return "\n\n".join(p.read_text(encoding="utf-8") for p in sorted(out.rglob("*.txt")))


MKDOCS_YML = """\
site_name: x
docs_dir: docs
theme: {name: material}
markdown_extensions:
  - toc: {permalink: true}
  - admonition
  - abbr
  - attr_list
  - def_list
  - footnotes
  - md_in_html
  - tables
  - pymdownx.details
  - pymdownx.superfences
  - pymdownx.highlight
  - pymdownx.inlinehilite
  - pymdownx.keys
  - pymdownx.mark
  - pymdownx.caret
  - pymdownx.tilde
  - pymdownx.tasklist
  - pymdownx.tabbed: {alternate_style: true}
  - pymdownx.blocks.admonition:
      types: [note, attention, caution, danger, error, tip, hint, warning, info, check]
  - pymdownx.blocks.details
  - pymdownx.blocks.tab: {alternate_style: true}
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
      emoji_generator: !!python/name:material.extensions.emoji.to_svg
"""


def mkdocs_reference(folder: Path, python: Path) -> str:
    """`mkdocs build` with the Material theme and the extensions both MkDocs sets use: the
    text of each page's article."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(folder, Path(tmp) / "docs")
        (Path(tmp) / "mkdocs.yml").write_text(MKDOCS_YML)
        _run([str(python), "-m", "mkdocs", "build", "-q", "-d", "site"], cwd=Path(tmp))
        pages = []
        for md in sorted(folder.rglob("*.md")):
            page = Path(tmp) / "site" / md.relative_to(folder).with_suffix("") / "index.html"
            html = page.read_text(encoding="utf-8")
            pages.append(_Text.of(html, r'<article class="md-content__inner', r"</article>"))
        return "\n\n".join(pages)


def notebook_reference(folder: Path, python: Path) -> str:
    """nbconvert's HTML of each notebook, outputs and prompts excluded: its main's text."""
    import tempfile

    pages = []
    with tempfile.TemporaryDirectory() as tmp:
        for notebook in sorted(folder.rglob("*.ipynb")):
            _run(
                [
                    str(python), "-m", "nbconvert", "--to", "html", "--no-prompt",
                    "--TemplateExporter.exclude_output=True", "--output-dir", tmp,
                    "--output", "page", str(notebook),
                ]
            )  # fmt: skip
            html = (Path(tmp) / "page.html").read_text(encoding="utf-8")
            pages.append(_Text.of(html, r"<main", r"</main>"))
    return "\n\n".join(pages)


_PDF_PAGES = """
import sys
from pdfminer.high_level import extract_text
from pdfminer.pdfpage import PDFPage
with open(sys.argv[1], "rb") as f:
    count = sum(1 for _ in PDFPage.get_pages(f))
for n in range(count):
    print(extract_text(sys.argv[1], page_numbers=[n]), end="\\f")
"""


def pdf_reference(folder: Path, python: Path) -> str:
    """pdfminer.six's text of each page (another extractor than the reader's pypdf), the
    running headers and footers out (a line, digits aside, on more than half the pages)."""
    from collections import Counter

    pages: list[list[str]] = []
    for pdf in sorted(folder.rglob("*.pdf")):
        text = _run([str(python), "-c", _PDF_PAGES, str(pdf)])
        pages.extend(page.splitlines() for page in text.split("\f") if page.strip())
    key = re.compile(r"\d+")
    seen = Counter(k for page in pages for k in {key.sub("#", ln.strip()) for ln in page})
    running = {k for k, n in seen.items() if k and n > len(pages) / 2} if len(pages) > 2 else set()
    return "\n\n".join(
        "\n".join(ln for ln in page if key.sub("#", ln.strip()) not in running) for page in pages
    )


_MDX_SCRIPT = r"""
import {readFileSync} from 'node:fs'
import {compile, run} from '@mdx-js/mdx'
import * as runtime from 'react/jsx-runtime'
import {createElement} from 'react'
import {renderToStaticMarkup} from 'react-dom/server'
import remarkGfm from 'remark-gfm'
import remarkDirective from 'remark-directive'

// Docusaurus's own set-up, short of its theme: front matter out, imports and exports out
// (their components are given as plain containers of their children), GFM, directives.
for (const path of process.argv.slice(2)) {
  let text = readFileSync(path, 'utf8').replace(/^---\n[\s\S]*?\n---\n/, '')
  let fence = null
  text = text.split('\n').filter(line => {
    const open = line.match(/^\s*(`{3,}|~{3,})/)
    if (open) fence = fence ? (line.trim().startsWith(fence) ? null : fence) : open[1]
    return fence || !/^(import|export) /.test(line)
  }).join('\n')
  const names = new Set([...text.matchAll(/<([A-Z][\w.]*)/g)].map(m => m[1].split('.')[0]))
  const components = {}
  for (const name of names) components[name] = props => createElement('div', null, props.children)
  const code = String(await compile({value: text, path}, {
    outputFormat: 'function-body', remarkPlugins: [remarkGfm, remarkDirective],
  }))
  const {default: Content} = await run(code, {...runtime, baseUrl: import.meta.url})
  process.stdout.write(renderToStaticMarkup(createElement(Content, {components})) + '\f')
}
"""


def mdx_reference(folder: Path) -> str:
    """@mdx-js/mdx's rendering (compile, run, React's static markup) of each MDX and
    Markdown page; partials (`_*.mdx`) are rendered where imported in Docusaurus, here
    on their own."""
    import shutil

    npm = shutil.which("npm")
    node = shutil.which("node")
    if not npm or not node:
        raise ToolMissing("MDX: node and npm are not on PATH")
    where = REFERENCES / "mdx"
    stamp = where / "bench-packages.txt"
    if not stamp.exists() or stamp.read_text() != " ".join(MDX_PACKAGES):
        where.mkdir(parents=True, exist_ok=True)
        (where / "package.json").write_text('{"name": "mdx-reference", "private": true}\n')
        _run([npm, "install", "--no-audit", "--no-fund", *MDX_PACKAGES], cwd=where)
        stamp.write_text(" ".join(MDX_PACKAGES))
    (where / "render.mjs").write_text(_MDX_SCRIPT)
    files = sorted(str(p) for p in folder.rglob("*") if p.suffix in {".md", ".mdx"})
    html = _run([node, str(where / "render.mjs"), *files], cwd=where)
    return "\n\n".join(_Text.of(page) for page in html.split("\f"))


def html_reference(folder: Path) -> str:
    """The main content of each page of a Sphinx HTML site (its `role="main"` body), as a
    reader sees it in the browser."""
    pages = []
    for page in sorted(folder.rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        pages.append(
            _Text.of(html, r'<div class="body" role="main"', r'<div class="sphinxsidebar"')
        )
    return "\n\n".join(pages)


PYTHON_RENDERERS = {  # a set's kind (its folder's first word): its renderer, shown as
    "sphinx": (sphinx_reference, "sphinx-build -b text (sphinx-tabs)"),
    "myst": (lambda f, p: sphinx_reference(f, p, myst=True), "sphinx-build -b text, myst-parser"),
    "mkdocs": (mkdocs_reference, "mkdocs build, mkdocs-material"),
    "notebook": (notebook_reference, "jupyter nbconvert --to html, no outputs"),
    "pdf": (pdf_reference, "pdfminer.six page text, running headers out"),
}


def reference(folder: Path) -> tuple[str, str]:
    """The set's reference rendering, and the tool that made it; ToolMissing says why
    there is none."""
    kind = folder.name.split("-", 1)[0]
    if kind == "html":
        return html_reference(folder), "the page's main content (role=main)"
    if kind == "docusaurus":
        return mdx_reference(folder), "@mdx-js/mdx compile+run, react-dom static markup"
    if kind not in PYTHON_RENDERERS:
        raise ToolMissing(f"no reference renderer for {folder.name}")
    render, shown = PYTHON_RENDERERS[kind]
    return render(folder, reference_python()), shown


def recall(folder: Path, rendered: str, show: bool = False) -> tuple[float, int, int]:
    """The share of the rendering's sentences (3 words or more) found, word for word, in
    the chunks the set is read into; the sentences counted, and those left out of the
    count because the renderer itself left markup in them (a syntax it does not know)."""
    kb = load_knowledge_base([folder])  # a heading is a chunk's title, not its text
    chunks = _words(" ".join(f"{c.title.replace(' > ', ' / ')} {c.text}" for c in kb.chunks))
    sentences: list[str] = []
    unrendered = 0
    for part in _SENTENCE.split(rendered):
        if len((words := _words(part)).split()) < 3:
            continue
        if MARKUP_RESIDUE.search(part):
            unrendered += 1
            continue
        sentences.append(words)
    missing = [s for s in sentences if s not in chunks]
    if show:
        for sentence in missing:
            print(f"  missing ({folder.name}): {sentence[:110]}")
    share = 1 - len(missing) / len(sentences) if sentences else 1.0
    return share, len(sentences), unrendered


def pdf_pages(path: Path) -> list[str]:
    from pypdf import PdfReader

    return [" ".join((page.extract_text() or "").split()) for page in PdfReader(path).pages]


def measure(folder: Path, show: bool = False) -> dict[str, object]:
    kb = load_knowledge_base([folder])
    sources: dict[str, list[str]] = {}
    left = late = 0
    for chunk in kb.chunks:
        path = Path(chunk.source)
        if chunk.source not in sources:
            # A PDF chunk's line is its page: its "lines" are the pages' text.
            pdf = path.suffix == ".pdf"
            sources[chunk.source] = (
                pdf_pages(path) if pdf else path.read_text(encoding="utf-8").splitlines()
            )
        lines = sources[chunk.source]
        found = residue(chunk, "" if path.suffix == ".pdf" else "\n".join(lines))
        left += len(found)
        if found and show:
            print(f"  residue {chunk.source}:{chunk.line}: {found[:3]}")
        if not provenance_right(chunk, lines, pdf=path.suffix == ".pdf"):
            late += 1
            if show:
                print(f"  late {chunk.source}:{chunk.line}: {chunk.text[:60]!r}")
    total = len(kb.chunks)
    return {
        "set": folder.name,
        "files": kb.files,
        "chunks": total,
        "residue": left,
        "provenance": (total - late) / total if total else 1.0,
        "warnings": kb.warnings,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--show", action="store_true", help="print each residue, late chunk")
    parser.add_argument(
        "--recall",
        action="store_true",
        help=f"measure recall against each set's own renderer (installed once under {REFERENCES})",
    )
    args = parser.parse_args()
    recall_head = " recall | reference |" if args.recall else ""
    print(f"| set | files | chunks | markup residue | provenance right |{recall_head}")
    print("|---|---:|---:|---:|---:|" + ("---:|---|" if args.recall else ""))
    rows = []
    for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        row = measure(folder, args.show)
        rows.append(row)
        cells = (
            f"| {row['set']} | {row['files']} | {row['chunks']} | {row['residue']} | "
            f"{float(row['provenance']):.1%} |"  # type: ignore[arg-type]
        )
        if args.recall:
            try:
                rendered, tool = reference(folder)
                share, counted, unrendered = recall(folder, rendered, args.show)
                left_out = (
                    f", {unrendered} left out: markup it did not render" if unrendered else ""
                )
                cells += f" {share:.1%} | {tool} ({counted} sentences{left_out}) |"
            except ToolMissing as exc:
                cells += f" not measured | {exc} |"
        print(cells, flush=True)
    for row in rows:
        for warning in row["warnings"]:  # type: ignore[attr-defined]
            print(f"warning ({row['set']}): {warning}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
