"""`hub export` / `hub import` keep a scenario's annotations (the generation provenance),
through the Hub SDK's own models (giskard-hub 3.2.1) too (issue 35 item 8e)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from tests.support.cli import Done, run_main

hub_types = pytest.importorskip("giskard_hub.types.scenario")

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]
DATASET = """name: gen
scenarios:
  - name: shipping question
    status: draft
    annotations:
      generated: {by: checkspec generate, source: kb/shipping.md, chunk: 0, seed: 0}
    interactions:
      - input: {messages: [{role: user, content: "Do you ship to Norway?"}]}
        checks:
          - identifier: hub_correctness
            params: {reference: "Yes, with a customs form."}
"""


def cli(cwd: Path, *args: str) -> Done:
    return run_main(cwd, *args)


def test_annotations_survive_export_the_sdk_and_import(tmp_path: Path) -> None:
    (tmp_path / "a.dataset.yaml").write_text(DATASET, encoding="utf-8")
    assert cli(tmp_path, "hub", "export", "a.dataset.yaml", "-o", "x.jsonl").returncode == 0
    row = json.loads((tmp_path / "x.jsonl").read_text().splitlines()[0])
    assert row["annotations"]["generated"]["source"] == "kb/shipping.md"
    # The Hub's own model reads it and writes it back (its models keep extra fields).
    through_sdk = hub_types.Scenario.model_validate(row).model_dump(mode="json", by_alias=True)
    assert through_sdk["annotations"] == row["annotations"]
    (tmp_path / "y.jsonl").write_text(json.dumps(through_sdk) + "\n", encoding="utf-8")
    done = cli(tmp_path, "hub", "import", "y.jsonl", "--to", "b.dataset.yaml")
    assert done.returncode == 0, done.stderr
    back = yaml.safe_load((tmp_path / "b.dataset.yaml").read_text())["scenarios"][0]
    hub = back["annotations"].pop("hub")  # the Hub's identity, for a byte-stable export
    assert hub["id"] == row["id"] and hub["dataset_id"] == row["dataset_id"]
    assert back["annotations"] == yaml.safe_load(DATASET)["scenarios"][0]["annotations"]
    validated = cli(tmp_path, "validate", "b.dataset.yaml")
    assert validated.returncode == 0, validated.stderr
