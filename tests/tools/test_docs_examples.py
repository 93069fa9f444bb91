"""The docs' examples run, so the docs cannot drift from the product (issue 52 item 3).

- Every fenced spec file of the docs (README.md and docs/**/*.md): a ```yaml block whose
  first line names a spec file (`# refund.scenario.yaml`, `# checkspec.yaml`: a name the
  catalog gives a kind) is written under that name into a copy of the example workspace
  and analysed as `checkspec validate` analyses it: no error.
- Every `checkspec ...` line of a ```sh block runs, in order with the block's other lines
  (`cd` included), as a subprocess in a copy of the example workspace whose history
  already holds two runs, with a model: the local OpenAI-compatible stub
  (tests/support/openai_stub.py) answering judges, generation and embeddings. Each must
  end with an exit code the docs allow for it and no traceback. `SKIPPED` lists the few
  that cannot run here, each with why; synopsis lines (`checkspec list scenarios
  [SELECTORS] [--query TEXT]`: usage, with placeholders) are not commands.
- `make docs`' build: the reference pages generated and `mkdocs build --strict`.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.cli import run_main
from tests.support.openai_stub import GenerationAnswers, OpenAIStub, running_stub
from tests.support.paths import EXAMPLES, REPO

DOC_FILES = sorted(
    [REPO / "README.md"]
    + [
        p
        for p in (REPO / "docs").rglob("*.md")
        if "reference" not in p.relative_to(REPO / "docs").parts
    ]
)
CHECKSPEC = Path(sys.executable).with_name("checkspec")

# Commands of the docs that are not run here, each with why (matched on the command's words).
SKIPPED: dict[str, str] = {
    "checkspec view": "serves the history until Ctrl-C (tests/engine/html/test_html_viewer.py drives it)",
    "checkspec traces collect": "receives spans until Ctrl-C (tests/cli/test_traces.py drives it)",
    "--from-run": "needs a kept run of a live target's judged answer (tests/cli/test_calibrate_cli.py)",
    "--prompt": "needs a reworded judge prompt file of the reader's own",
}

# Exit codes a command's docs allow: 1 means "a scenario failed" (the example workspace
# has one failing on purpose), "something newly fails", "a judge is below the bar", or
# "listed, not deleted without --yes"; never 2 (invalid input or usage: a renamed option,
# a file the docs name that is not there).
MAY_FAIL = {"run", "merge", "compare", "calibrate", "delete"}


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # of the block's first content line
    lang: str
    lines: tuple[str, ...]

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"


def _blocks(path: Path) -> Iterator[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    opened: tuple[int, str, str] | None = None  # (line, indent, lang)
    body: list[str] = []
    for number, line in enumerate(lines, 1):
        fence = re.match(r"^(\s*)```(\w*)", line)
        if opened is None and fence:
            opened, body = (number + 1, fence.group(1), fence.group(2)), []
        elif opened is not None and line.strip() == "```":
            yield Block(path, opened[0], opened[2], tuple(body))
            opened = None
        elif opened is not None:
            body.append(line.removeprefix(opened[1]))


def _all_blocks() -> list[Block]:
    return [block for path in DOC_FILES for block in _blocks(path)]


def spec_blocks() -> list[Block]:
    from checkspec.engine.catalog import kind_from_name

    found = []
    for block in _all_blocks():
        named = re.match(r"#\s*(\S+)\s*$", block.lines[0]) if block.lines else None
        if block.lang in ("yaml", "yml") and named and kind_from_name(named.group(1)):
            found.append(block)
    return found


def command_blocks() -> list[Block]:
    return [
        block
        for block in _all_blocks()
        if block.lang in ("sh", "bash", "shell") and any(_commands(block))
    ]


def _logical_lines(block: Block) -> Iterator[str]:
    """The block's lines with `\\` continuations joined."""
    pending = ""
    for line in block.lines:
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        yield pending + line
        pending = ""


def _commands(block: Block) -> Iterator[list[str]]:
    """The block's shell commands as words (comments dropped): `checkspec ...` and `cd`."""
    for line in _logical_lines(block):
        stripped = line.strip()
        if not (stripped.startswith("checkspec ") or stripped.startswith("cd ")):
            continue
        if re.search(r"\[(--|[A-Z])", stripped):
            continue  # a synopsis (`[--query TEXT]`, `[PATHS]`): usage, not a command
        yield shlex.split(_without_comment(stripped))


