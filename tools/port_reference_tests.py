"""Port the original library's own unit tests (giskard-checks) and run them against checkspec.

The tests are not in giskard-checks' sdist; they live in the giskard-oss monorepo
(libs/giskard-checks/tests). tools/reference_tests.json names the snapshot used (a
repository, a commit, the folder). The tool:

1. copies that folder out of a local git directory of the snapshot (`--git-dir`, default
   the manifest's `git_dir`; get one with the `fetch` tool or `git clone`) into
   build/reference-tests/ported/ (git-ignored, outside tests/), renaming imports
   mechanically: `giskard.checks` -> `checkspec.engine`, nothing else;
2. runs them with pytest under `--python` (default the project's Python 3.13 venv,
   `make install PYTHON=python3.13` plus `pip install giskard-agents`: the tests build
   their mock generators on giskard-agents, which needs Python >= 3.12, so the default
   .venv on 3.11 cannot host them) and writes build/reference-tests/ported.json, a
   summary {test id: outcome};
3. with `--against-original`, also copies the folder unchanged to
   build/reference-tests/original/ and runs it under `--original-python` (default
   /tmp/g313/bin/python, a venv with `giskard-checks[all]==1.0.6`), writing
   build/reference-tests/original.json: the baseline.

It then prints how many of the tests that pass on the original pass on checkspec too
(the denominator is what passes on 1.0.6 itself, not what the snapshot holds), and
writes the ids that pass on the original but not on checkspec to
build/reference-tests/differences.txt.

    .venv-python3.13/bin/python tools/port_reference_tests.py --against-original
"""

from __future__ import annotations

import argparse
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MANIFEST = REPO / "tools" / "reference_tests.json"
OUT = REPO / "build" / "reference-tests"

# `giskard.checks` as a dotted name (also inside strings such as monkeypatch targets),
# not `giskard.checkstyle` nor `mygiskard.checks`.
_RENAME = re.compile(r"(?<![\w.])giskard\.checks(?!\w)")

_PYTEST_INI = """\
[pytest]
asyncio_mode = auto
markers =
    integration: integration tests, skipped unless --run-integration is given
    uses_ambient_env: keeps the GISKARD_* environment
"""


def rename(text: str) -> str:
    """The source with `giskard.checks` renamed to `checkspec.engine`, nothing else."""
    return _RENAME.sub("checkspec.engine", text)


def load_manifest(path: Path = MANIFEST) -> dict[str, str]:
    data: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return data


def extract(git_dir: Path, commit: str, folder: str) -> dict[str, bytes]:
    """The files of `folder` at `commit`, by path relative to `folder`."""
    archive = subprocess.run(
        ["git", f"--git-dir={git_dir}", "archive", "--format=tar", commit, folder],
        check=True,
        capture_output=True,
    ).stdout
    files: dict[str, bytes] = {}
    prefix = folder.rstrip("/") + "/"
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            if member.isfile() and member.name.startswith(prefix):
                handle = tar.extractfile(member)
                if handle is not None:
                    files[member.name[len(prefix) :]] = handle.read()
    return files


def write_tree(files: dict[str, bytes], dest: Path, *, ported: bool) -> None:
    """The tests under dest/tests/, renamed when `ported`, with a pytest.ini."""
    if dest.exists():
        shutil.rmtree(dest)
    for relative, content in files.items():
        target = dest / "tests" / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if ported and relative.endswith(".py"):
            content = rename(content.decode("utf-8")).encode("utf-8")
        target.write_bytes(content)
    (dest / "pytest.ini").write_text(_PYTEST_INI, encoding="utf-8")


def outcomes(junit_xml: Path) -> dict[str, str]:
    """{test id: passed | failed | error | skipped} from a pytest JUnit XML report."""
    result: dict[str, str] = {}
    for case in ET.parse(junit_xml).getroot().iter("testcase"):
        test_id = f"{case.get('classname', '')}::{case.get('name', '')}"
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed"}.get(child.tag, child.tag)
                break
        # A set-up error after a pass is reported as a second entry: keep the worst.
        if result.get(test_id, "passed") == "passed":
            result[test_id] = outcome
    return result


def run_tree(python: str, tree: Path, report: Path, extra: list[str]) -> dict[str, str]:
    junit = tree / "junit.xml"
    command = [
        python,
        "-m",
        "pytest",
        "-q",
        "--tb=no",
        "--continue-on-collection-errors",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        f"--junitxml={junit}",
        "tests",
        *extra,
    ]
    subprocess.run(command, cwd=tree, check=False, stdout=subprocess.DEVNULL)
    summary = outcomes(junit)
    report.write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return summary


def compare(original: dict[str, str], ported: dict[str, str]) -> tuple[int, int, list[str]]:
    """(pass on both, pass on the original, ids passing on the original only)."""
    baseline = sorted(t for t, o in original.items() if o == "passed")
    missing = [t for t in baseline if ported.get(t) != "passed"]
    return len(baseline) - len(missing), len(baseline), missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--git-dir", type=Path, help="git directory of the snapshot")
    parser.add_argument("--python", default=str(REPO / ".venv-python3.13" / "bin" / "python"))
    parser.add_argument("--against-original", action="store_true")
    parser.add_argument("--original-python", default="/tmp/g313/bin/python")
    parser.add_argument("pytest_args", nargs="*", help="passed on to pytest (after --)")
    args = parser.parse_args(argv)

    manifest = load_manifest(args.manifest)
    git_dir = args.git_dir or Path(manifest["git_dir"])
    files = extract(git_dir, manifest["commit"], manifest["folder"])
    OUT.mkdir(parents=True, exist_ok=True)

    write_tree(files, OUT / "ported", ported=True)
    ported = run_tree(args.python, OUT / "ported", OUT / "ported.json", args.pytest_args)
    if args.against_original:
        write_tree(files, OUT / "original", ported=False)
        run_tree(args.original_python, OUT / "original", OUT / "original.json", args.pytest_args)
    original_report = OUT / "original.json"
    if not original_report.exists():
        print("no baseline yet: run with --against-original", file=sys.stderr)
        return 0
    original = json.loads(original_report.read_text(encoding="utf-8"))
    both, baseline, missing = compare(original, ported)
    (OUT / "differences.txt").write_text("".join(t + "\n" for t in missing), encoding="utf-8")
    print(
        f"{manifest['repo']}@{manifest['commit'][:12]} ({manifest['version']}): "
        f"{both} of the {baseline} tests passing on the original pass on checkspec "
        f"({len(original)} collected); differences in {OUT / 'differences.txt'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
