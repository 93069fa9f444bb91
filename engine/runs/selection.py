"""What a command selects (`Selection`) and what the project's one evaluator of it,
`Project.select` (project.py), chose (`Selected`). Apart from project.py so that opening
a project and loading its files (every command, `checkspec validate` too) does not make
these classes: a frozen dataclass costs ~1 ms to make on Python 3.11."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .outcome import LeftOut
    from .project import Pair


@dataclass(frozen=True)
class Selection:
    """What a command selects: selectors (files, folders, `FILE::NAME`, `FILE::#INDEX`)
    narrowed by the filters of the one selection language (engine/curate/select.py)."""

    paths: tuple[str, ...] = ()
    query: str | None = None
    tags: tuple[str, ...] = ()
    status: str | None = None
    include_drafts: bool = False
    last_failed: bool = False
    shard: tuple[int, int] | None = None
    # Whether drafts are a rule here (a run leaves them out); calibration takes them all.
    drafts_rule: bool = True
    # Whether only runnable scenarios are chosen (a run); the pytest plugin also keeps
    # the invalid ones (each an item that fails with its problems).
    runnable_only: bool = True


@dataclass
class Selected:
    """The scenarios a selection chose, in file order."""

    entries: list[Pair] = field(default_factory=list)
    selected: int = 0  # chosen before --last-failed and --shard (all shards together)
    left_out: LeftOut | None = None  # what the filters left out, and why
    notes: list[str] = field(default_factory=list)  # what --last-failed says it did