def _without_comment(line: str) -> str:
    """The line up to its shell comment: a `#` starting a word, outside quotes (the `#`
    of `faq.dataset.jsonl::#3` is part of its word)."""
    quote = ""
    for at, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (at == 0 or line[at - 1].isspace()):
            return line[:at]
    return line


def _redirected(words: list[str]) -> tuple[list[str], str | None]:
    """The command's words without a `> FILE` redirection, and FILE."""
    if ">" not in words:
        return words, None
    at = words.index(">")
    return words[:at] + words[at + 2 :], words[at + 1]


def _skip_reason(words: list[str]) -> str | None:
    line = " ".join(words)
    return next((why for key, why in SKIPPED.items() if key in line), None)


# -- spec files -----------------------------------------------------------------------


# The folders the docs name, in the copy of the example workspace: `examples` (the docs'
# `checkspec run examples`, from the repository's root) and `suites` (a workspace's
# scenarios) are the workspace itself, `docs` (a knowledge base) is its knowledge base.
ALIASES = {"examples": ".", "suites": ".", "docs": "knowledge-base"}


def _workspace(tmp_path: Path) -> Path:
    """A copy of the example workspace, with the folders the docs name (ALIASES)."""
    work = tmp_path / "work"
    shutil.copytree(EXAMPLES, work, ignore=shutil.ignore_patterns(".checkspec", "__pycache__"))
    for alias, folder in ALIASES.items():
        (work / alias).symlink_to(folder, target_is_directory=True)
    # The spans the docs' `checkspec traces import` reads: what a real exporter wrote.
    for spans in ("spans.jsonl", "more-spans.json"):
        shutil.copy(REPO / "tests" / "data" / "traces" / spans, work / spans)
    return work


def _write_spec(block: Block, work: Path) -> str:
    """The spec block written into the workspace under the name its first line gives."""
    name = block.lines[0].lstrip("#").strip()
    path = work / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(block.lines) + "\n", encoding="utf-8")
    return name


@pytest.mark.parametrize("block", spec_blocks(), ids=lambda b: b.where)
def test_a_spec_file_of_the_docs_validates(block: Block, tmp_path: Path) -> None:
    from checkspec.engine.runs.project import Project
    from checkspec.engine.spec.problems import Severity

    work = _workspace(tmp_path)
    name = _write_spec(block, work)
    document = Project.open([work / name]).load_file(work / name, name, keep=False)
    errors = [p.format(name) for p in document.every_problem() if p.severity is Severity.ERROR]
    assert errors == [], f"{block.where}: the example does not validate"


def test_the_docs_have_spec_examples_and_commands() -> None:
    """The collection itself works: a docs change that loses every example fails here."""
    assert len(spec_blocks()) >= 5
    assert sum(1 for b in command_blocks() for _ in _commands(b)) >= 30


# -- commands -------------------------------------------------------------------------


class StubModel:
    """The stub's answers: `checkspec generate`'s prompts as a model would answer them,
    any other chat request (a judge) a passing verdict, embeddings a fixed vector."""

    def __init__(self) -> None:
        self.generation = GenerationAnswers()

    def __call__(self, body: dict) -> str | int:
        answer = self.generation(body)
        if answer == '{"error": "unknown prompt"}':
            return OpenAIStub.verdict(True, "stub judge")
        return answer


@pytest.fixture(scope="module")
def stub() -> Iterator[OpenAIStub]:
    with running_stub() as server:
        server.chat = StubModel()
        server.embeddings = lambda text: [1.0, 0.5, 0.25]
        yield server


def _stub_settings(stub: OpenAIStub) -> dict[str, str]:
    return {
        "CHECKSPEC_MODEL": "openai/stub-model",
        "CHECKSPEC_EMBEDDING_MODEL": "openai/stub-embedding",
        "CHECKSPEC_API_BASE": stub.base_url,
        "CHECKSPEC_API_KEY": "sk-stub",
    }


