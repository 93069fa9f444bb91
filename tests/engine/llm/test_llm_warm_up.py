"""The warm-up imports what the model's calls need: the openai SDK alone for a model sent
straight to its endpoint (`openai/NAME`), litellm otherwise (issue 38: generation kept
fast, litellm's import is most of a short run's CPU time)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

PROGRAM = textwrap.dedent(
    """
    import json, sys, threading
    from checkspec.engine.llm import client

    client.warm_up(sys.argv[1])
    for thread in threading.enumerate():
        if thread.name.endswith("-import"):
            thread.join(120)
    print(json.dumps({"openai": "openai" in sys.modules, "litellm": "litellm" in sys.modules}))
    """
)


def _imported(model: str) -> dict[str, bool]:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, model], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_direct_model_warms_up_the_openai_sdk_alone() -> None:
    assert _imported("openai/gpt-4o-mini") == {"openai": True, "litellm": False}


def test_another_model_warms_up_litellm() -> None:
    assert _imported("anthropic/claude-3-haiku")["litellm"] is True
