"""The catalog (engine/catalog.py) is the one description of file kinds and settings, and
what renders it follows it."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

from checkspec.engine.catalog import (
    FILE_KINDS,
    SETTINGS,
    FileKind,
    editor_catalog,
    fields_of,
    jsonpath_keys,
    kind_from_name,
    kind_from_schema,
)
from checkspec.engine.judges.groundedness import Groundedness
from checkspec.engine.schema_gen import CATALOG_FILE
from checkspec.engine.settings import Settings, editor_overrides, resolve_settings
from checkspec.engine.spec.workspace import find_config, find_workspace
from checkspec.engine.spec.workspace_config import WorkspaceConfig
from tests.support.paths import REPO

ROOT = REPO


def test_every_setting_is_in_checkspec_yaml_and_in_settings_with_its_default() -> None:
    config = WorkspaceConfig.model_fields
    resolved = {f.name: f.default for f in fields(Settings)}
    for setting in SETTINGS:
        assert config[setting.name].default == setting.default, setting.name
        assert config[setting.name].description == setting.description, setting.name
        assert resolved[setting.name] == setting.default, setting.name


def test_editor_settings_follow_the_catalog_bounds() -> None:
    assert editor_overrides({"jobs": 0, "concurrency": 0}) == {"jobs": 0}
    assert editor_overrides({"concurrency": 257, "targetTimeout": 0}) == {}
    assert editor_overrides({"maxFileSize": 1.5, "scenarioTimeout": float("nan")}) == {}
    assert editor_overrides({"target_timeout": 2.5, "cacheDir": " c "}) == {
        "target_timeout": 2.5,
        "cache_dir": "c",
    }


def test_file_kinds_by_name_and_by_schema() -> None:
    assert kind_from_name("a/b.scenario.yml") is FileKind.SCENARIO
    assert kind_from_name("x.dataset.jsonl") is FileKind.DATASET
    assert kind_from_name("x.suite.jsonl") is None
    assert kind_from_name("checkspec.yml") is FileKind.CONFIG
    assert kind_from_name("my-checkspec.yaml") is None
    assert kind_from_schema("https://checkspec.dev/schemas/suite.schema.json") is FileKind.SUITE
    assert {spec.kind for spec in FILE_KINDS} == set(FileKind)


def test_spellings_come_from_the_models() -> None:
    spec = fields_of(Groundedness)["target_key"]
    assert spec.aliases == ("answer_key",)
    assert spec.deprecated == ("key", "text_key")
    assert spec.jsonpath
    keys = jsonpath_keys("groundedness")
    assert {"target_key", "answer_key", "key", "text_key", "context_key"} <= keys
    assert "keyword" not in keys and "answer" not in keys
    assert jsonpath_keys("custom_unknown") == frozenset() == jsonpath_keys(3)


def test_the_editor_catalog_is_committed(tmp_path: Path) -> None:
    committed = json.loads((ROOT / "schemas" / CATALOG_FILE).read_text(encoding="utf-8"))
    assert committed == json.loads(json.dumps(editor_catalog()))
    keys = [s["key"] for s in committed["settings"]]
    assert "targetTimeout" in keys and "cache" not in keys  # switches: checkspec.yaml only


def test_importing_the_catalog_loads_no_pydantic() -> None:
    # The CLI's --help renders settings from it: the module alone must cost nothing.
    path = ROOT / "engine" / "catalog.py"
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('catalog_alone', {str(path)!r})\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "sys.modules['catalog_alone'] = module\n"
        "spec.loader.exec_module(module)\n"
        "assert module.SETTINGS and module.FILE_KINDS\n"
        "print('pydantic' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_checkspec_yml_is_a_workspace_config(tmp_path: Path) -> None:
    (tmp_path / "checkspec.yml").write_text("model: openai/x\nconcurrency: 3\n", encoding="utf-8")
    spec = tmp_path / "a" / "b.scenario.yaml"
    spec.parent.mkdir()
    spec.write_text("name: n\nsteps: []\n", encoding="utf-8")
    assert find_config(spec) == tmp_path / "checkspec.yml"
    settings = resolve_settings(find_workspace([spec]))
    assert (settings.model, settings.concurrency) == ("openai/x", 3)


def test_every_file_kind_has_a_root_model() -> None:
    from pydantic import BaseModel

    from checkspec.engine.spec.kinds import root_model

    for kind in FileKind:
        assert issubclass(root_model(kind), BaseModel), kind


def test_the_docs_list_every_settings_variable() -> None:
    """The docs' "Environment variables" table (docs/targets.md) names each CHECKSPEC_*
    variable of the catalog (a setting added without its row fails here)."""

    from checkspec.engine.catalog import SETTINGS

    page = (REPO / "docs" / "targets.md").read_text(encoding="utf-8")
    table = page.split("## Environment variables", 1)[1].split("\n## ", 1)[0]
    assert [s.env for s in SETTINGS if s.env and f"`{s.env}`" not in table] == []
