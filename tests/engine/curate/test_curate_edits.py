"""Property tests of the curation edits: over generated files (comments, tabs in comments,
flow and block styles, quoting, odd Unicode, CRLF, JSON, JSON Lines), an edit changes only
the lines of the scenarios it selects, and the file reads back with exactly that change."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checkspec.engine.curate import edits
from checkspec.engine.curate.files import SpecFile, parse_spec, read_spec
from checkspec.engine.curate.operations import plan
from checkspec.engine.curate.select import Selected
from checkspec.engine.spec.source import parse_source

WORDS = st.sampled_from(
    [
        "refund",
        "billing",
        "needs review",
        "ünïcode",
        "a:b",
        "#hash",
        "x, y",
        "[x]",
        "yes",
        "null",
        "123",
        "é\u2028f",
        "tab\there",
        "quote'",
        'dq"',
        "日本語",
        "-dash",
        "ok",
    ]
)


def yaml_quote(text: str, style: int) -> str:
    if (
        style == 0
        and text.isascii()
        and text.replace(" ", "").isalpha()
        and text not in ("yes", "no", "null", "true", "false", "on", "off", "y", "n")
    ):
        return text
    if style == 1 and "\n" not in text and "\u2028" not in text and "\t" not in text:
        return "'" + text.replace("'", "''") + "'"
    return edits.json_string(text)


@st.composite
def yaml_suites(draw: st.DrawFn) -> str:
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    pad = draw(st.sampled_from(["", "  "]))
    lines = [draw(st.sampled_from(["# a suite\t(tab in a comment)", "", "---"])), "name: gen"]
    lines.append("scenarios:  # the list")
    count = draw(st.integers(1, 5))
    for n in range(count):
        if draw(st.booleans()):
            lines.append(pad + "# about the next one")
        name = yaml_quote(f"case {n} " + draw(WORDS), draw(st.integers(0, 2)))
        comment = draw(st.sampled_from(["", "   # named", "  #\ttab"]))
        if draw(st.booleans()):
            lines.append(f"{pad}- name: {name}" + comment)
        else:  # the item under a lone dash
            lines += [f"{pad}-", f"{pad}  name: {name}" + comment]
        tags = draw(st.lists(WORDS, max_size=3, unique=True))
        style = draw(st.sampled_from(["flow", "block", "none"]))
        if (style == "flow" and tags) or (style == "flow" and draw(st.booleans())):
            shown = ", ".join(yaml_quote(t, 2) for t in tags)
            lines.append(f"{pad}  tags: [{shown}]")
        elif style == "block" and tags:
            lines.append(f"{pad}  tags:")
            lines += [f"{pad}    - {yaml_quote(t, 2)}" for t in tags]
        if draw(st.booleans()):
            lines.append(f"{pad}  steps:")
            lines.append(f"{pad}    - interacts:")
            lines.append(f"{pad}        - inputs: {yaml_quote(draw(WORDS), 2)}")
            lines.append(f"{pad}      checks:")
            lines.append(f"{pad}        - {{kind: string_matching, keyword: x}}")
            lines.append(f"{pad}        - kind: regex_matching  # pattern below")
            lines.append(f"{pad}          pattern: '^a'")
        else:
            lines.append(f"{pad}  steps: [{{interacts: [{{inputs: q, outputs: a}}]}}]")
        if draw(st.booleans()):
            lines.append("")
    if draw(st.booleans()):
        lines.append("# trailing comment")
    text = eol.join(lines)
    return text + (eol if draw(st.booleans()) else "")


@st.composite
def json_suites(draw: st.DrawFn) -> tuple[str, str]:
    count = draw(st.integers(1, 5))
    scenarios: list[dict[str, Any]] = []
    for n in range(count):
        item: dict[str, Any] = {"name": f"case {n} " + draw(WORDS)}
        if draw(st.booleans()):
            item["tags"] = draw(st.lists(WORDS, max_size=3, unique=True))
        item["steps"] = [{"interacts": [{"inputs": "q", "outputs": "a"}]}]
        scenarios.append(item)
    kind = draw(st.sampled_from(["json", "json-pretty", "jsonl"]))
    if kind == "jsonl":
        return "gen.dataset.jsonl", "".join(
            json.dumps(_row(s), ensure_ascii=draw(st.booleans())) + "\n" for s in scenarios
        )
    indent = 2 if kind == "json-pretty" else None
    return "gen.suite.json", json.dumps({"name": "gen", "scenarios": scenarios}, indent=indent)


def _row(scenario: dict[str, Any]) -> dict[str, Any]:
    row = {k: v for k, v in scenario.items() if k != "steps"}
    row["interactions"] = [{"input": "q", "output": "a"}]
    return row


OPERATIONS = st.sampled_from(["tag add", "tag remove", "status", "comment", "delete", "disable"])


def run(spec: SpecFile, operation: str, chosen: list[int], tag: str) -> edits.Editor:
    editor = edits.Editor(spec)
    items = [spec.items[i] for i in chosen]
    if operation == "delete":
        edits.delete_items(editor, items)
    for item in items if operation != "delete" else ():
        if operation == "tag add":
            edits.add_tags(editor, item, [tag])
        elif operation == "tag remove":
            edits.remove_tags(editor, item, [tag, *item.tags[:1]])
        elif operation == "status":
            edits.set_status(editor, item, "draft")
        elif operation == "comment":
            edits.add_comment(editor, item, {"content": f"{tag}: ok # no", "author": "Zoë"})
        else:
            edits.set_checks_enabled(editor, item, ["regex_matching"], False)
    return editor


def expected_values(spec: SpecFile, operation: str, chosen: list[int], tag: str) -> list[Any]:
    values = []
    for item in spec.items:
        value = json.loads(json.dumps(item.node.value))
        if item.index in chosen:
            if operation == "delete":
                continue
            if operation == "tag add" and tag not in value.get("tags", []):
                value["tags"] = [*value.get("tags", []), tag]
            elif operation == "tag remove" and "tags" in value:
                drop = {tag, *item.tags[:1]}
                value["tags"] = [t for t in value["tags"] if t not in drop]
            elif operation == "status":
                value["status"] = "draft"
            elif operation == "comment":
                value["comments"] = [{"content": f"{tag}: ok # no", "author": "Zoë"}]
            elif operation == "disable":
                for step in value.get("steps", []):
                    for check in step.get("checks", []):
                        if check.get("kind") == "regex_matching":
                            check["enabled"] = False
        values.append(value)
    return values


def check_edit(path: str, text: str, operation: str, data: st.DataObject) -> None:
    spec = parse_spec(Path(path), text.encode(), text)
    count = len(spec.items)
    chosen = sorted(data.draw(st.sets(st.integers(0, count - 1), min_size=1), label="chosen"))
    tag = data.draw(WORDS, label="tag")
    editor = run(spec, operation, chosen, tag)
    new = editor.result()
    # It reads back as exactly the change.
    again = parse_spec(Path(path), new.encode(), new)
    assert [json.loads(json.dumps(i.node.value)) for i in again.items] == expected_values(
        spec, operation, chosen, tag
    )
    if spec.root is not None:
        before = {k: v for k, v in spec.root.value.items() if k != "scenarios"}
        assert again.root is not None
        assert {k: v for k, v in again.root.value.items() if k != "scenarios"} == before
    # Every edit lies on the lines of a chosen scenario (an insert may also go right
    # after its last line): the rest of the file is byte for byte what it was.
    spans = []
    for i in chosen:
        node = spec.items[i].node
        first = editor.dash_line(node) if spec.format == "yaml" else node.line
        last = editor.last_line(node)
        lo, hi = editor.line_start(first), editor.after_line(last)[0]
        seq = spec.scenarios_node
        if seq is not None and editor.is_flow(seq):  # the separators around it too
            items = seq.items
            lo = min(lo, editor.end(items[i - 1]) if i else editor.start(seq))
            hi = max(hi, editor.start(items[i + 1]) if i + 1 < count else editor.end(seq))
        spans.append((lo, hi))
    seq = spec.scenarios_node
    if operation == "delete" and len(chosen) == count and seq is not None and spec.root:
        key = spec.root.key_node("scenarios")
        assert key is not None  # `scenarios: []`, and the comments between the items go
        spans.append((editor.line_start(key.line), spans[-1][1]))
    merged: list[tuple[int, int]] = []  # neighbours' spans meet over their separator
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    spans = merged
    for edit in editor.edits:
        assert any(lo <= edit.start and edit.end <= hi for lo, hi in spans), (edit, spans)
    assert edits.apply_edits(text, []) == text
    # Line ends are the file's own.
    if "\r\n" in text:
        assert new.count("\n") == new.count("\r\n")
    if spec.format == "yaml":
        assert parse_source(new).problems == [] or all(
            p.severity.name != "ERROR" for p in parse_source(new).problems
        )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=yaml_suites(), operation=OPERATIONS, data=st.data())
def test_yaml_edits_change_only_the_chosen_scenarios(text: str, operation: str, data) -> None:
    check_edit("gen.suite.yaml", text, operation, data)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(file=json_suites(), operation=OPERATIONS, data=st.data())
def test_json_edits_change_only_the_chosen_scenarios(
    file: tuple[str, str], operation: str, data
) -> None:
    path, text = file
    if operation == "disable":
        operation = "status"
    check_edit(path, text, operation, data)


def test_plain_scalars_are_quoted_when_yaml_would_read_them_otherwise() -> None:
    for value in [
        "ünï",
        "日本語 ✓",
        "a_b-c",
        "Yes",
        "NULL",
        "yes",
        "null",
        "123",
        "a: b",
        "x #y",
        "[x]",
        "-a",
        "é\u2028f",
        "\x85",
        "~",
        "",
    ]:
        text = f"k: {edits.yaml_scalar(value)}\n"
        root = parse_source(text).root
        assert root is not None and root.value == {"k": value}, value


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=yaml_suites(),
    words=st.lists(WORDS, min_size=1, max_size=2),
    tags=st.lists(WORDS, max_size=1),
)
def test_a_scan_finds_what_a_full_read_finds(tmp_path_factory, text: str, words, tags) -> None:
    """`list scenarios --query` reads only the items whose text may match: it must find
    exactly what reading the whole file and matching every value finds, and refuse a
    selection that chooses nothing with the same words."""
    from checkspec.engine.curate.files import CurateError
    from checkspec.engine.curate.select import select

    folder = tmp_path_factory.mktemp("scan")
    path = folder / "gen.suite.yaml"
    path.write_bytes(text.encode())
    query = " ".join(words)

    def found(quick: bool) -> list[tuple[int, int, str]] | str:
        try:
            chosen = select([str(path)], query=query, tags=tags, quick=quick)
        except CurateError as refused:
            return str(refused)
        return [(i.index, i.line, i.name) for group in chosen for i in group.items]

    assert found(True) == found(False)


TARGETS = {
    "new.suite.yaml": None,
    "new.suite.json": None,
    "block.suite.yaml": "name: t  # kept\nscenarios:\n  - name: here\n    steps: []\n",
    "flow.suite.yaml": "{name: t, scenarios: [{name: here, steps: []}]}\n",
    "pretty.suite.json": '{\n  "name": "t",\n  "scenarios": [\n    {"name": "here", "steps": []}\n  ]\n}\n',
}


@st.composite
def move_sources(draw: st.DrawFn) -> tuple[str, str]:
    """A YAML suite in block style, or in flow style (a JSON text is YAML flow), or JSON."""
    style = draw(st.sampled_from(["block", "flow", "json"]))
    if style == "block":
        return "from.suite.yaml", draw(yaml_suites())
    path, text = draw(json_suites())
    while path.endswith(".jsonl"):
        path, text = draw(json_suites())
    return ("from.suite.yaml" if style == "flow" else "from.suite.json"), text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=move_sources(), target=st.sampled_from(sorted(TARGETS)), data=st.data())
def test_a_move_carries_the_scenarios_values_and_the_source_loses_only_them(
    tmp_path_factory, source: tuple[str, str], target: str, data
) -> None:
    folder = tmp_path_factory.mktemp("move")
    name, text = source
    (folder / name).write_bytes(text.encode())
    if TARGETS[target] is not None:
        (folder / target).write_text(TARGETS[target])
    spec = read_spec(folder / name)
    count = len(spec.items)
    chosen = sorted(data.draw(st.sets(st.integers(0, count - 1), min_size=1), label="chosen"))
    values = [json.loads(json.dumps(i.node.value)) for i in spec.items]
    done = plan("move", [Selected(spec, [spec.items[i] for i in chosen])], to=folder / target)
    texts = {part.path.name: part.new for part in done.files}
    moved = texts[target]
    assert moved is not None
    read_back = parse_spec(folder / target, moved.encode(), moved)  # no syntax error
    already = [{"name": "here", "steps": []}] if TARGETS[target] is not None else []
    assert [json.loads(json.dumps(i.node.value)) for i in read_back.items] == already + [
        values[i] for i in chosen
    ]
    left = texts[name]
    assert left is not None
    again = parse_spec(folder / name, left.encode(), left)
    assert [json.loads(json.dumps(i.node.value)) for i in again.items] == [
        v for i, v in enumerate(values) if i not in chosen
    ]
