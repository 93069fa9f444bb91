"""`checkspec hub import SOURCE --to DATASET`, as a stream: the Hub's scenarios are read
a row at a time (curate/hub.py `each_located`), made dataset rows, written to temporary
files beside the target and analysed a slice at a time; only when every row is read and
valid do the files take their names (all of them or none). What is held at once is one
row (at most `max_file_size` characters: the limit of one scenario) and one slice or
one output file (under the limits of one file), never the source or the whole dataset.

- A `*.dataset.jsonl` target is one file whatever its size (its limits are each row's,
  and `max_dataset_file_size` the file's).
- A YAML or JSON target is one file when the rows fit the limits of one file
  (`max_file_size`, the node limit), else NAME-1, NAME-2, ... beside it, each filled up
  to the limits, in order.

Every file is written under the rule of output paths (core/write.py): no link out of the
workspace, never over an existing file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import hub
from .files import CurateError

if TYPE_CHECKING:
    from ..spec.workspace import Workspace

# Rows analysed at a time when an import is validated: what one analysis holds (also
# bounded in characters, so that a slice of big rows stays small).
ROWS_AT_A_TIME = 5_000
SLICE_CHARS = 8_000_000
# Rows dumped to YAML at once (libyaml's emitter costs ~5x less a row in batches).
_BATCH = 256
# A part is closed below the node limit by this share: the count here is an estimate
# (keys, values and items), the analysis of the part counts exactly.
_NODE_SHARE = 0.9


@dataclass
class Imported:
    """What an import wrote: the files (in order) and the count of scenarios."""

    files: list[Path]
    count: int


@dataclass
class _Staged:
    """Temporary files beside their targets, renamed to them all at once, or removed."""

    root: Path
    temporaries: list[Path] = field(default_factory=list)

    def new(self, near: Path) -> Any:
        from ..core.write import write_target

        write_target(near, self.root)  # the rule of output paths, before any byte
        near.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=f".{near.name}.", dir=near.parent)
        self.temporaries.append(Path(name))
        return os.fdopen(handle, "w", encoding="utf-8", newline="\n")

    def finish(self, names: list[Path]) -> None:
        from ..core.write import umask, write_target

        for name in names:
            write_target(name, self.root)
            if name.exists() or name.is_symlink():
                raise CurateError(f"{name}: exists; import into a new file, then `checkspec move`")
        done: list[Path] = []
        try:
            for temporary, name in zip(self.temporaries, names, strict=True):
                os.chmod(temporary, 0o666 & ~umask())
                os.replace(temporary, name)
                done.append(name)
        except OSError as exc:
            for name in done:
                name.unlink(missing_ok=True)
            raise CurateError(f"cannot write {names[len(done)]}: {exc.strerror or exc}") from None
        self.temporaries = []

    def discard(self) -> None:
        for temporary in self.temporaries:
            temporary.unlink(missing_ok=True)
        self.temporaries = []


def import_hub(source: Path, to: Path, root: Path, workspace: Workspace) -> Imported:
    """Import `source` into the dataset `to` (see the module) of `workspace` (the one
    `to` lies in: its limits and checks); CurateError, nothing written, for a row that
    cannot be read or imported, a dataset that would not validate or would be over its
    limits."""
    max_row = workspace.config.max_file_size
    rows = hub.each_imported_located(hub.each_located(source, max_row))
    staged = _Staged(root)
    try:
        if to.suffix == ".jsonl":
            made = _to_jsonl(rows, to, workspace, staged)
        else:
            made = _to_files(rows, to, workspace, staged)
    except OSError as exc:
        from ..core.write import os_problem

        raise CurateError(os_problem(to, exc)) from None
    finally:
        staged.discard()
    return made


def _to_jsonl(
    rows: Iterator[dict[str, Any]], to: Path, workspace: Any, staged: _Staged
) -> Imported:
    limit, setting = workspace.config.size_limit(to)
    errors: list[str] = []
    error_count = 0
    written = count = 0
    pending: list[str] = []
    pending_chars = 0
    with staged.new(to) as out:

        def flush() -> None:
            nonlocal pending, pending_chars, written, error_count
            found = _slice_errors(pending, count - len(pending), to, workspace)
            error_count += len(found)
            errors.extend(found[: max(0, 5 - len(errors))])
            for line in pending:
                written += len(line.encode("utf-8"))
                out.write(line)
            if written > limit:
                raise _over_limits(to, f"over the {limit:,} bytes of {setting}")
            pending, pending_chars = [], 0

        for row in rows:
            line = hub.json_line(row)
            pending.append(line)
            pending_chars += len(line)
            count += 1
            if len(pending) >= ROWS_AT_A_TIME or pending_chars >= SLICE_CHARS:
                flush()
        flush()
    if errors:
        raise _invalid(errors, error_count)
    staged.finish([to])
    return Imported([to], count)


def _slice_errors(lines: list[str], start: int, path: Path, workspace: Any) -> list[str]:
    """The errors of a slice of JSON Lines rows starting at line `start` (0-based), at
    their lines in the whole file (rows are independent: no row changes another's
    analysis), analysed without the runnable scenarios (only problems are wanted)."""
    from ..spec.document import analyze
    from ..spec.kinds import FileKind
    from ..spec.problems import Severity, moved_problem

    if not lines:
        return []
    text = "".join(lines)
    document = analyze(text, str(path), workspace, kind=FileKind.DATASET, keep=False)
    return [
        moved_problem(p, start).format(str(path))
        for p in document.every_problem()
        if p.severity is Severity.ERROR
    ]


def _to_files(
    rows: Iterator[dict[str, Any]], to: Path, workspace: Any, staged: _Staged
) -> Imported:
    """YAML or JSON: one file while the rows fit the limits of one, else parts."""
    from ..spec import source

    limit, _ = workspace.config.size_limit(to)
    max_nodes = int(source.MAX_NODES * _NODE_SHARE)
    name = to.name.split(".")[0]
    head = hub.file_head(to, name)
    parts: list[_Part] = []
    count = 0

    def new_part() -> _Part:
        part = _Part(staged.new(to), staged.temporaries[-1], len(head.encode("utf-8")) + 16)
        part.out.write(head)
        parts.append(part)
        return part

    part = new_part()
    for batch in _batches(rows):
        count += len(batch)
        text = hub.rows_text(to, batch, first=not part.rows)
        size, nodes = len(text.encode("utf-8")), sum(_nodes(r) for r in batch)
        if part.fits(size, nodes, limit, max_nodes):
            part.add(text, len(batch), size, nodes)
            continue
        for row in batch:  # the part ends within this batch: a row at a time
            text = hub.rows_text(to, [row], first=not part.rows)
            size, nodes = len(text.encode("utf-8")), _nodes(row)
            if not part.fits(size, nodes, limit, max_nodes):
                if not part.rows:
                    raise _over_limits(to, f"scenario {count} alone is over them")
                _close(part, to, workspace)
                part = new_part()
                text = hub.rows_text(to, [row], first=True)
                size = len(text.encode("utf-8"))
                if not part.fits(size, nodes, limit, max_nodes):
                    raise _over_limits(to, "one scenario alone is over them")
            part.add(text, 1, size, nodes)
    _close(part, to, workspace)
    if len(parts) == 1:
        names = [to]
    else:
        stem, _, rest = to.name.partition(".")
        width = len(str(len(parts)))
        names = [to.with_name(f"{stem}-{i + 1:0{width}d}.{rest}") for i in range(len(parts))]
    staged.finish(names)
    return Imported(names, count)


@dataclass
class _Part:
    out: Any
    path: Path  # the temporary file
    size: int
    nodes: int = 20
    rows: int = 0

    def fits(self, size: int, nodes: int, limit: int, max_nodes: int) -> bool:
        return self.size + size <= limit and self.nodes + nodes <= max_nodes

    def add(self, text: str, rows: int, size: int, nodes: int) -> None:
        self.out.write(text)
        self.rows += rows
        self.size += size
        self.nodes += nodes


def _close(part: _Part, to: Path, workspace: Any) -> None:
    """End the part's file and analyse it as the dataset it will be; CurateError when
    checkspec would refuse it."""
    from ..spec.document import analyze
    from ..spec.kinds import FileKind
    from ..spec.problems import Severity

    part.out.write(hub.file_tail(to, bool(part.rows)))
    part.out.close()
    text = part.path.read_text(encoding="utf-8")
    # Only problems are wanted, not the runnable scenarios.
    document = analyze(text, str(to), workspace, kind=FileKind.DATASET, keep=False)
    errors = [p for p in document.every_problem() if p.severity is Severity.ERROR]
    if any(p.code in ("too-many-nodes", "too-large") for p in errors):
        raise _over_limits(to, errors[0].message)
    if errors:
        raise _invalid([p.format(str(to)) for p in errors[:5]], len(errors))


def _batches(rows: Iterator[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= _BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _nodes(value: Any) -> int:
    """The nodes a value makes in a YAML file (each key, value and item), counted
    without recursion."""
    count, stack = 0, [value]
    while stack:
        item = stack.pop()
        count += 1
        if isinstance(item, dict):
            count += len(item)  # the keys
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


def _over_limits(to: Path, why: str) -> CurateError:
    return CurateError(
        f"{to}: the imported dataset would be over the limits of one file ({why}); nothing "
        "was written: split the source and import each part into its own dataset"
    )


def _invalid(errors: list[str], count: int) -> CurateError:
    more = f" (and {count - len(errors)} more)" if count > len(errors) else ""
    return CurateError(
        f"the imported dataset would not validate, nothing was written: {'; '.join(errors)}{more}"
    )


__all__ = ["ROWS_AT_A_TIME", "Imported", "import_hub"]
