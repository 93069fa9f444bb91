"""The curation commands: `list scenarios|tags`, `tag`, `checks`, `status`, `move`,
`delete`, `comment`. Selecting is engine/curate/select.py, editing engine/curate/edits.py,
writing engine/curate/commit.py; this module parses arguments and prints."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..curate.commit import Change
    from ..curate.select import Selected

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2


def add_list_options(listing: argparse.ArgumentParser) -> None:
    listing.add_argument("paths", nargs="*", metavar="SELECTOR", help="files, folders, FILE::NAME")
    _filters(listing)
    listing.add_argument("--limit", type=_natural, metavar="N", help="show at most N")
    listing.add_argument("--offset", type=_natural, default=0, metavar="K", help="skip the first K")
    listing.add_argument("--format", choices=("text", "json"), default="text")


def _filters(command: argparse.ArgumentParser) -> None:
    command.add_argument("--query", "-q", metavar="TEXT", help="scenarios holding every word")
    command.add_argument(
        "--tag", action="append", default=[], metavar="T", help="only scenarios with this tag"
    )


def _natural(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value}")
    return value


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_INVALID


def list_scenarios(args: argparse.Namespace) -> int:
    from ..curate.files import CurateError
    from ..curate.select import select

    try:
        chosen = select(args.paths or ["."], query=args.query, tags=args.tag, quick=True)
    except CurateError as exc:
        return _fail(str(exc))
    rows = [(group.spec, item) for group in chosen for item in group.items]
    end = None if args.limit is None else args.offset + args.limit
    shown = rows[args.offset : end]
    if args.format == "json":
        out = [
            {
                "identity": spec.identity(item),
                "file": str(spec.path),
                "line": item.line + 1,
                "index": item.index,
                "name": item.name,
                "tags": item.tags,
                "status": item.status,
            }
            for spec, item in shown
        ]
        print(json.dumps({"total": len(rows), "scenarios": out}, ensure_ascii=False, indent=1))
        return EXIT_OK
    lines = []
    for spec, item in shown:
        tags = f"  [{', '.join(item.tags)}]" if item.tags else ""
        lines.append(f"{spec.path}:{item.line + 1}  {item.name}{tags}")
    if lines:
        print("\n".join(lines))
    if len(shown) < len(rows):
        print(f"({len(shown)} of {len(rows)} scenarios shown)", file=sys.stderr)
    return EXIT_OK


def list_tags(args: argparse.Namespace) -> int:
    from ..curate.files import CurateError
    from ..curate.select import select

    try:
        chosen = select(args.paths or ["."], query=args.query, tags=args.tag, quick=True)
    except CurateError as exc:
        return _fail(str(exc))
    counts: Counter[str] = Counter(
        tag for group in chosen for item in group.items for tag in dict.fromkeys(item.tags)
    )
    ordered = sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))
    end = None if args.limit is None else args.offset + args.limit
    ordered = ordered[args.offset : end]
    if args.format == "json":
        print(json.dumps([{"tag": t, "count": n} for t, n in ordered], ensure_ascii=False))
        return EXIT_OK
    width = max((len(t) for t, _ in ordered), default=0)
    for tag, count in ordered:
        print(f"{tag:<{width}}  {count}")
    return EXIT_OK


def dispatch_list(args: argparse.Namespace, names: Sequence[str]) -> int | None:
    """`list scenarios` / `list tags`; None for the other kinds of list."""
    if args.what == "scenarios":
        return list_scenarios(args)
    if args.what == "tags":
        return list_tags(args)
    return None


# -- the edits ------------------------------------------------------------------------


def add_edit_commands(commands: argparse._SubParsersAction) -> None:
    """The editing commands, on the parser of `checkspec`."""
    tag = commands.add_parser("tag", help="add or remove tags of scenarios")
    tag.add_argument("action", choices=("add", "remove"))
    tag.add_argument("words", nargs="+", metavar="TAG... SELECTOR")
    checks = commands.add_parser(
        "checks", help="disable checks of scenarios (enabled: false) or enable them again"
    )
    checks.add_argument("action", choices=("enable", "disable"))
    checks.add_argument("words", nargs="+", metavar="CHECK... SELECTOR")
    status = commands.add_parser("status", help="mark scenarios active or draft")
    status.add_argument("action", choices=("active", "draft"))
    status.add_argument("words", nargs="+", metavar="SELECTOR")
    move = commands.add_parser("move", help="move (or --copy) scenarios into another file")
    move.add_argument("words", nargs="+", metavar="SELECTOR")
    move.add_argument("--to", required=True, metavar="FILE", type=Path)
    move.add_argument(
        "--copy", action="store_true", help="copy: leave the scenarios where they are"
    )
    delete = commands.add_parser("delete", help="delete scenarios (lists them without --yes)")
    delete.add_argument("words", nargs="+", metavar="SELECTOR")
    delete.add_argument("--yes", action="store_true", help="really delete")
    comment = commands.add_parser("comment", help="add a comment to scenarios")
    comment.add_argument("words", nargs="+", metavar="SELECTOR... TEXT")
    comment.add_argument("--author", metavar="NAME")
    for command in (tag, checks, status, move, delete, comment):
        _filters(command)
        command.add_argument(
            "--dry-run",
            action="store_true",
            help="print the change as a unified diff, write nothing",
        )


EDIT_COMMANDS = ("tag", "checks", "status", "move", "delete", "comment")


def edit(args: argparse.Namespace) -> int:
    from ..curate.files import CurateError

    try:
        return _edit(args)
    except CurateError as exc:
        return _fail(str(exc))


def _split(words: Sequence[str], what: str) -> tuple[list[str], list[str]]:
    """`VALUE... SELECTOR...`: the selectors start at the first word naming a file."""
    from ..curate.files import CurateError
    from ..curate.select import is_selector

    at = next((n for n, word in enumerate(words) if is_selector(word)), None)
    if at is None:
        last = words[-1]
        raise CurateError(f"{last}: no such file or folder (after the {what}s, name the scenarios)")
    if at == 0:
        raise CurateError(f"name at least one {what} before the scenarios")
    return list(words[:at]), list(words[at:])


def _edit(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from ..curate import edits
    from ..curate.commit import Change, commit
    from ..curate.files import CurateError
    from ..curate.select import is_selector, select

    values: list[str] = []
    words = list(args.words)
    if args.command in ("tag", "checks"):
        values, words = _split(words, "tag" if args.command == "tag" else "check")
    elif args.command == "comment":
        if len(words) < 2:
            raise CurateError("give the scenarios, then the comment's text")
        words, values = words[:-1], [words[-1]]
    for word in words:
        if not is_selector(word):
            raise CurateError(f"{word}: no such file or folder")
    chosen = select(words, query=args.query, tags=args.tag)
    count = sum(len(group.items) for group in chosen)
    if not count:
        raise CurateError("no scenario matches (nothing changed)")
    changes: list[Change] = []
    changed = 0
    if args.command == "move":
        changes, changed = _move(args, chosen)
    elif args.command == "delete" and not args.yes:
        for group in chosen:
            for item in group.items:
                print(f"{group.spec.path}:{item.line + 1}  {item.name}")
        print(f"would delete {count} scenario(s); run again with --yes to delete", file=sys.stderr)
        return EXIT_FAILED
    else:
        stamp = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
        for group in chosen:
            spec = group.spec
            if args.command == "delete" and spec.kind.value == "scenario":
                changes.append(Change(spec.path, spec.data, None))
                changed += 1
                continue
            editor = edits.Editor(spec)
            if args.command == "delete":
                edits.delete_items(editor, group.items)
                changed += len(group.items)
            for item in group.items if args.command != "delete" else ():
                if args.command == "tag":
                    op = edits.add_tags if args.action == "add" else edits.remove_tags
                    changed += op(editor, item, values)
                elif args.command == "checks":
                    changed += edits.set_checks_enabled(
                        editor, item, values, args.action == "enable"
                    )
                elif args.command == "status":
                    changed += edits.set_status(editor, item, args.action)
                elif args.command == "comment":
                    comment = {"content": values[0]}
                    if args.author:
                        comment["author"] = args.author
                    comment["created"] = stamp
                    changed += edits.add_comment(editor, item, comment)
            if editor.edits:
                changes.append(Change(spec.path, spec.data, editor.result().encode("utf-8")))
    if args.dry_run:
        for change in changes:
            sys.stdout.write(change.diff())
        print(f"(dry run: {len(changes)} file(s) would change)", file=sys.stderr)
        return EXIT_OK
    commit(changes)
    print(
        f"{args.command}: {changed} change(s) in {len(changes)} file(s), "
        f"{count} scenario(s) selected",
        file=sys.stderr,
    )
    return EXIT_OK


def _move(args: argparse.Namespace, chosen: list[Selected]) -> tuple[list[Change], int]:
    from ..curate import edits, move
    from ..curate.commit import Change
    from ..curate.files import CurateError, read_spec

    target_path = args.to
    existing = read_spec(target_path) if target_path.exists() else None
    kind = move.target_kind(target_path, existing)
    moving = [(group.spec, item) for group in chosen for item in group.items]
    for spec, item in moving:
        if move.source_kind(spec) is not kind:
            raise CurateError(
                f"{spec.path}:{item.line + 1}: {item.name!r} is a {spec.kind.value} scenario "
                f"(steps); {target_path} is a {kind.value}: the tool does not convert between "
                "them"
            )
        if spec.path.resolve() == target_path.resolve():
            raise CurateError(f"{spec.path}: the scenarios are already in {target_path}")
    names = {i.name for i in existing.items} if existing is not None else set()
    twice = sorted({i.name for _, i in moving if i.named and i.name in names})
    if twice:
        print(f"warning: {target_path} already has {', '.join(map(repr, twice))}", file=sys.stderr)
    if existing is None:
        from ..spec.kinds import is_json, is_jsonl

        blocks, values = [], []
        for spec, item in moving:
            if is_json(target_path) or is_jsonl(target_path) or spec.format != "yaml":
                values.append(move.item_value(spec, item))
                blocks.append(f"- {edits.json_value(values[-1])}\n")
            else:
                blocks.append(move.item_lines(spec, item, "", "\n"))
        text = move.new_file(target_path, kind, blocks, values)
        changes = [Change(target_path, None, text.encode("utf-8"))]
    else:
        text = move.append_scenarios(existing, moving)
        changes = [Change(existing.path, existing.data, text.encode("utf-8"))]
    if not args.copy:
        for group in chosen:
            spec = group.spec
            if spec.kind.value == "scenario":
                changes.append(Change(spec.path, spec.data, None))
                continue
            editor = edits.Editor(spec)
            edits.delete_items(editor, group.items)
            changes.append(Change(spec.path, spec.data, editor.result().encode("utf-8")))
    return changes, len(moving)
