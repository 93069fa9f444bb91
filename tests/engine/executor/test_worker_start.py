"""What a worker process loads to start: not the judges, the LLM client, Jinja or the
parent's pool. Every run starts workers (spares included, which may run nothing); the
rest loads with the first scenario that needs it (unpickling an LLM check imports the
judges). The worker runs in a fresh interpreter (this one has imported everything)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

# The worker's own main(), its exit (os._exit, on the end of its input) telling first
# which modules were loaded.
WORKER = """
import json, os, sys
leave = os._exit
def telling_exit(code):
    os.write(2, ("\\n" + json.dumps(sorted(sys.modules))).encode())
    leave(code)
os._exit = telling_exit
from checkspec.engine.executor import worker
worker.main()
"""

NOT_AT_START = (
    "checkspec.engine.judges",
    "checkspec.engine.llm.client",
    "checkspec.engine.llm.prompts",
    "checkspec.engine.executor.pool",
    "checkspec.engine.executor.local",
    "jinja2",
    "litellm",
    "openai",
)


def test_a_worker_starts_without_the_judges_the_llm_client_or_the_pool() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WORKER],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stderr.decode().strip().splitlines()[-1]))
    assert "checkspec.engine.targets" in loaded  # it got as far as serving
    assert not loaded & set(NOT_AT_START), sorted(loaded & set(NOT_AT_START))


def test_the_names_loaded_when_asked_for_are_the_modules_own() -> None:
    executor = importlib.import_module("checkspec.engine.executor")
    for name in executor.__all__:
        assert name in dir(executor)
        value = getattr(executor, name)
        where = importlib.import_module(value.__module__)
        assert getattr(where, name) is value
    from checkspec.engine import settings
    from checkspec.engine.judges import backends

    assert settings.get_default_judge is backends.get_default_judge
    assert settings.set_default_judge is backends.set_default_judge
