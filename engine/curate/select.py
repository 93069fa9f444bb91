"""The one selection language of every command that takes scenarios (run, validate, list,
the curation commands) and of the pytest plugin: selectors (selectors.py: a file or
folder, `FILE::NAME`, `FILE::#INDEX`, `FILE::name=NAME`) narrowed by `--query TEXT`,
`--tag T` and `--status`.

`select` reads the files the selectors name as curation does (files.py) and narrows their
scenarios with `narrow`, the one evaluator of the filters, which the project applies to
analysed scenarios too."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

from ..spec.status import ACTIVE
from .errors import CurateError
from .selectors import members, opening

if TYPE_CHECKING:
    from .files import Item, SpecFile

_Scenario = TypeVar("_Scenario")


@dataclass
class Selected:
    """The scenarios chosen in one file, in file order."""

    spec: SpecFile
    items: list[Item]


def select(
    selectors: Sequence[str],
    *,
    query: str | None = None,
    tags: Sequence[str] = (),
    files: dict[Path, SpecFile] | None = None,
    quick: bool = False,
    status: str | None = None,
) -> list[Selected]:
    """The scenarios the selectors name (each once, files in order), then narrowed by the
    filters (`narrow`, the one evaluator every front end uses).

    A path that does not exist, a name or index a file does not have, a tag no scenario
    has or a query no scenario holds is a CurateError (naming the nearest names, the tags
    there are); a file that cannot be parsed is one too. `quick`: listing with a filter
    reads only the scenarios whose text may match (files.scan_spec).
    """
    files = {} if files is None else files
    words = query_words(query)
    prefilter = (words, list(tags)) if quick and (words or tags) else None
    chosen: dict[Path, dict[int, Item]] = {}
    for text in selectors:
        raw, member, found = opening(text)
        if member is None:
            if Path(raw).is_file() and not found:
                found = [Path(raw)]
            for path in found:
                spec = _read(path, files, prefilter)
                chosen.setdefault(spec.path, {}).update((i.index, i) for i in spec.items)
            continue
        spec = _read(found[0], files, None)
        items = members(spec.items, spec.path, member, text)
        chosen.setdefault(spec.path, {}).update((i.index, i) for i in items)
    candidates = [
        (files[path], item) for path, picked in chosen.items() for item in _ordered(picked)
    ]
    filters = Filters(tuple(tags), query, status)
    narrowed = narrow(candidates, filters, _facts_of_item)
    if prefilter is not None and not narrowed.kept:
        # Only the scenarios that may match were read: why none is chosen, from all.
        everything: list[tuple[SpecFile, Item]] = []
        for path, picked in chosen.items():
            if files[path].partial:  # a file named whole, read in part: read whole
                spec = _read(path, files, None)
                everything.extend((spec, item) for item in spec.items)
            else:
                everything.extend((files[path], item) for item in _ordered(picked))
        narrowed = narrow(everything, filters, _facts_of_item)
    if narrowed.refusal is not None:
        raise CurateError(narrowed.refusal.message)
    result: dict[int, Selected] = {}
    for spec, item in narrowed.kept:
        result.setdefault(id(spec), Selected(spec, [])).items.append(item)
    return list(result.values())


def _ordered(picked: dict[int, Item]) -> list[Item]:
    return [item for _, item in sorted(picked.items())]


def _facts_of_item(pair: tuple[SpecFile, Item]) -> Facts:
    spec, item = pair
    return Facts(
        tags=[*item.tags, *spec.tags],
        status=item.status or ACTIVE,
        holds=lambda words: matches(item, words),
    )


def _read(
    path: Path,
    files: dict[Path, SpecFile],
    prefilter: tuple[list[str], list[str]] | None,
) -> SpecFile:
    from .files import read_spec, scan_spec

    key = Path(path)
    if key not in files or (files[key].partial and prefilter is None):
        files[key] = scan_spec(key, *prefilter) if prefilter else read_spec(key)
        files[key].path = key
    return files[key]


# The filters of the selection language and their one evaluator, `narrow`: curation
# applies it to the scenarios it reads as text (`select` above), the project
# (engine/runs/project.py `Project.select`) to the analysed ones of a run, a calibration,
# the pytest plugin and the editor. What a scenario is to them is told by a `Facts`.


class Facts(NamedTuple):
    """What the filters read of a scenario, however it was read."""

    tags: Iterable[str]  # its own and its file's
    status: str  # "draft" or "active" (no `status:` is active)
    holds: Callable[[Sequence[str]], bool]  # whether its text holds every (casefolded) word


@dataclass(frozen=True)
class Filters:
    """`--tag` (repeated: every one), `--query`, `--status`."""

    tags: tuple[str, ...] = ()
    query: str | None = None
    status: str | None = None


@dataclass(frozen=True)
class Refusal:
    """A selection that cannot be (exit 2 on the CLI): nothing is chosen."""

    message: str


@dataclass
class Narrowed(Generic[_Scenario]):
    kept: list[_Scenario]
    not_of_status: list[_Scenario]  # left out by --status (a run reports them)
    refusal: Refusal | None = None


def narrow(
    candidates: Sequence[_Scenario], filters: Filters, facts: Callable[[_Scenario], Facts]
) -> Narrowed[_Scenario]:
    """THE evaluator of the filters, for every front end: the candidates (in order) with
    every `--tag`, holding every word of `--query`, of `--status`. A tag no candidate has,
    or a query none of those tagged holds, refuses the selection (the same message from
    `run`, `list`, the curation commands and the editor); a status matching none is no
    refusal (it is said as what was left out)."""
    known = [(c, facts(c)) for c in candidates]
    tagged = [(c, f) for c, f in known if has_tags(f.tags, filters.tags)]
    if filters.tags and known and not tagged:
        return Narrowed([], [], Refusal(_unknown_tags(known, filters.tags)))
    words = query_words(filters.query)
    chosen = [(c, f) for c, f in tagged if f.holds(words)] if words else tagged
    if words and tagged and not chosen:
        message = f"no scenario holds every word of --query {filters.query!r}"
        return Narrowed([], [], Refusal(message))
    kept = [c for c, f in chosen if of_status(f.status, filters.status)]
    kept_ids = {id(c) for c in kept}
    return Narrowed(kept, [c for c, _ in chosen if id(c) not in kept_ids])


def _unknown_tags(known: Sequence[tuple[Any, Facts]], wanted: Sequence[str]) -> str:
    existing = sorted({tag for _, facts in known for tag in facts.tags})
    there = ", ".join(existing) if existing else "none (no scenario has tags)"
    named = ", ".join(repr(tag) for tag in wanted)
    which = "the tag" if len(wanted) == 1 else "every tag of"
    return f"no scenario has {which} {named}; tags in these files: {there}"


def has_tags(own: Iterable[str], wanted: Sequence[str]) -> bool:
    """Repeated tags narrow: a scenario with every one (docs/decisions.md "Repeated --tag
    means every tag"); its file's tags count as its own."""
    if not wanted:
        return True
    mine = set(own)
    return all(tag in mine for tag in wanted)


def of_status(status: str | None, wanted: str | None) -> bool:
    """`--status`: a scenario's `status:` (none is active)."""
    return wanted is None or (status or "active") == wanted


def holds(value: Any, words: Sequence[str]) -> bool:
    """`--query`: every word is in the scenario's text (every value it holds)."""
    if not words:
        return True
    text = searchable(value)
    return all(word in text for word in words)


def query_words(query: str | None) -> list[str]:
    return [word.casefold() for word in (query or "").split()]


def matches(item: Item, words: Sequence[str]) -> bool:
    """Every word is in the scenario's text: its names, descriptions, inputs, recorded
    outputs, check parameters and comments (every value it holds, not its keys)."""
    return item.may_hold(words) and holds(item.value, words)


def searchable(value: Any) -> str:
    parts: list[str] = []
    _gather(value, parts)
    return "\n".join(parts).casefold()


def _gather(value: Any, into: list[str]) -> None:
    stack = [value]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            into.append(value)
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif value is not None and not isinstance(value, bool):
            into.append(str(value))
