"""The Hub's own JSON for scenarios (its SDK's `Scenario`, `Interaction`,
`ScenarioComment`), from and to dataset files: interactions with input, output and
checks; tags; status; comments.

Export: one object per line (JSON Lines) or a JSON list, each a `Scenario` as the Hub's
API gives it: an `id` (the scenario's identity, FILE::NAME or FILE::#INDEX), the
`dataset_id` (the dataset's name), timestamps, and each check as `{check_id, spec,
enabled, position}`. Import reads the same back (what the SDK writes with
`model_dump(mode="json", by_alias=True)`) into dataset rows.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..spec.kinds import FileKind
from .files import CurateError, SpecFile


def _stamp(path: Path) -> str:
    try:
        when = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except OSError:
        when = datetime.now(UTC)
    return when.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def export_rows(specs: Iterable[SpecFile]) -> list[dict[str, Any]]:
    """Every scenario of these dataset files as Hub `Scenario` objects."""
    return list(each_exported(specs))


def each_exported(specs: Iterable[SpecFile]) -> Iterator[dict[str, Any]]:
    """`export_rows` one row at a time (a 100,000-row dataset is written as it is read)."""
    for spec in specs:
        if spec.kind is not FileKind.DATASET:
            raise CurateError(
                f"{spec.path}: only datasets are in the Hub's format (a suite's scenarios have steps)"
            )
        stamp = _stamp(spec.path)
        dataset = spec.path.name.split(".")[0]
        if spec.root is not None:
            name = spec.root.get("name")
            dataset = name.value if name is not None and isinstance(name.value, str) else dataset
        for item in spec.items:
            value = item.value
            value = value if isinstance(value, dict) else {}
            yield _scenario(spec, item.index, value, dataset, stamp, spec.identity(item))


def _scenario(
    spec: SpecFile, index: int, value: dict[str, Any], dataset: str, stamp: str, identity: str
) -> dict[str, Any]:
    interactions = []
    for position, turn in enumerate(value.get("interactions") or []):
        if not isinstance(turn, dict):
            continue
        checks = []
        for at, check in enumerate(turn.get("checks") or []):
            if not isinstance(check, dict):
                continue
            entry: dict[str, Any] = {
                "check_id": check.get("identifier"),
                "enabled": check.get("enabled", True) is not False,
                "position": at,
                "spec": check.get("params") or {},
            }
            if check.get("name"):
                entry["name"] = check["name"]
            if check.get("expect") in ("pass", "fail"):
                # A person's label: the Hub's InteractionCheckConfig keeps unknown fields
                # (extra="allow"), so it survives the SDK both ways.
                entry["expect"] = check["expect"]
            checks.append(entry)
        output = turn.get("output")
        interactions.append(
            {
                "position": position,
                "input": _as_object(turn.get("input"), "messages"),
                "output": None if output is None else _as_object(output, "response"),
                "checks": checks,
            }
        )
    annotations = value.get("annotations")
    annotations = dict(annotations) if isinstance(annotations, dict) else {}
    kept = annotations.pop(_PROVENANCE, None)  # what the Hub said, kept by `hub import`
    kept = kept if isinstance(kept, dict) else {}
    identity = _text(kept.get("id"), identity)
    dataset = _text(kept.get("dataset_id"), dataset)
    created_stamp = _text(kept.get("created_at"), stamp)
    updated_stamp = _text(kept.get("updated_at"), stamp)
    comments = []
    for at, comment in enumerate(value.get("comments") or []):
        if not isinstance(comment, dict):
            continue
        author = str(comment.get("author") or "unknown")
        created = str(comment.get("created") or stamp)
        comments.append(
            {
                "id": f"{identity}/comment/{at}",
                "comment": comment.get("content", ""),
                "created_at": created,
                "updated_at": str(comment.get("updated") or created),
                "user": {"id": author, "name": author},
            }
        )
    row: dict[str, Any] = {
        "id": identity,
        "dataset_id": dataset,
        "created_at": created_stamp,
        "updated_at": updated_stamp,
        # the dataset's own tags are every scenario's
        "tags": list(
            dict.fromkeys([*spec.tags, *(t for t in value.get("tags") or [] if isinstance(t, str))])
        ),
        "status": value.get("status") or "active",
        "comments": comments,
        "interactions": interactions,
    }
    if isinstance(value.get("name"), str):
        row["name"] = value["name"]
    if isinstance(value.get("description"), str):
        row["description"] = value["description"]
    if annotations:
        # The generation provenance. The Hub's Scenario declares no such field; its models
        # keep unknown fields (extra="allow"), so it survives the SDK both ways.
        row["annotations"] = annotations
    return row


# The annotation where `hub import` keeps a scenario's Hub identity and timestamps, which
# `hub export` gives back: export, import, export is byte for byte the first export.
_PROVENANCE = "hub"
_KEPT = ("id", "dataset_id", "created_at", "updated_at")


def _text(value: Any, default: str) -> str:
    return value if isinstance(value, str) and value else default


def _as_object(value: Any, key: str) -> dict[str, Any]:
    """The Hub keeps inputs and outputs as objects: a plain text becomes a chat one."""
    if isinstance(value, dict):
        return value
    if key == "messages":
        return {"messages": [{"role": "user", "content": value}]}
    return {"response": {"role": "assistant", "content": value}}


def _check_row(row: dict[str, Any], where: str) -> None:
    """CurateError naming what in a Hub scenario is not of the Hub's shape (a string where
    an object goes, `tags: 5`), instead of a traceback further on."""

    def fail(what: str, expected: str, value: Any) -> None:
        raise CurateError(f"{where}: {what} should be {expected}, not {type(value).__name__}")

    def objects(value: Any, what: str) -> list[dict[str, Any]]:
        if value is None:
            return []
        if not isinstance(value, list):
            fail(what, "a list", value)
        for n, item in enumerate(value):
            if not isinstance(item, dict):
                fail(f"{what}[{n}]", "an object", item)
        return value

    def position(item: dict[str, Any], what: str) -> None:
        value = item.get("position", 0)
        if isinstance(value, bool) or not isinstance(value, int | float):
            fail(f"{what}.position", "a number", value)

    for key in ("name", "description", "status"):
        if row.get(key) is not None and not isinstance(row[key], str):
            fail(key, "a string", row[key])
    tags = row.get("tags")
    if tags is not None and (
        not isinstance(tags, list) or not all(isinstance(t, str) for t in tags)
    ):
        fail("tags", "a list of strings", tags)
    for n, turn in enumerate(objects(row["interactions"], "interactions")):
        position(turn, f"interactions[{n}]")
        for m, check in enumerate(objects(turn.get("checks"), f"interactions[{n}].checks")):
            position(check, f"interactions[{n}].checks[{m}]")
            for key in ("check_id", "identifier", "name"):
                if check.get(key) is not None and not isinstance(check[key], str):
                    fail(f"interactions[{n}].checks[{m}].{key}", "a string", check[key])
            for key in ("spec", "override_spec", "params"):
                if check.get(key) is not None and not isinstance(check[key], dict):
                    fail(f"interactions[{n}].checks[{m}].{key}", "an object", check[key])
    for n, comment in enumerate(objects(row.get("comments"), "comments")):
        if comment.get("user") is not None and not isinstance(comment["user"], dict):
            fail(f"comments[{n}].user", "an object", comment["user"])


def import_rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Hub `Scenario` objects as dataset rows (this project's dataset format)."""
    return list(each_imported(rows))


