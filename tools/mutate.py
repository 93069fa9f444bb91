"""`make mutate`: mutation testing of the engine and the server's analysis with mutmut.

mutmut names a mutant after its file's path and recognises a hit by the function's
``__module__``, so both must agree. The repository maps ``engine/`` to ``checkspec.engine``
through ``package_dir``, so this script stages a copy of the packages under their import
names (``build/mutate/checkspec/engine``, ...) with the tests and the files they read, and
runs mutmut there (configuration: ``[tool.mutmut]`` in pyproject.toml). The staged
``mutants/`` folder comes first on ``sys.path`` in mutmut's test runs, ahead of the editable
install, so the tests import the mutated code.

    python tools/mutate.py                      # the whole scope
    python tools/mutate.py engine/checks        # one folder (re-runs its mutants)
    python tools/mutate.py --survivors          # run again only what survived last time
    python tools/mutate.py --sample 10          # every 10th mutant (by name): a quick estimate
    python tools/mutate.py --report             # score and survivors of the last runs

Results are kept in build/mutate/mutants between runs; a mutant whose function and tests
did not change is not run again. The score is killed / (killed + survived + timeouts +
mutants no test reaches).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STAGE = REPO / "build" / "mutate"
# repository folder -> folder under the stage (the import name's path)
PACKAGES = {
    "engine": "checkspec/engine",
    "server": "checkspec/server",
    "schemas": "checkspec/schemas",
}
DATA = ["tests", "examples", "schemas", "pyproject.toml"]
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "node_modules", "imported.marker")
SCOPE = ["engine/checks", "engine/spec", "engine/core", "server/analysis"]


def stage() -> None:
    """Copy the packages and test data into the stage; unchanged files keep their mtime."""
    for source, target in [*PACKAGES.items(), *((d, d) for d in DATA)]:
        src, dst = REPO / source, STAGE / target
        if src.is_dir():
            _sync_tree(src, dst)
        else:
            dst.parent.mkdir(parents=True, exist_ok=True)
            _copy_if_changed(src, dst)


def refresh_package_data() -> None:
    """mutmut re-copies changed .py files into mutants/ but copies other files (the judges'
    prompt templates, the schemas) only when they are missing: bring changed ones up to date."""
    mutants = STAGE / "mutants" / "checkspec"
    if not mutants.exists():
        return
    for path in (STAGE / "checkspec").rglob("*"):
        if path.is_file() and path.suffix not in (".py", ".pyc"):
            _copy_if_changed(path, mutants / path.relative_to(STAGE / "checkspec"))


def _sync_tree(src: Path, dst: Path) -> None:
    wanted: set[Path] = set()
    for root, dirs, files in os.walk(src):
        ignored = IGNORE(root, dirs + files)
        dirs[:] = [d for d in dirs if d not in ignored]
        for name in files:
            if name in ignored:
                continue
            rel = Path(root, name).relative_to(src)
            wanted.add(rel)
            _copy_if_changed(src / rel, dst / rel)
    for path in list(dst.rglob("*")) if dst.exists() else []:
        if (
            path.is_file()
            and "__pycache__" not in path.parts
            and path.relative_to(dst) not in wanted
        ):
            path.unlink()


def _copy_if_changed(src: Path, dst: Path) -> None:
    if dst.exists() and dst.read_bytes() == src.read_bytes():
        return
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, dst)


def mutant_glob(folder: str) -> str:
    """engine/checks -> checkspec.engine.checks.* (mutmut's mutant names)."""
    top, _, rest = folder.strip("/").partition("/")
    name = ".".join(["checkspec", top, *filter(None, rest.removesuffix(".py").split("/"))])
    return name + "*"


def mutmut(*args: str) -> int:
    command = [sys.executable, "-m", "mutmut", *args]
    return subprocess.call(command, cwd=STAGE)


def survivors(folders: list[str]) -> list[str]:
    """Names of the mutants of `folders` that no test killed in the last runs."""
    return [name.split(":")[0] for name in _results(folders)[1]]


def _mutants(folders: list[str]) -> dict[str, int | None]:
    """Every generated mutant of `folders` and its last exit code (None: not run yet)."""
    prefixes = [f"checkspec/{f.strip('/')}" for f in folders]
    found: dict[str, int | None] = {}
    for meta in sorted((STAGE / "mutants" / "checkspec").rglob("*.py.meta")):
        rel = meta.relative_to(STAGE / "mutants").as_posix()
        if any(rel.startswith(p) for p in prefixes):
            found.update(json.loads(meta.read_text())["exit_code_by_key"])
    return found


def sample(names: list[str], every: int) -> list[str]:
    """Every `every`-th name in name order, chosen once and kept (build/mutate/sample-N.json):
    when the code changes, the same mutants are compared (those still there)."""
    if every <= 1:
        return sorted(names)
    kept = STAGE / f"sample-{every}.json"
    if kept.exists():
        present = set(names)
        return [n for n in json.loads(kept.read_text()) if n in present]
    chosen = sorted(names)[::every]
    kept.write_text(json.dumps(chosen))
    return chosen


def _not_run(folders: list[str], every: int) -> list[str]:
    """The sampled mutants of `folders` that have no result yet."""
    mutants = _mutants(SCOPE)
    return [n for n in sample(list(mutants), every) if mutants[n] is None and _within(n, folders)]


def _within(name: str, folders: list[str]) -> bool:
    return name.startswith(tuple(mutant_glob(f).rstrip("*") + "." for f in folders))


def _results(folders: list[str], every: int = 1) -> tuple[dict[str, int], list[str]]:
    counts = {"killed": 0, "survived": 0, "timeout": 0, "no tests": 0, "other": 0}
    left: list[str] = []
    # The sample is taken over the whole scope, so a folder's share is the same mutants.
    mutants = _mutants(SCOPE if every > 1 else folders)
    for name in sample(list(mutants), every):
        if not _within(name, folders):
            continue
        status = _status(mutants[name])
        counts[status if status in counts else "other"] += 1
        if status in ("survived", "no tests", "timeout"):
            left.append(f"{name}: {status}")
    return counts, left


def report(folders: list[str], every: int = 1) -> float:
    """Print the score and the survivors of the given folders; returns the score."""
    counts, left = _results(folders, every)
    reached = counts["killed"] + counts["survived"] + counts["timeout"] + counts["no tests"]
    score = 100.0 * counts["killed"] / reached if reached else 0.0
    for line in left:
        print("   ", line)
    print(
        f"mutation score {score:.1f}% ({counts['killed']} killed of {reached}; "
        f"{counts['survived']} survived, {counts['no tests']} reached by no test, "
        f"{counts['timeout']} timed out, {counts['other']} not run) over {', '.join(folders)}"
        + (f", every {every}th mutant" if every > 1 else "")
    )
    return score


def _status(code: int | None) -> str:
    from mutmut.stats import status_by_exit_code

    return status_by_exit_code.get(code, "not checked")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "folders", nargs="*", help=f"folders to mutate (default: {' '.join(SCOPE)})"
    )
    parser.add_argument("--report", action="store_true", help="only print the last results")
    parser.add_argument(
        "--survivors", action="store_true", help="run again only the mutants that survived"
    )
    parser.add_argument(
        "--sample", type=int, default=1, metavar="N", help="only every Nth mutant, by name"
    )
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1)")
    args = parser.parse_args()
    folders = args.folders or SCOPE
    unknown = [f for f in folders if not (REPO / f).exists()]
    if unknown:
        parser.error(f"no such folder: {', '.join(unknown)}")
    if not args.report:
        stage()
        refresh_package_data()
        names = survivors(folders) if args.survivors else []
        if args.sample > 1:  # the sampled mutants not run yet (new, or their code changed)
            # mutmut (re)generates the mutants of changed files, forgetting the results of
            # changed functions, only when it runs: have it do that before choosing.
            mutmut("run", "--max-children", str(args.jobs), "no-such-mutant")
            names += _not_run(folders, args.sample)
        elif not args.survivors:
            names = [mutant_glob(f) for f in args.folders]
        if (args.survivors or args.sample > 1) and not names:
            print("nothing to run")
        elif code := mutmut("run", "--max-children", str(args.jobs), *names):
            return code
    report(folders, args.sample)
    return 0


if __name__ == "__main__":
    sys.exit(main())
