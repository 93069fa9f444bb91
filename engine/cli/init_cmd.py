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
    """Every file init writes, and its text."""
    from ..schema_gen import generate_all

    files = {
        folder / "checkspec.yaml": CONFIG_TEXT.format(schemas=SCHEMAS, model=model, target=target),
        folder / EXAMPLE: EXAMPLE_TEXT.format(schemas=SCHEMAS),
        folder / STATE_FOLDER / ".gitignore": GITIGNORE_TEXT,
    }
    for name, text in generate_all().items():
        files[folder / SCHEMAS / name] = text
    return files


def _same(path: Path, text: str) -> bool:
    try:
        return not path.is_symlink() and path.read_text(encoding="utf-8") == text
    except (OSError, UnicodeDecodeError):
        return False


def run(args: argparse.Namespace) -> int:
    folder = Path(args.folder)
    if folder.exists() and not folder.is_dir():
        print(f"error: {folder} is not a folder", file=sys.stderr)
        return EXIT_INVALID
    files = planned(folder, args.model, args.target)
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
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x", encoding="utf-8") as out:  # never over a file made meanwhile
            out.write(text)
    print(f"wrote {folder / 'checkspec.yaml'}, {folder / EXAMPLE} and {folder / STATE_FOLDER}/")
    print("next: edit model and target in checkspec.yaml, then `checkspec run suites`")
    return EXIT_OK
