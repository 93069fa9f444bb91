"""The curation commands: `list scenarios|tags`, `tag`, `checks`, `status`, `move`,
`delete`, `comment`. Selecting is engine/curate/select.py, editing engine/curate/edits.py,
writing engine/curate/commit.py; this module parses arguments and prints."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .selection_options import add_selection_options

if TYPE_CHECKING:
    from ..curate.files import Item, SpecFile

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2


def add_list_options(listing: argparse.ArgumentParser) -> None:
    listing.add_argument("paths", nargs="*", metavar="SELECTOR", help="files, folders, FILE::NAME")
    _filters(listing)
    listing.add_argument("--limit", type=_natural, metavar="N", help="show at most N")
    listing.add_argument("--offset", type=_natural, default=0, metavar="K", help="skip the first K")
    listing.add_argument("--format", choices=("text", "json"), default="text")


_filters = add_selection_options


def _natural(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value}")
    return value


def terminal(text: str, *, one_line: bool = False) -> str:
    """Text from files without control characters (core/safe_text.py)."""
    from ..core.safe_text import terminal as shown

    return shown(text, one_line=one_line)


def _fail(message: str) -> int:
    print(terminal(f"error: {message}"), file=sys.stderr)
    return EXIT_INVALID


def list_scenarios(args: argparse.Namespace) -> int:
    from ..curate.files import CurateError
    from ..curate.select import select

    try:
        chosen = select(
            args.paths or ["."], query=args.query, tags=args.tag, quick=True, status=args.status
        )
    except CurateError as exc:
        return _fail(str(exc))
    rows = [(group.spec, item) for group in chosen for item in group.items]
    end = None if args.limit is None else args.offset + args.limit
    shown = rows[args.offset : end]
    names = _name_counts({id(spec): spec for spec, _ in shown}.values())
    if args.format == "json":
        from .project import open_project

        root_for = open_project().root_for  # each file's workspace root names its scenarios
        out = [
            {
                "selector": _selector(spec, item, names),
                "identity": spec.identity(item, root_for(spec.path)),
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
        lines.append(terminal(f"{shlex.quote(_selector(spec, item, names))}{tags}", one_line=True))
    if lines:
        print("\n".join(lines))
    if len(shown) < len(rows):
        print(f"({len(shown)} of {len(rows)} scenarios shown)", file=sys.stderr)
    return EXIT_OK


def _name_counts(specs: Iterable[SpecFile]) -> dict[int, Counter[str]]:
    """How many scenarios of each file bear each name (by the file's id): counted once,
    not once per scenario listed (a 100,000-row dataset)."""
    return {id(spec): Counter(i.name for i in spec.items) for spec in specs}


def _selector(spec: SpecFile, item: Item, names: dict[int, Counter[str]]) -> str:
    """The selector naming this one scenario, as `run` and every command take it."""
    from ..curate.selectors import selector_of

    unique = not spec.partial and names[id(spec)][item.name] == 1
    return selector_of(str(spec.path), item.index, item.name if item.named else None, unique)


def list_tags(args: argparse.Namespace) -> int:
    from ..curate.files import CurateError
    from ..curate.select import select

    try:
        chosen = select(
            args.paths or ["."], query=args.query, tags=args.tag, quick=True, status=args.status
        )
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
        print(terminal(f"{tag:<{width}}  {count}", one_line=True))
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
    from ..curate.selectors import is_selector

    at = next((n for n, word in enumerate(words) if is_selector(word)), None)
    if at is None:
        from ..core.near_paths import nearest_hint

        last = words[-1]
        raise CurateError(
            f"{last}: no such file or folder (after the {what}s, name the scenarios)"
            f"{nearest_hint(last)}"
        )
    if at == 0:
        raise CurateError(f"name at least one {what} before the scenarios")
    return list(words[:at]), list(words[at:])


def _edit(args: argparse.Namespace) -> int:
    from ..curate.commit import Change, commit
    from ..curate.files import CurateError
    from ..curate.operations import duplicate_names, plan
    from ..curate.select import select
    from ..curate.selectors import is_selector
    from .project import open_project

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
            from ..core.near_paths import nearest_hint

            raise CurateError(f"{word}: no such file or folder{nearest_hint(word)}")
    chosen = select(words, query=args.query, tags=args.tag, status=args.status)
    count = sum(len(group.items) for group in chosen)
    if not count:
        raise CurateError("no scenario matches (nothing changed)")
    if args.command == "delete" and not args.yes:
        for group in chosen:
            for item in group.items:
                print(f"{group.spec.path}:{item.line + 1}  {item.name}")
        print(f"would delete {count} scenario(s); run again with --yes to delete", file=sys.stderr)
        return EXIT_FAILED
    operation = {
        "tag": f"tag {getattr(args, 'action', '')}",
        "checks": f"checks {getattr(args, 'action', '')}",
        "status": f"status {getattr(args, 'action', '')}",
        "move": "copy" if getattr(args, "copy", False) else "move",
    }.get(args.command, args.command)
    if args.command == "move":
        twice = duplicate_names(chosen, args.to)
        if twice:
            print(f"warning: {args.to} already has {', '.join(map(repr, twice))}", file=sys.stderr)
    done = plan(
        operation,
        chosen,
        values,
        author=getattr(args, "author", None),
        to=getattr(args, "to", None),
    )
    changes = [
        Change(
            f.path,
            f.spec.data if f.spec is not None else None,
            f.new.encode("utf-8") if f.new is not None else None,
        )
        for f in done.files
    ]
    if args.dry_run:
        for change in changes:
            sys.stdout.write(change.diff())
        print(f"(dry run: {len(changes)} file(s) would change)", file=sys.stderr)
        return EXIT_OK
    commit(changes, open_project().write_root)  # each file in its own workspace
    print(
        f"{args.command}: {done.changed} change(s) in {len(changes)} file(s), "
        f"{count} scenario(s) selected",
        file=sys.stderr,
    )
    return EXIT_OK


# -- the Hub's format -----------------------------------------------------------------


def add_hub_command(commands: argparse._SubParsersAction) -> None:
    hub = commands.add_parser(
        "hub", help="export datasets as the Hub's scenarios (JSON Lines), or import them"
    )
    actions = hub.add_subparsers(dest="hub_action", required=True, metavar="ACTION")
    export = actions.add_parser("export", help="datasets' scenarios as Hub Scenario objects")
    export.add_argument("paths", nargs="+", metavar="SELECTOR")
    export.add_argument("--output", "-o", metavar="FILE", help="write to FILE (default: stdout)")
    export.add_argument("--format", choices=("jsonl", "json"), default="jsonl")
    export.add_argument("--force", action="store_true", help="overwrite the --output file")
    _filters(export)
    imported = actions.add_parser(
        "import", help="Hub scenarios (JSON or JSON Lines) into a dataset"
    )
    imported.add_argument("source", metavar="FILE", type=Path)
    imported.add_argument("--to", required=True, metavar="DATASET", type=Path)


def hub(args: argparse.Namespace) -> int:
    from ..curate.files import CurateError

    try:
        return _hub(args)
    except CurateError as exc:
        return _fail(str(exc))
    except RecursionError:  # a value nested past the stack, met writing it
        return _fail(f"{getattr(args, 'source', 'the input')}: nested too deeply to be written")


def _hub(args: argparse.Namespace) -> int:
    from ..curate import hub
    from ..curate.commit import Change, commit
    from ..curate.files import CurateError
    from ..spec.kinds import FileKind, kind_from_name

    if args.hub_action == "export":
        from ..curate.select import select
        from .project import open_project

        chosen = select(args.paths, query=args.query, tags=args.tag, status=args.status)
        project = open_project()
        specs = []
        for group in chosen:  # only the chosen scenarios of each file
            group.spec.items = group.items
            specs.append(group.spec)
        for spec in specs:  # refused before anything is written
            if spec.kind is not FileKind.DATASET:
                raise CurateError(
                    f"{spec.path}: only datasets are in the Hub's format (a suite's scenarios "
                    "have steps)"
                )
        if args.output and Path(args.output).exists() and not args.force:
            raise CurateError(f"{args.output}: exists; --force overwrites it")
        # Row by row: no list of every row, no second copy of the whole text.
        out = bytearray() if args.output else None
        count = sum(len(spec.items) for spec in specs)
        for chunk in _exported_text(hub.each_exported(specs, project.root_for), args.format):
            if out is None:
                sys.stdout.write(chunk)
            else:
                out += chunk.encode()
        if out is not None:
            output = Path(args.output)
            commit([Change(output, _bytes_of(output), bytes(out))], root=project.home)
        print(f"exported {count} scenario(s)", file=sys.stderr)
        return EXIT_OK
    if kind_from_name(args.to) is not FileKind.DATASET:
        raise CurateError(f"{args.to}: name it *.dataset.yaml, *.dataset.json or *.dataset.jsonl")
    if args.to.exists():
        raise CurateError(f"{args.to}: exists; import into a new file, then `checkspec move`")
    from ..curate.hub_import import import_hub
    from .project import open_project
    from .selection import output_root

    workspace = open_project([args.to.absolute()]).workspace  # the dataset's limits, checks
    made = import_hub(args.source, args.to, output_root(), workspace)
    if args.to.suffix == ".jsonl":
        print(
            f"imported {made.count} scenario(s) into {args.to} (JSON Lines: one file, whatever "
            "its size; the limits are each row's)",
            file=sys.stderr,
        )
    elif len(made.files) > 1:
        print(
            f"imported {made.count} scenario(s) into {len(made.files)} files {made.files[0]} .. "
            f"{made.files[-1]}: one would be over the limits of a YAML file; a *.dataset.jsonl "
            "target holds them in one file (its limits are per row)",
            file=sys.stderr,
        )
    else:
        print(f"imported {made.count} scenario(s) into {args.to}", file=sys.stderr)
    return EXIT_OK


def _exported_text(rows: Iterator[dict[str, Any]], form: str) -> Iterator[str]:
    """The text of `hub export`, a piece at a time: a line per row (JSON Lines), or the
    JSON list `json.dumps(rows, indent=1)` writes, one item at a time."""
    if form != "json":
        for row in rows:
            yield json.dumps(row, ensure_ascii=False) + "\n"
        return
    first = True
    for row in rows:
        item = json.dumps(row, ensure_ascii=False, indent=1).replace("\n", "\n ")
        yield ("[\n " if first else ",\n ") + item
        first = False
    yield "[]\n" if first else "\n]\n"


def _bytes_of(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None