def each_imported(rows: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """`import_rows` one row at a time."""
    for number, row in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("interactions"), list):
            raise CurateError(f"scenario {number + 1}: not a Hub scenario (no interactions)")
        _check_row(row, f"scenario {number + 1}")
        turns = []
        for turn in sorted(row["interactions"], key=lambda t: t.get("position", 0)):
            checks = []
            for check in sorted(turn.get("checks") or [], key=lambda c: c.get("position", 0)):
                entry: dict[str, Any] = {
                    "identifier": check.get("check_id") or check.get("identifier")
                }
                params = check.get("spec") or check.get("override_spec") or check.get("params")
                if params:
                    entry["params"] = params
                if check.get("name"):
                    entry["name"] = check["name"]
                if check.get("enabled") is False:
                    entry["enabled"] = False
                if check.get("expect") in ("pass", "fail"):
                    entry["expect"] = check["expect"]
                checks.append(entry)
            given = turn.get("input")  # a plain text as the chat object a dataset holds
            made: dict[str, Any] = {
                "input": given if given is None else _as_object(given, "messages")
            }
            if turn.get("output") is not None:
                made["output"] = _as_object(turn["output"], "response")
            if checks:
                made["checks"] = checks
            turns.append(made)
        scenario: dict[str, Any] = {}
        for key in ("name", "description"):
            if isinstance(row.get(key), str):
                scenario[key] = row[key]
        if row.get("tags"):
            scenario["tags"] = list(row["tags"])
        if row.get("status") == "draft":
            scenario["status"] = "draft"
        annotations = dict(row["annotations"]) if isinstance(row.get("annotations"), dict) else {}
        kept = {key: row[key] for key in _KEPT if isinstance(row.get(key), str) and row[key]}
        if kept:
            annotations[_PROVENANCE] = kept
        if annotations:
            scenario["annotations"] = annotations
        comments = []
        for comment in row.get("comments") or []:
            made_comment: dict[str, Any] = {
                "content": comment.get("comment", comment.get("content", ""))
            }
            user = comment.get("user") or {}
            if user.get("name") or comment.get("author"):
                made_comment["author"] = user.get("name") or comment.get("author")
            for theirs, ours in (("created_at", "created"), ("updated_at", "updated")):
                if comment.get(theirs) or comment.get(ours):
                    made_comment[ours] = str(comment.get(theirs) or comment.get(ours))
            comments.append(made_comment)
        if comments:
            scenario["comments"] = comments
        scenario["interactions"] = turns
        yield scenario


