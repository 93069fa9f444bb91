"""`checkspec init [FOLDER]`: a new workspace, ready for `validate`, `run` and the editor.

It writes
- `checkspec.yaml`: the model (judges, generation) and the target (the agent under test),
  commented, with the `$schema` lines editors read;
- `suites/example.scenario.yaml`: one scenario against that target;
- `.checkspec/`: checkspec's local state, ignored by git (`.checkspec/.gitignore`), holding
  the JSON Schemas of this checkspec version (`.checkspec/schemas/`) the `$schema` lines
  point at (`checkspec schema --out .checkspec/schemas` refreshes them after an upgrade).

It never overwrites: when any of the files exists (with other content), nothing is
written and it exits 2 naming it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..core.state_folder import GITIGNORE_TEXT, STATE_FOLDER

EXIT_OK, EXIT_INVALID = 0, 2
SCHEMAS = f"{STATE_FOLDER}/schemas"
EXAMPLE = "suites/example.scenario.yaml"
DEFAULT_MODEL = "openai/gpt-4o-mini"
DEFAULT_TARGET = "python:agent:answer"

CONFIG_TEXT = """\
# checkspec workspace settings, shared by the CLI, the language server and the pytest plugin.
# yaml-language-server: $schema={schemas}/config.schema.json
$schema: {schemas}/config.schema.json

# The model of the judge checks and of `checkspec generate` (any litellm model name; or set
# CHECKSPEC_MODEL). `api_base:` points it at another endpoint. The key never goes in this
# file: set CHECKSPEC_API_KEY (or the provider's own variable, as OPENAI_API_KEY) in the
# environment that runs checkspec.
model: {model}

# The agent under test, for every file that names none:
#   python:MODULE:FUNCTION  a function answering a question (str -> str) or a chat
#                           ({{"messages": [...]}} -> {{"response": {{"content": ...}}}})
#   http(s)://HOST/PATH     an endpoint receiving the inputs as JSON
target: {target}
"""

EXAMPLE_TEXT = """\
# One scenario: what is sent to the target, and the checks its answer must pass.
# `checkspec run suites` runs it; `checkspec generate` writes more like it.
# yaml-language-server: $schema=../{schemas}/scenario.schema.json
name: the agent answers a greeting
tags: [example]
steps:
  - interacts:
      - inputs: Hello! What can you help me with?
    checks:
      # A check without a model: the answer is not empty.
      - kind: not
        check: {{kind: equals, expected_value: ""}}
      # A judge check (uses the model above):
      # - kind: conformity
      #   rule: The answer is polite and says what the agent can do.
"""


def add_parser(commands: Any) -> None:
    init = commands.add_parser(
        "init", help="start a workspace: checkspec.yaml, an example scenario, .checkspec/"
    )
    init.add_argument("folder", nargs="?", default=".", metavar="FOLDER", help="default: here")
    init.add_argument("--model", default=DEFAULT_MODEL, help=f"default: {DEFAULT_MODEL}")
    init.add_argument("--target", default=DEFAULT_TARGET, help=f"default: {DEFAULT_TARGET}")


def planned(folder: Path, model: str, target: str) -> dict[Path, str]:
    """Every file init writes, and its text (the values as YAML scalars: quoted when
    plain text would read back as something else)."""
    from ..schema_gen import generate_all

    config = CONFIG_TEXT.format(schemas=SCHEMAS, model=_scalar(model), target=_scalar(target))
    files = {
        folder / "checkspec.yaml": config,
        folder / EXAMPLE: EXAMPLE_TEXT.format(schemas=SCHEMAS),
        folder / STATE_FOLDER / ".gitignore": GITIGNORE_TEXT,
    }
    for name, text in generate_all().items():
        files[folder / SCHEMAS / name] = text
    return files


def value_problem(option: str, value: str) -> str | None:
    """Why a value given on the command line cannot be a setting: a line break or a
    control character (it would end the YAML line and start keys of its own, such as
    `api_base:`), or for --target a reference that is not one."""
    import unicodedata

    for character in value:
        if unicodedata.category(character) in ("Cc", "Cf", "Zl", "Zp"):
            return (
                f"{option}: a line break or control character (U+{ord(character):04X}) "
                "cannot be in a setting"
            )
    if not value.strip():
        return f"{option}: empty"
    if option == "--target":
        from ..targets import describe_target_problem

        return describe_target_problem(value)
    return None


def _scalar(value: str) -> str:
    """`value` as one YAML scalar that reads back as exactly that string: plain when it
    can be, else quoted (`a: b`, `#x`, `yes`, `[x]`)."""
    import yaml

    text = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=1 << 30)
    text = text.removesuffix("\n...\n").removesuffix("\n")
    if "\n" in text or yaml.safe_load(text) != value:
        text = json.dumps(value)  # a JSON string is a YAML double-quoted scalar
    return text


def _same(path: Path, text: str) -> bool:
    try:
        return not path.is_symlink() and path.read_text(encoding="utf-8") == text
    except (OSError, UnicodeDecodeError):
        return False


def run(args: argparse.Namespace) -> int:
    from ..core.write import os_problem, write_target

    folder = Path(args.folder)
    if folder.exists() and not folder.is_dir():
        print(f"error: {folder} is not a folder", file=sys.stderr)
        return EXIT_INVALID
    for option, value in (("--model", args.model), ("--target", args.target)):
        if problem := value_problem(option, value):
            print(f"error: {problem}", file=sys.stderr)
            return EXIT_INVALID
    files = planned(folder, args.model, args.target)
    # Every file under the one rule of output paths (core/write.py): a linked
    # `.checkspec/` or `suites/` leading out of the new workspace writes nothing.
    for path in files:
        try:
            write_target(path, folder)
        except OSError as exc:
            print(f"error: {os_problem(path, exc)}; init wrote nothing", file=sys.stderr)
            return EXIT_INVALID
    # A state file already holding what init would write (the .gitignore an earlier run
    # wrote) is left as it is; any other existing file stops init.
    state = folder / STATE_FOLDER
    files = {
        path: text
        for path, text in files.items()
        if not (path.is_relative_to(state) and _same(path, text))
    }
    existing = [path for path in files if path.exists() or path.is_symlink()]
    if existing:
        for path in existing:
            print(f"error: {path} exists; init writes nothing over it", file=sys.stderr)
        return EXIT_INVALID
    made: list[Path] = []
    try:
        _write_all(files, made)
    except OSError as exc:
        failed = Path(exc.filename) if isinstance(exc.filename, str) else folder
        for path in reversed(made):  # what this init made, and only that, taken back
            with contextlib.suppress(OSError):
                path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
        print(f"error: {os_problem(failed, exc)}; init wrote nothing", file=sys.stderr)
        return EXIT_INVALID
    print(f"wrote {folder / 'checkspec.yaml'}, {folder / EXAMPLE} and {folder / STATE_FOLDER}/")
    print("next: edit model and target in checkspec.yaml, then `checkspec run suites`")
    return EXIT_OK


# New files only, never through a link (a link made since the check above fails).
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


def _write_all(files: dict[Path, str], made: list[Path]) -> None:
    """Write each file, recording in `made` each folder and file made (in order)."""
    for path, text in files.items():
        missing = [p for p in (path.parent, *path.parent.parents) if not p.exists()]
        for parent in reversed(missing):
            parent.mkdir()
            made.append(parent)
        descriptor = os.open(path, _CREATE, 0o666)
        made.append(path)
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            out.write(text)
