"""Persistent state that cannot be read (issue 31): the verdict cache and the last-failed
record are moved aside with one warning naming them, a new one starts, the run's results
and exit code are unaffected; concurrent writers lose no update."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from checkspec.engine.cli.selection import read_last_failed, write_last_failed
from checkspec.engine.llm import verdict_cache
from tests.support.cli import Done, run_main
from tests.support.openai_stub import OpenAIStub, running_stub
from tests.support.verdicts import WRITER, run, suite

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]


@pytest.fixture
def stub():
    with running_stub() as running:
        running.chat = lambda body: OpenAIStub.verdict(True, "It apologises.")
        yield running


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "checkspec.yaml").write_text("jobs: 2\n")
    (tmp_path / "j.suite.yaml").write_text(suite(["apologises", "offers a refund", "is brief"]))
    return tmp_path


def warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning:")]


def test_a_verdict_cache_of_random_bytes_is_moved_aside_and_caching_works_again(
    project: Path, stub: OpenAIStub
) -> None:
    first = run(project, stub)
    assert first.returncode == 0 and len(stub.chat_requests) == 3
    cache = project / ".checkspec" / "cache" / "verdicts.sqlite"
    for journal in cache.parent.glob("verdicts.sqlite-*"):
        journal.unlink()
    cache.write_bytes(os.urandom(20_000))

    second = run(project, stub)
    assert second.returncode == 0, second.stderr
    (warning,) = warnings(second.stderr)
    (aside,) = cache.parent.glob("verdicts.sqlite.corrupt-*")
    assert str(cache) in warning and aside.name in warning
    assert json.loads(second.stdout)["summary"] == json.loads(first.stdout)["summary"]
    assert len(stub.chat_requests) == 6  # asked again once, into a new cache

    third = run(project, stub)
    assert warnings(third.stderr) == []
    assert len(stub.chat_requests) == 6  # and kept: caching is back


def test_a_cache_corrupt_inside_is_moved_aside_when_a_query_meets_it(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", WRITER, str(tmp_path), "a"], timeout=120)
    assert done.returncode == 0
    path = tmp_path / verdict_cache.FILE_NAME
    data = bytearray(path.read_bytes())
    assert len(data) > 3 * 4096
    data[2 * 4096 :] = b"\xff" * (len(data) - 2 * 4096)  # the header is fine, the pages not
    path.write_bytes(bytes(data))
    verdict_cache.configure(tmp_path)
    try:
        for i in range(300):  # misses, never an exception
            verdict_cache.get(verdict_cache.key_of("a", i))
        assert list(tmp_path.glob("verdicts.sqlite.corrupt-*"))
        verdict_cache.put("k", {"passed": True})
        assert verdict_cache.get("k") == {"passed": True}
    finally:
        verdict_cache.configure(None)


# The last-failed record ---------------------------------------------------------------

SUITE = """
name: lf
scenarios:
  - name: good
    steps:
      - interacts: [{inputs: q, outputs: ok}]
        checks: [{kind: string_matching, keyword: ok}]
  - name: bad
    steps:
      - interacts: [{inputs: q, outputs: nope}]
        checks: [{kind: string_matching, keyword: ok}]
"""


def cli(project: Path, *args: str) -> Done:
    return run_main(project, "run", "lf.suite.yaml", *args)


@pytest.mark.parametrize("content", [b'{"fail', b"\x00\xff garbage", b'["not", "a record"]'])
def test_an_unreadable_last_failed_record_is_said_moved_aside_and_started_anew(
    tmp_path: Path, content: bytes
) -> None:
    (tmp_path / "lf.suite.yaml").write_text(SUITE)
    record = tmp_path / ".checkspec" / "lastfailed.json"
    record.parent.mkdir()
    record.write_bytes(content)

    done = cli(tmp_path, "--lf")
    assert done.returncode == 1  # as without the bad record: one scenario fails
    (warning,) = warnings(done.stderr)
    (aside,) = record.parent.glob("lastfailed.json.corrupt-*")
    assert str(record) in warning and aside.name in warning
    assert aside.read_bytes() == content
    assert "--last-failed: the last run's record is unreadable; running all" in done.stderr
    assert "no scenario failed in the last run" not in done.stderr
    assert "PASS  good" in done.stdout and "FAIL  bad" in done.stdout
    assert json.loads(record.read_text()) == {"failed": ["lf.suite.yaml::bad"]}

    again = cli(tmp_path, "--lf")
    assert warnings(again.stderr) == []
    assert "running the 1 that failed last time" in again.stderr


RECORDER = """
import sys
from pathlib import Path
from checkspec.engine.cli.selection import write_last_failed
root, name = Path(sys.argv[1]), sys.argv[2]
for i in range(300):
    write_last_failed(root, [(f"{name}::{i}", True)])
"""


def test_two_processes_updating_the_record_at_once_lose_nothing(tmp_path: Path) -> None:
    writers = [
        subprocess.Popen([sys.executable, "-c", RECORDER, str(tmp_path), name]) for name in "ab"
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0]
    assert len(read_last_failed(tmp_path)) == 600


def test_write_last_failed_repairs_an_unreadable_record(tmp_path: Path) -> None:
    (tmp_path / ".checkspec").mkdir()
    (tmp_path / ".checkspec" / "lastfailed.json").write_text("{")
    said = write_last_failed(tmp_path, [("x", True)])
    assert len(said) == 1 and "moved to lastfailed.json.corrupt-" in said[0]
    assert read_last_failed(tmp_path) == {"x"}
