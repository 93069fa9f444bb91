"""The warm-up's litellm import and a first call's openai import never run side by side.

Both import httpx; two threads importing them at once could see httpx partially
initialised ("partially initialized module 'httpx' has no attribute 'URL'"). The
interleaving is forced: an import hook holds the warm-up thread at the start of its
litellm import until the main thread begins importing openai (or a second passes).
Without a lock the main thread imports openai (and httpx) while litellm is half loaded;
with it, every import of openai and httpx happens in the warm-up thread, then the main
thread finds them loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

PROGRAM = textwrap.dedent(
    """
    import json, sys, threading

    seen = []
    litellm_started = threading.Event()
    openai_asked = threading.Event()

    class Watch:
        def find_spec(self, name, path=None, target=None):
            top = name.split(".")[0]
            thread = threading.current_thread().name
            if name == "litellm" and thread == "litellm-import":
                litellm_started.set()
                openai_asked.wait(1.0)
            if name in ("openai", "httpx"):
                seen.append([name, thread])
                if thread == "MainThread":
                    openai_asked.set()
            return None

    sys.meta_path.insert(0, Watch())
    from checkspec.engine.llm import client

    client.warm_up()
    assert litellm_started.wait(60)
    client._retryable(RuntimeError("x"))  # imports openai and httpx
    print(json.dumps(seen))
    """
)


def test_openai_import_waits_for_the_warm_up() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen, "neither openai nor httpx was imported"
    assert [thread for _, thread in seen] == ["litellm-import"] * len(seen), seen
