"""Random spec texts for property and fuzz tests, with what their ranges must point at.

A text mixes every line end (`\\n`, `\\r\\n`, `\\r`), ends with or without a final break,
sometimes starts with a BOM, and carries characters editors and YAML 1.1 disagree about
(U+0085, U+2028, U+2029), characters outside the BMP and any other code point in its
names, values and comments. `expected` lists (problem code or "symbol", text) pairs: the
range reported for it must cover exactly that text.
"""

from __future__ import annotations

import json
import random
import textwrap
from dataclasses import dataclass, field

from checkspec.engine.spec.workspace import workspace_from_text
from tests.support.paths import EXAMPLES

LINE_ENDS = ("\n", "\r\n", "\r")
TRICKY = ("\u2028", "\u2029", "\x85", "\ufeff", "\t", "é", "中", "🎉", "\U0001f600", "#", ":")
KINDS = (
    ("string_matching", "keyword"),
    ("regex_matching", "pattern"),
    ("strng_matching", "keyword"),  # misspelt: an unknown-kind problem at the kind
    ("regx_matching", "pattern"),
)


@dataclass
class SpecText:
    text: str
    expected: list[tuple[str, str]] = field(default_factory=list)


def random_text(r: random.Random, longest: int = 12) -> str:
    chars = []
    for _ in range(r.randint(0, longest)):
        roll = r.random()
        if roll < 0.55:
            chars.append(r.choice("abcdefghijklmnopqrstuvwxyz ABC0123456789-_.,!?"))
        elif roll < 0.85:
            chars.append(r.choice(TRICKY))
        else:  # any code point but a lone surrogate (not text)
            code = r.randint(0x20, 0x10FFFF)
            chars.append(chr(code) if not 0xD800 <= code <= 0xDFFF else "x")
    return "".join(chars)


def quoted(value: str) -> str:
    """A YAML double-quoted scalar (JSON escapes) that keeps U+2028/2029/0085 as they are."""
    return json.dumps(value, ensure_ascii=False)


def comment(r: random.Random) -> str:
    return f"  # {random_text(r)}" if r.random() < 0.5 else ""


def random_spec(r: random.Random) -> SpecText:
    """A scenario file with a named scenario, one interaction and a few checks."""
    name = random_text(r) or "n"
    spec = SpecText("")
    lines = [f"# {random_text(r)}", f"name: {quoted(name)}{comment(r)}", "steps:"]
    spec.expected.append(("symbol", quoted(name)))
    lines.append("  - interacts:")
    lines.append(f"      - inputs: {quoted(random_text(r))}{comment(r)}")
    lines.append(f"        outputs: {quoted(random_text(r))}{comment(r)}")
    lines.append("    checks:")
    for _ in range(r.randint(1, 3)):
        kind, param = r.choice(KINDS)
        lines.append(f"      - kind: {kind}{comment(r)}")
        value = "a+" if param == "pattern" else random_text(r) or "k"
        lines.append(f"        {param}: {quoted(value)}")
        if kind.startswith(("strng", "regx")):
            spec.expected.append(("unknown-kind", kind))
    if r.random() < 0.3:
        lines.append(f"        keywrd: {quoted(random_text(r))}")  # unknown-parameter
    text = "".join(line + r.choice(LINE_ENDS) for line in lines[:-1]) + lines[-1]
    if r.random() < 0.6:
        text += r.choice(LINE_ENDS)
    if r.random() < 0.15:
        text = "\ufeff" + text
    spec.text = text
    return spec


def random_edit(r: random.Random, text: str) -> str:
    """One edit a person might make while typing: insert, delete or replace a span."""
    if not text:
        return random_text(r)
    start = r.randint(0, len(text))
    end = min(len(text), start + r.randint(0, 8))
    roll = r.random()
    if roll < 0.4:
        return text[:start] + random_text(r, 6) + text[start:]
    if roll < 0.7:
        return text[:start] + text[end:]
    if roll < 0.85:
        return text[:start] + r.choice(LINE_ENDS) + text[start:]
    return text[:start] + r.choice(("  ", "- ", ": ", "{", "[", '"', "'", "|\n")) + text[end:]


def edit_sequence(r: random.Random, original: str, count: int) -> list[str]:
    """Texts a few random edits away from `original`, as while typing and undoing."""
    texts, text = [], original
    for _ in range(count):
        if r.random() < 0.25:  # undo back to the start: keep near a working file
            text = original
        text = random_edit(r, text)
        texts.append(text)
    return texts


WORKSPACE = workspace_from_text(
    (EXAMPLES / "checkspec.yaml").read_text(encoding="utf-8"), EXAMPLES / "checkspec.yaml"
)


def _scenario(index: int, indent: str) -> str:
    i = indent
    return (
        f"{i}- name: case {index}  # a comment\n"
        f"{i}  steps:\n"
        f"{i}    - interacts:\n"
        f"{i}        - inputs: Where is order #{index}?\n"
        f"{i}          outputs: 'It ships on day {index}'\n"
        f"{i}      checks:\n"
        f"{i}        - kind: {'equalz' if index % 4 == 1 else 'string_matching'}\n"
        f"{i}          keyword: ships\n"
        f"{i}        - kind: regex_matching\n"
        f'{i}          pattern: "day \\\\d+"\n'
        f"{i}          text_key: trace.last.outputs\n"
        f"{i}        - kind: custom_tone\n"
        f"{i}        - kind: all_of\n"
        f"{i}          checks:\n"
        f"{i}          - kind: equals\n"
        f"{i}            expected_value: |\n"
        f"{i}              It ships\n"
        f"{i}\n"
        f"{i}              on day {index}\n"
    )


def suite(count: int, *, indent: str = "", tail: bool = False) -> str:
    text = "# a suite\nname: big\ntarget: python:agent:answer\ntags: [a, b]\nscenarios:\n"
    text += "".join(_scenario(i, indent) for i in range(count))
    if tail:
        text += "# after the list\ndescription: the end\nextra: [1, 2]\n"
    return text


MISSPELT = """
name: refund
steps:
  - interacts:
      - inputs: What is your refund policy?
        outputs: We offer a 30-day refund.
    checks:
      - kind: string_matchng
        keyword: 30-day
"""


def agent_scenario(
    name: str, target: str, check: str = "{kind: string_matching, keyword: ok}"
) -> str:
    """One scenario of a suite's `scenarios:` list asking `python:agent:<target>` its
    name, with one check (indented for the list)."""
    return textwrap.indent(
        textwrap.dedent(
            f"""\
            - name: {name}
              target: python:agent:{target}
              steps:
                - interacts: [{{inputs: {name}}}]
                  checks: [{check}]
            """
        ),
        "  ",
    )
