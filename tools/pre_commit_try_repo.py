"""The pre-commit hooks as users install them: `pre-commit try-repo` of this checkout on a
good and a bad spec file (issue 52 item 5). pre-commit builds the hook's environment from
the repository (pip installs checkspec and its dependencies: minutes), so this runs in
`make e2e`, not in `make test` (tests/tools/test_pre_commit_hooks.py runs the same hooks
as system hooks there). Exit 0 when the good file passes and the bad one fails at its line.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOOD = "name: greets\nsteps:\n  - interacts:\n      - inputs: hi\n        outputs: hello\n    checks:\n      - kind: string_matching\n        keyword: hello\n"
BAD = "name: x\nsteps:\n  - checks: [{kind: nope}]\n"


def try_repo(work: Path, *files: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "checkspec-validate"]
    return subprocess.run(
        [*command, "--files", *files],
        cwd=work / "user",
        env={**os.environ, "PRE_COMMIT_HOME": str(work / "cache")},
        capture_output=True,
        text=True,
        timeout=1200,
    )


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        user = work / "user"
        (user / "suites").mkdir(parents=True)
        (user / "suites" / "good.scenario.yaml").write_text(GOOD)
        (user / "suites" / "bad.scenario.yaml").write_text(BAD)
        subprocess.run(["git", "init", "-q"], cwd=user, check=True)
        subprocess.run(["git", "add", "-A"], cwd=user, check=True)
        good = try_repo(work, "suites/good.scenario.yaml")
        bad = try_repo(work, "suites/good.scenario.yaml", "suites/bad.scenario.yaml")
    problems = []
    if good.returncode != 0 or "Passed" not in good.stdout:
        problems.append(f"the good file did not pass:\n{good.stdout}{good.stderr}")
    if (
        bad.returncode != 1
        or "suites/bad.scenario.yaml:3:21: error: unknown check" not in bad.stdout
    ):
        problems.append(f"the bad file did not fail at its line:\n{bad.stdout}{bad.stderr}")
    for problem in problems:
        print(problem, file=sys.stderr)
    print("pre-commit try-repo: " + ("FAILED" if problems else "good passed, bad failed at 3:21"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
