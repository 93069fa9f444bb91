"""`checkspec validate` on hostile files: exit 2, a located message, no traceback, no hang.

Each file runs in a real `checkspec validate` process. The bound (20 s) proves "does not
hang"; bench/hardening.py measures the real times (each well under 2 s).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

CHECKSPEC = str(Path(sys.executable).parent / "checkspec")
BOUND = 20.0


def _dataset(output_schema: object, output: object) -> str:
    return json.dumps(
        {
            "name": "hostile",
            "input_schema": {"type": "string"},
            "output_schema": output_schema,
            "scenarios": [{"interactions": [{"input": "hi", "output": output}]}],
        },
        indent=2,
    )


def _check(check: str) -> str:
    return (
        "name: hostile\nsteps:\n  - interacts:\n      - inputs: hi\n        outputs: hello\n"
        f"    checks:\n      - {check}\n"
    )


HOSTILE: dict[str, tuple[str, str | None, str]] = {
    # name: (text, the text the message must point at (None: 1:1), the message as a regex)
    "redos.dataset.json": (
        _dataset({"type": "string", "pattern": "^(a|aa)+$"}, "a" * 50 + "b"),
        '"^(a|aa)+$"',
        r"error: output_schema: checking a recorded output against the pattern '\^\(a\|aa\)\+\$' "
        r"took more than 0.25 s",
    ),
    "remote-ref.dataset.json": (
        _dataset({"$ref": "http://127.0.0.1:9/x.json"}, "hello"),
        '"http://127.0.0.1:9/x.json"',
        r"error: output_schema: \$ref 'http://127.0.0.1:9/x.json' points outside this schema",
    ),
    "deep-prompt.scenario.yaml": (
        _check("{kind: llm_judge, prompt: '{{ " + "(" * 80 + "1" + ")" * 80 + " }}'}"),
        "{{ (((",
        r"error: Jinja2: brackets are nested more than 30 deep",
    ),
    "deep-path.scenario.yaml": (
        _check("{kind: equals, expected_value: 1, key: 'trace.last.outputs" + "[0]" * 1000 + "'}"),
        "'trace.last.outputs[0]",
        r"error: Invalid JSONPath expression .*: it has 1002 steps, more than the 100",
    ),
    "deep-nesting.scenario.yaml": (
        "name: " + "[" * 5000 + "]" * 5000 + "\n",
        ":1:1006:",  # libyaml stops at its own limit: the 1,000th bracket
        r"error: nesting is deeper than 1000 levels",
    ),
    "million.scenario.yaml": (  # more than twice the node limit: refused before reading
        "name: big\nsteps: [" + ", ".join(["1"] * 1_600_000) + "]\n",
        None,
        r"error: file holds more than 750,000 YAML nodes",
    ),
    "alias-bomb.scenario.yaml": (
        "a: &a [x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n"
            for p, c in zip("abcdefgh", "bcdefghi", strict=True)
        ),
        ":7:8:",  # the alias that crosses the limit
        r"error: YAML aliases expand to more than 750,000 nodes",
    ),
    "huge.scenario.yaml": (
        "name: x\n" + "# padding\n" * 1_100_000,
        None,
        r"error: file is 11.0 MB, over the 10 MB limit",
    ),
}


def where(text: str, needle: str | None) -> str:
    """`line:col:` (1-based) where `needle` starts (a `:line:col:` is taken as it is)."""
    if needle is None:
        return ":1:1:"
    if needle.startswith(":"):
        return needle
    index = text.index(needle)
    line = text.count("\n", 0, index)
    return f":{line + 1}:{index - (text.rfind(chr(10), 0, index) + 1) + 1}:"


@pytest.mark.parametrize("name", HOSTILE)
def test_validate_exits_2_with_a_located_message(tmp_path: Path, name: str) -> None:
    text, needle, expected = HOSTILE[name]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    started = time.monotonic()
    done = subprocess.run(
        [CHECKSPEC, "validate", str(path)],
        capture_output=True,
        text=True,
        timeout=BOUND,
        check=False,
    )
    assert time.monotonic() - started < BOUND
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    located = re.escape(f"{path}{where(text, needle)} ") + expected
    assert re.search(located, done.stderr), done.stderr


def test_an_unreadable_checkspec_yaml_is_a_located_problem(tmp_path: Path) -> None:
    (tmp_path / "checkspec.yaml").write_bytes(b"model: \xff\xfe\n")
    (tmp_path / "a.scenario.yaml").write_text("name: a\nsteps: []\n", encoding="utf-8")
    done = subprocess.run(
        [CHECKSPEC, "validate", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=BOUND,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "checkspec.yaml:1:1: error: checkspec.yaml is not UTF-8 text" in done.stderr
