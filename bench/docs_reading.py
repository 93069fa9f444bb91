"""How cleanly `checkspec generate --from-docs` reads real documentation (issue 49).

For each set of tests/data/real_docs/ (Sphinx, MkDocs Material, Docusaurus), reads it as
`generate` does (no model) and reports:

- residue: markup left in chunk text outside code blocks (roles, directives, admonition
  and tab markers, HTML comments, front matter, JSX tags; `MARKUP_RESIDUE`), goal 0;
- provenance: the share of chunks whose first words are on the chunk's line or within the
  3 lines after it, goal >= 99%.

- recall (Sphinx sets, with `--sphinx-build PATH`): the share of the sentences of
  Sphinx's own text rendering (`sphinx-build -b text`, conf.py with `sphinx_tabs` when it
  is installed beside Sphinx) found in some chunk, compared word by word; goal >= 98%.

    .venv/bin/python bench/docs_reading.py            # the table of bench/README.md
    .venv/bin/python bench/docs_reading.py --show     # and each residue / late chunk
    .venv/bin/python bench/docs_reading.py --sphinx-build /tmp/sphinx/bin/sphinx-build
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from checkspec.engine.generate.knowledge import Chunk, load_knowledge_base

ROOT = Path(__file__).resolve().parents[1]

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
    r"|\{\s*[#.][\w-]+[^}]*\}"  # attribute lists, { .annotate }
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


def provenance_right(chunk: Chunk, lines: list[str]) -> bool:
    """Whether one of the chunk's first three words is on its line or within the 3 lines
    after it (three: a word Sphinx adds, "Added in version 2.0", is in no source line)."""
    text = chunk.text.lstrip("`").removeprefix("\n").removeprefix("- ")
    first = _WORD.findall(text[:200])[:3]
    if not first:
        return True
    window = lines[max(0, chunk.line - 1) : chunk.line + 3]
    return any(word in line for word in first for line in window)


_SENTENCE = re.compile(r"(?<=[.!?:])\s+|\n\s*\n")
_WORDS = re.compile(r"\w+")


def _words(text: str) -> str:
    return " ".join(_WORDS.findall(text.lower()))


def sphinx_recall(folder: Path, sphinx_build: str, show: bool = False) -> float:
    """The share of the sentences (3 words or more) of Sphinx's text rendering of the set
    found, word for word, in the chunks the set is read into."""
    import shutil
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "src"
        shutil.copytree(folder, source)
        root = sorted(p.relative_to(source).with_suffix("") for p in source.rglob("*.rst"))[0]
        probe = subprocess.run(
            [str(Path(sphinx_build).with_name("python")), "-c", "import sphinx_tabs"],
            capture_output=True,
        )
        extensions = '["sphinx_tabs.tabs"]' if probe.returncode == 0 else "[]"
        (source / "conf.py").write_text(
            f'project = "x"\nextensions = {extensions}\nroot_doc = "{root.as_posix()}"\n'
        )
        out = Path(tmp) / "out"
        subprocess.run(
            [sphinx_build, "-q", "-b", "text", str(source), str(out)],
            capture_output=True,
            check=True,
        )
        reference = "\n\n".join(p.read_text(encoding="utf-8") for p in sorted(out.rglob("*.txt")))
    kb = load_knowledge_base([folder])  # a heading is a chunk's title, not its text
    chunks = _words(" ".join(f"{c.title.replace(' > ', ' / ')} {c.text}" for c in kb.chunks))
    sentences = [
        words for part in _SENTENCE.split(reference) if len((words := _words(part)).split()) >= 3
    ]
    missing = [s for s in sentences if s not in chunks]
    if show:
        for sentence in missing:
            print(f"  missing ({folder.name}): {sentence[:100]}")
    return 1 - len(missing) / len(sentences) if sentences else 1.0


def measure(folder: Path, show: bool = False) -> dict[str, object]:
    kb = load_knowledge_base([folder])
    sources: dict[str, list[str]] = {}
    left = late = 0
    for chunk in kb.chunks:
        if chunk.source not in sources:
            sources[chunk.source] = Path(chunk.source).read_text(encoding="utf-8").splitlines()
        found = residue(chunk, "\n".join(sources[chunk.source]))
        left += len(found)
        if found and show:
            print(f"  residue {chunk.source}:{chunk.line}: {found[:3]}")
        if not provenance_right(chunk, sources[chunk.source]):
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
    parser.add_argument("--show", action="store_true", help="print each residue and late chunk")
    parser.add_argument(
        "--sphinx-build", metavar="PATH", help="measure the Sphinx sets' recall with this"
    )
    args = parser.parse_args()
    print("| set | files | chunks | markup residue | provenance right |")
    print("|---|---:|---:|---:|---:|")
    rows = []
    for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        row = measure(folder, args.show)
        rows.append(row)
        print(
            f"| {row['set']} | {row['files']} | {row['chunks']} | {row['residue']} | "
            f"{float(row['provenance']):.1%} |"  # type: ignore[arg-type]
        )
    if args.sphinx_build:
        for folder in sorted(p for p in CORPUS.iterdir() if p.name.startswith("sphinx-")):
            recall = sphinx_recall(folder, args.sphinx_build, args.show)
            print(f"recall of {folder.name} against sphinx-build -b text: {recall:.1%}")
    for row in rows:
        for warning in row["warnings"]:  # type: ignore[attr-defined]
            print(f"warning ({row['set']}): {warning}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
