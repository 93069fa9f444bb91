"""The verdict cache meeting a damaged file or folder: a file that is not a database is
moved aside (once, with a warning naming where) and a new cache starts; a stored value
that is not JSON reads as a miss; a cache folder that cannot be made leaves the run
uncached; a lock that cannot be taken is said. Never an exception out of get or put."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from checkspec.engine.llm import verdict_cache

GARBAGE = b"this is no sqlite database, only text " * 200


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "cache"
    verdict_cache.configure(folder)
    try:
        yield folder
    finally:
        verdict_cache.configure(None)


def asides(folder: Path) -> list[Path]:
    return sorted(folder.glob("verdicts.sqlite.corrupt-*"))


def test_a_file_that_is_no_database_is_moved_aside_and_a_new_cache_starts(cache: Path) -> None:
    cache.mkdir()
    (cache / "verdicts.sqlite").write_bytes(GARBAGE)
    assert verdict_cache.get("k") is None  # a miss, not an error
    (aside,) = asides(cache)
    assert aside.read_bytes() == GARBAGE  # kept for whoever wants to look
    verdict_cache.put("k", {"passed": True})
    assert verdict_cache.get("k") == {"passed": True}


def test_a_page_damaged_under_a_reader_is_met_by_a_query_and_moved_aside(cache: Path) -> None:
    keys = [f"k{i}" for i in range(200)]
    for key in keys:
        verdict_cache.put(key, "x" * 1000)  # some 50 pages of 4 kB
    db_file = cache / "verdicts.sqlite"
    with sqlite3.connect(db_file) as other:
        other.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(db_file.read_bytes())
    half = len(data) // 2
    data[half:] = GARBAGE[: len(data) - half]  # the header and the first pages are whole
    db_file.write_bytes(bytes(data))
    found: list[object] = []

    def read_all() -> None:  # a thread of its own: a connection of its own, opened now
        found.extend(verdict_cache.get(key) for key in keys)

    reader = threading.Thread(target=read_all)
    reader.start()
    reader.join()
    assert None in found  # the damaged pages: misses, no exception
    assert len(asides(cache)) == 1
    # This thread's connection still reads the damaged file: its write meets the damage
    # and drops the connection (the file is aside already: not moved twice).
    verdict_cache.put("new", "lost")
    assert verdict_cache.get("new") is None and len(asides(cache)) == 1
    verdict_cache.put("new", "after")  # a new file
    assert verdict_cache.get("new") == "after" and db_file.exists()


def test_files_moved_aside_in_the_same_second_are_all_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(verdict_cache.time, "strftime", lambda _format: "20261207T120000")
    for text in (b"first damaged file", b"second damaged file"):
        (tmp_path / "verdicts.sqlite").write_bytes(text * 100)
        assert verdict_cache.repair(tmp_path) is not None
    kept = asides(tmp_path)
    assert [path.name for path in kept] == [
        "verdicts.sqlite.corrupt-20261207T120000",
        "verdicts.sqlite.corrupt-20261207T120000-2",
    ]
    assert kept[0].read_bytes().startswith(b"first") and kept[1].read_bytes().startswith(b"second")


def test_a_stored_value_that_is_not_json_reads_as_a_miss(cache: Path) -> None:
    verdict_cache.put("k", "fine")
    with sqlite3.connect(cache / "verdicts.sqlite") as other:
        other.execute("UPDATE verdicts SET value = ? WHERE key = ?", ("{not json", "k"))
    assert verdict_cache.get("k") is None
    assert asides(cache) == []  # a bad value is no damaged file


def test_a_cache_folder_that_cannot_be_made_leaves_the_run_uncached(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("a file where the folder would go")
    verdict_cache.configure(tmp_path / "taken" / "cache")
    try:
        verdict_cache.put("k", 1)
        assert verdict_cache.get("k") is None
    finally:
        verdict_cache.configure(None)


def test_repair_leaves_a_readable_cache_and_says_where_a_damaged_one_went(tmp_path: Path) -> None:
    assert verdict_cache.repair(tmp_path) is None  # no file: nothing to say
    with sqlite3.connect(tmp_path / "verdicts.sqlite") as other:  # a database, if empty
        other.execute("CREATE TABLE other (x)")
    assert verdict_cache.repair(tmp_path) is None  # readable: left as it is
    (tmp_path / "verdicts.sqlite").write_bytes(GARBAGE)
    said = verdict_cache.repair(tmp_path)
    (aside,) = asides(tmp_path)
    assert said == (
        f"warning: the verdict cache {tmp_path / 'verdicts.sqlite'} could not be read; "
        f"moved to {aside.name}, starting anew"
    )
    assert not (tmp_path / "verdicts.sqlite").exists()


def test_repair_says_when_the_file_can_be_neither_read_nor_moved(tmp_path: Path) -> None:
    (tmp_path / "verdicts.sqlite").write_bytes(GARBAGE)
    (tmp_path / "verdicts.sqlite.lock").mkdir()  # the lock file cannot be opened
    said = verdict_cache.repair(tmp_path)
    assert said is not None
    assert said.startswith(
        f"warning: the verdict cache {tmp_path / 'verdicts.sqlite'} cannot be read nor moved aside"
    )
    assert (tmp_path / "verdicts.sqlite").read_bytes() == GARBAGE  # left where it was
