"""The Hub's format both ways, proved with the Hub's own SDK (giskard-hub 3.2.1, a dev
dependency): what `checkspec hub export` writes loads field for field into its
`Scenario`, `Interaction` and `ScenarioComment`, and what the SDK writes imports back."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.support.cli import Done, run_main

hub_types = pytest.importorskip("giskard_hub.types.scenario")

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]

DATASET = """\
name: faq  # reviewed weekly
tags: [support]
scenarios:
  - name: refund window
    tags: [billing]
    status: draft
    comments:
      - {content: "is 30 days right?", author: Zoë, created: "2026-01-02T03:04:05Z"}
    interactions:
      - input: {messages: [{role: user, content: Can I get my money back?}]}
        output: {response: {role: assistant, content: Within 30 days.}}
        checks:
          - {identifier: string_matching, params: {keyword: "30"}}
          - {identifier: regex_matching, params: {pattern: 'days?'}, enabled: false}
  - interactions:
      - input: {messages: [{role: user, content: Où est ma commande ?}]}
"""


def cli(cwd: Path, *args: str) -> Done:
    return run_main(cwd, *args)


def test_the_export_loads_into_the_sdk_models(tmp_path: Path) -> None:
    (tmp_path / "faq.dataset.yaml").write_text(DATASET)
    done = cli(tmp_path, "hub", "export", "faq.dataset.yaml")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    first, second = (hub_types.Scenario.model_validate(row) for row in rows)
    assert first.id == "faq.dataset.yaml::refund window" and first.dataset_id == "faq"
    assert first.tags == ["support", "billing"] and first.status == "draft"
    (comment,) = first.comments
    assert isinstance(comment, hub_types.ScenarioComment)
    assert comment.content == "is 30 days right?" and comment.user.name == "Zoë"
    assert comment.created_at.isoformat() == "2026-01-02T03:04:05+00:00"
    (turn,) = first.interactions or []
    assert turn.input == {"messages": [{"role": "user", "content": "Can I get my money back?"}]}
    assert turn.output == {"response": {"role": "assistant", "content": "Within 30 days."}}
    checks = turn.checks or []
    assert [(c.check_id, c.spec, c.enabled) for c in checks] == [
        ("string_matching", {"keyword": "30"}, True),
        ("regex_matching", {"pattern": "days?"}, False),
    ]
    assert second.id == "faq.dataset.yaml::#1" and second.status == "active"
    assert second.tags == ["support"] and second.comments == []


def test_what_the_sdk_writes_imports_back(tmp_path: Path) -> None:
    (tmp_path / "faq.dataset.yaml").write_text(DATASET)
    exported = cli(tmp_path, "hub", "export", "faq.dataset.yaml").stdout
    # Objects the SDK made, written as the SDK writes them (its API names: `comment`).
    written = [
        hub_types.Scenario.model_validate(json.loads(line)).model_dump(mode="json", by_alias=True)
        for line in exported.splitlines()
    ]
    (tmp_path / "from-hub.jsonl").write_text("".join(json.dumps(r) + "\n" for r in written))
    for target in ("back.dataset.yaml", "back.dataset.jsonl"):
        done = cli(tmp_path, "hub", "import", "from-hub.jsonl", "--to", target)
        assert done.returncode == 0, done.stderr
        assert cli(tmp_path, "validate", target).returncode == 0
        again = cli(tmp_path, "hub", "export", target).stdout
        theirs = [
            hub_types.Scenario.model_validate(json.loads(line)) for line in again.splitlines()
        ]
        ours = [hub_types.Scenario.model_validate(r) for r in written]
        for before, after in zip(ours, theirs, strict=True):
            assert after.tags == before.tags and after.status == before.status
            assert [c.content for c in after.comments] == [c.content for c in before.comments]
            assert [c.user.name for c in after.comments] == [c.user.name for c in before.comments]
            assert after.interactions is not None and before.interactions is not None
            assert [i.model_dump() for i in after.interactions] == [
                i.model_dump() for i in before.interactions
            ]
    assert (
        cli(tmp_path, "hub", "import", "from-hub.jsonl", "--to", "back.dataset.yaml").returncode
        == 2
    )


def test_a_suite_is_not_in_the_hub_format(tmp_path: Path) -> None:
    (tmp_path / "s.suite.yaml").write_text("name: s\nscenarios:\n  - name: a\n    steps: []\n")
    done = cli(tmp_path, "hub", "export", "s.suite.yaml")
    assert done.returncode == 2 and "only datasets" in done.stderr
