"""tools/docs_reference.py: the reference pages hold everything their source defines.

Each test walks the source (the check registry, the CLI's parser, the catalog, the
history's schema) and finds each of its items in the page generated from it, so a page
that drops an item (a new check, command, option or setting) fails here.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from tests.support.paths import REPO, load_script

reference = load_script(REPO / "tools" / "docs_reference.py", "docs_reference")


def test_every_check_has_its_section_example_and_parameters() -> None:
    from checkspec.engine.catalog import fields_of
    from checkspec.engine.core.check import Check

    page = reference.checks_page()
    sections = re.split(r"^## ", page, flags=re.MULTILINE)[1:]
    by_kind = {section.split("`")[1]: section for section in sections}
    assert list(by_kind) == list(Check.registry())
    for kind, cls in Check.registry().items():
        section = by_kind[kind]
        assert f"```yaml\n- kind: {kind}" in section
        for name in fields_of(cls):
            if name not in ("kind", "type"):
                assert f"- `{name}` *" in section, (kind, name)


def _subcommands(
    parser: argparse.ArgumentParser, prefix: str
) -> dict[str, argparse.ArgumentParser]:
    found = {}
    for action in parser._actions:  # noqa: SLF001 (argparse lists subcommands nowhere else)
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            for name, sub in action.choices.items():
                found[f"{prefix} {name}"] = sub
                found.update(_subcommands(sub, f"{prefix} {name}"))
    return found


def test_every_command_and_option_is_on_the_cli_page() -> None:
    from checkspec.engine.cli.main import _parser

    page = reference.cli_page()
    commands = _subcommands(_parser(), "checkspec")
    assert "checkspec hub export" in commands  # nested subcommands are walked too
    for name, sub in commands.items():
        section = page.split(f"## `{name}` ", 1)[1].split("\n## ", 1)[0]
        for action in sub._actions:  # noqa: SLF001
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert f"`{option}`" in section, (name, option)


def test_every_setting_has_its_row_with_key_variable_flag_and_editor_name() -> None:
    from checkspec.engine.catalog import EDITOR_CHOICES, SETTINGS

    page = reference.settings_page()
    rows = {line.split("`")[1]: line for line in page.splitlines() if line.startswith("| `")}
    assert list(rows) == [s.name for s in SETTINGS]
    for setting in SETTINGS:
        row = rows[setting.name]
        for part in (setting.env, setting.flag):
            if part:
                assert f"`{part}`" in row
        if setting.editor:
            assert f"`checkspec.{setting.editor_key}`" in row
    for choice in EDITOR_CHOICES:
        assert f"`checkspec.{choice.key}`" in page


def test_the_formats_page_has_the_file_kinds_the_report_format_and_every_table() -> None:
    from checkspec.engine.catalog import FILE_KINDS
    from checkspec.engine.history import payload, store

    page = reference.formats_page()
    for spec in FILE_KINDS:
        assert all(f"`{pattern}`" in page for pattern in spec.patterns)
        assert f"`schemas/{spec.schema_file}`" in page
    assert payload.FORMAT in page
    tables = re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", store._SCHEMA)  # noqa: SLF001
    assert tables and all(f"CREATE TABLE IF NOT EXISTS {t}" in page for t in tables)


def test_the_pages_are_written_with_their_gitignore(tmp_path: Path) -> None:
    folder = tmp_path / "reference"
    assert reference.main([str(folder)]) == 0
    assert sorted(p.name for p in folder.iterdir()) == sorted([".gitignore", *reference.PAGES])
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
