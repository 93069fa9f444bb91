"""Setting capture up in a worker process (engine/capture/otel.py `install`), in a fresh
interpreter as a worker is: what it loads is what each worker pays for."""

from __future__ import annotations

import json
import subprocess
import sys

SETUP = """
import json, sys
import openai
from checkspec.engine import capture
with capture.capturing("otel"):
    pass
import httpx
loaded = {"rich": "rich" in sys.modules, "click": "click" in sys.modules,
          "url": str(httpx.URL("http://127.0.0.1/v1")), "main_blocked": sys.modules.get("httpx._main", 0) is None}
import httpx._main  # the CLI module still loads for whoever asks for it
loaded["cli"] = callable(httpx._main.main)
print(json.dumps(loaded))
"""


def test_install_does_not_load_httpx_s_command_line_client() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SETUP], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    # httpx's CLI (rich, click, pygments) was two thirds of capture's set-up in a worker.
    assert loaded == {
        "rich": False,
        "click": False,
        "url": "http://127.0.0.1/v1",
        "main_blocked": False,
        "cli": True,
    }