def read_hub(text: str, path: Path) -> list[dict[str, Any]]:
    """A JSON list, or JSON Lines, of Hub scenarios."""
    stripped = text.strip()
    try:
        if stripped.startswith("["):
            data = json.loads(stripped)
            return list(data)
        # Lines end at \n only: str.splitlines would cut a row at a raw U+2028 (JSON
        # allows it in a string, and `hub export` writes it so).
        return [json.loads(line) for line in text.split("\n") if line.strip()]
    except ValueError as exc:
        raise CurateError(f"{path}: not JSON or JSON Lines: {exc}") from None
    except RecursionError:
        raise CurateError(f"{path}: nested too deeply to be read") from None


def each_hub_row(path: Path) -> Iterator[dict[str, Any]]:
    """The Hub scenarios of a file, one at a time: JSON Lines read line by line (never
    the whole file at once); a JSON list read whole. CurateError for what is not JSON,
    naming the line."""
    try:
        with path.open(encoding="utf-8") as source:
            head = source.read(4096)
            if head.lstrip().startswith("["):
                yield from read_hub(head + source.read(), path)
                return
            source.seek(0)
            for number, line in enumerate(source, 1):
                if not line.strip():
                    continue
                try:
                    yield json.loads(line)
                except ValueError as exc:
                    raise CurateError(f"{path}:{number}: not JSON or JSON Lines: {exc}") from None
                except RecursionError:
                    raise CurateError(f"{path}:{number}: nested too deeply to be read") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CurateError(f"{path}: cannot read: {exc}") from None


def write_rows(path: Path, rows: Sequence[dict[str, Any]], name: str) -> str:
    """A new dataset file holding the rows, in the format its name says."""
    if path.suffix == ".jsonl":
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    if path.suffix == ".json":
        return (
            json.dumps({"name": name, "scenarios": list(rows)}, ensure_ascii=False, indent=2) + "\n"
        )
    import yaml

    return yaml.safe_dump(
        {"name": name, "scenarios": list(rows)}, sort_keys=False, allow_unicode=True, width=100
    )


def split_rows(
    path: Path, rows: Sequence[dict[str, Any]], name: str, fits: Callable[[Path, str], bool]
) -> list[tuple[Path, str]]:
    """The rows as YAML (or JSON) dataset files that each `fits` the limits of one file:
    NAME-1.dataset.yaml, NAME-2.dataset.yaml, ... beside `path`, in order, as few as halving
    finds (a JSON Lines dataset has no such need: its limits are per row)."""
    stem, _, rest = path.name.partition(".")
    count = 2
    while True:
        size = -(-len(rows) // count)
        chunks = [rows[at : at + size] for at in range(0, len(rows), size)]
        width = len(str(len(chunks)))
        parts = [
            (path.with_name(f"{stem}-{i + 1:0{width}d}.{rest}"), write_rows(path, chunk, name))
            for i, chunk in enumerate(chunks)
        ]
        if all(fits(part, text) for part, text in parts) or size == 1:
            return parts
        count *= 2
