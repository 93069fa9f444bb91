"""The benchmark's own parts work: workload, suite file, and our engine's timing worker.

Only our engine is exercised (the reference needs Python 3.13 and its own venv), and
nothing about speed is asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import yaml

from tests.support.paths import REPO, load_script

BENCH = REPO / "bench"
COUNT = 20


def _load(name: str) -> ModuleType:
    return load_script(BENCH / f"{name}.py", f"bench_{name}")


workload = _load("workload")
worker = _load("worker")


def test_workload_is_deterministic_and_fails_on_purpose() -> None:
    assert workload.make_workload(COUNT) == workload.make_workload(COUNT)
    assert workload.make_scenario(3) == workload.make_scenario(3)
    expected = workload.expected_pass_count(COUNT)
    # 0, 7, 14 (wrong status) and 11 (bad JSON) fail.
    assert expected == COUNT - 4
    checks = workload.make_scenario(1)["steps"][0]["checks"]
    kinds = [c["kind"] for c in checks]
    assert kinds == ["string_matching", "regex_matching", "equals", "greater_than", "all_of"]
    assert [c["kind"] for c in checks[-1]["checks"]] == ["json_valid", "not"]


def test_suite_file_holds_the_same_scenarios(tmp_path: Path) -> None:
    path = workload.write_suite_yaml(tmp_path / "w.suite.yaml", COUNT, name="smoke")
    suite = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert suite["name"] == "smoke"
    assert suite["scenarios"] == workload.make_workload(COUNT)


def test_our_worker_reports_the_expected_pass_count(tmp_path: Path) -> None:
    data = workload.write_json(tmp_path / "w.json", COUNT)
    cmd = [sys.executable, str(BENCH / "worker.py"), "--engine", "ours"]
    done = subprocess.run(
        [*cmd, "--workload", str(data), "--repeats", "2"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith(worker.RESULT_PREFIX)]
    assert len(lines) == 1
    result = json.loads(lines[0][len(worker.RESULT_PREFIX) :])
    assert result["engine"] == "ours"
    assert result["scenarios"] == COUNT
    assert result["repeats"] == 2
    assert result["pass_count"] == workload.expected_pass_count(COUNT)
    for key in ("build_s", "run_s", "total_s", "gc_s", "peak_rss_mb"):
        assert isinstance(result[key], float) and result[key] >= 0, key
    assert result["total_s"] >= result["build_s"]
    assert len(result["total_samples_s"]) == 2


def test_the_suite_cpu_plugin_counts_a_tests_children(tmp_path: Path) -> None:
    """bench/suite_cpu.py: a test's own CPU and that of the process it started, by file."""
    (tmp_path / "test_spends.py").write_text(
        "import subprocess, sys\n"
        "def test_child():\n"
        "    subprocess.run([sys.executable, '-c', 'sum(range(3 * 10**7))'], check=True)\n"
        "def test_nothing():\n"
        "    pass\n"
    )
    out = tmp_path / "cpu"
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_PROCESS")}
    env.update(PYTHONPATH=str(BENCH), SUITE_CPU_OUT=str(out))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "suite_cpu", "-p", "no:cacheprovider",
         "-p", "no:randomly", "test_spends.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    suite_cpu = _load("suite_cpu")
    found = {row["test"]: row for row in suite_cpu.rows(out)}
    assert set(found) == {"test_spends.py::test_child", "test_spends.py::test_nothing"}
    assert found["test_spends.py::test_child"]["children"] > 0.2  # the child's sum
    assert found["test_spends.py::test_nothing"]["children"] == 0
    shown = suite_cpu.table(list(found.values()), top=5, by_test=False)
    assert shown.splitlines()[0].startswith("2 tests: ")
    assert shown.splitlines()[-1].endswith("  test_spends.py")