def _env(stub: OpenAIStub) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHECKSPEC_")}
    env.update(_stub_settings(stub))
    return env


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory, stub: OpenAIStub) -> Path:
    """The example workspace with two runs in its history (for history, compare, report,
    --last-failed, label --from-run) and their JSON reports."""
    work = _workspace(tmp_path_factory.mktemp("seeded"))
    for report in ("main-report.json", "report.json"):
        done = subprocess.run(
            [str(CHECKSPEC), "run", ".", "--format", "json", "-o", report],
            cwd=work,
            env=_env(stub),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode in (0, 1), done.stderr
    return work


@pytest.mark.parametrize("block", command_blocks(), ids=lambda b: b.where)
def test_the_commands_of_the_docs_run(
    block: Block, seeded: Path, stub: OpenAIStub, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    shutil.copytree(seeded, work, symlinks=True)
    # The spec files the page shows (a labelled suite for `calibrate`...) are files of the
    # workspace its commands run in.
    # (Not a checkspec.yaml: the page's settings examples would drop the workspace's own.)
    for spec in spec_blocks():
        if spec.path == block.path and spec.line < block.line and "checkspec." not in spec.lines[0]:
            _write_spec(spec, work)
    cwd = work
    ran = 0
    for words in _commands(block):
        if words[0] == "cd":
            cwd = (cwd / words[1]).resolve()
            assert cwd.is_relative_to(work), f"{block.where}: cd out of the workspace"
            continue
        if _skip_reason(words):
            continue
        words, into = _redirected(words)
        # In this process (tests/support/cli.py): what a command prints and exits with
        # is the same; a process of its own would cost each of the ~100 commands a start.
        done = run_main(cwd, *words[1:], env=_stub_settings(stub), unset=("CHECKSPEC_",))
        allowed = (0, 1) if words[1] in MAY_FAIL else (0,)
        shown = shlex.join(words)
        assert "Traceback" not in done.stderr, f"{block.where}: {shown}\n{done.stderr}"
        assert done.returncode in allowed, (
            f"{block.where}: `{shown}` exited {done.returncode}\n{done.stdout[-2000:]}\n"
            f"{done.stderr[-3000:]}"
        )
        if into is not None:
            (cwd / into).write_text(done.stdout, encoding="utf-8")
        ran += 1
    if ran == 0:
        pytest.skip(f"{block.where}: every command is in SKIPPED")


def test_the_skip_list_is_used() -> None:
    """Each entry of SKIPPED skips a command the docs hold (a stale entry fails here)."""
    lines = [" ".join(words) for b in command_blocks() for words in _commands(b)]
    assert [key for key in SKIPPED if not any(key in line for line in lines)] == []


# -- the site ---------------------------------------------------------------------------


def test_the_site_builds_strict(tmp_path: Path) -> None:
    """`make docs`: the reference pages generated, then `mkdocs build --strict` (a broken
    link, a page missing from the nav or any warning fails)."""
    reference = REPO / "docs" / "reference"
    generated = subprocess.run(
        [sys.executable, str(REPO / "tools" / "docs_reference.py"), str(reference)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert generated.returncode == 0, generated.stderr
    built = subprocess.run(
        [
            str(Path(sys.executable).with_name("mkdocs")),
            "build",
            "--strict",
            "--site-dir",
            str(tmp_path / "site"),
        ],
        cwd=REPO,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    checks = (tmp_path / "site" / "reference" / "checks" / "index.html").read_text()
    assert 'id="llm-judge"' in checks and "string_matching" in checks


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    """The site's configuration is strict: the same docs with one link to a page that does
    not exist do not build."""
    docs = tmp_path / "docs"
    shutil.copytree(REPO / "docs", docs)
    subprocess.run(
        [sys.executable, str(REPO / "tools" / "docs_reference.py"), str(docs / "reference")],
        check=True,
        capture_output=True,
        timeout=120,
    )
    with (docs / "getting-started.md").open("a", encoding="utf-8") as page:
        page.write("\nSee [the missing page](no-such-page.md).\n")
    config = tmp_path / "mkdocs.yml"
    # The repository's configuration, on this copy of the docs (ARCHITECTURE.md included
    # from the repository's root, as the real build does).
    text = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    text = text.replace("docs_dir: docs", f"docs_dir: {docs}")
    text = text.replace("base_path: [!relative $config_dir]", f"base_path: [{REPO}]")
    config.write_text(text, encoding="utf-8")
    built = subprocess.run(
        [str(Path(sys.executable).with_name("mkdocs")), "build", "-f", str(config)],
        cwd=tmp_path,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode != 0
    assert "no-such-page.md" in built.stderr
