"""Bundle the language server into the VS Code extension (its package step calls this).

    .venv/bin/python tools/bundle_server.py [--out vscode-extension/bundled]

Builds checkspec's wheel and installs it with its dependencies into `OUT/libs` (`pip
install --target`), as Microsoft's Python tool extensions bundle theirs: the extension
then starts `python -m checkspec.server` with the Python the Python extension selects
(else the first `python3` on PATH) and `OUT/libs` first on its path. Some dependencies are
binary (pydantic-core, regorus, regex...): the bundle is for this interpreter's minor
version and platform, written to `OUT/bundle.json`, which the extension checks before it
starts the bundled server (docs/decisions.md, "The bundled server").
"""

from __future__ import annotations

import argparse
import email.parser
import json
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "vscode-extension" / "bundled"
# Not needed to serve or run: the scripts pip writes (they name this machine's Python),
# and test suites; textstat installs a top-level `tests` package, which first on the
# server's path would shadow the user's own `tests` in a run.
DROPPED = ("bin", "tests")
NESTED_TESTS = ("tests",)  # <package>/tests folders
# Left out: litellm (with its own dependencies, 300 of the 430 MB) only sends model calls
# of models not written openai/NAME (the direct path, engine/llm/client.py, needs only
# openai); validating, the editor features and runs of openai/ models work without it.
LEFT_OUT = frozenset({"litellm"})


def build_wheel(into: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(into), str(ROOT)],
        check=True,
    )
    (wheel,) = into.glob("checkspec-*.whl")
    return wheel


def requirements(wheel: Path) -> list[str]:
    """The wheel's own dependencies (Requires-Dist without extras), but those LEFT_OUT."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = email.parser.HeaderParser().parsestr(archive.read(name).decode())
    found = []
    for requirement in metadata.get_all("Requires-Dist") or []:
        if "extra ==" in requirement:
            continue
        project = re.split(r"[\s<>=!~;\[(]", requirement, maxsplit=1)[0]
        if project.lower() not in LEFT_OUT:
            found.append(requirement)
    return found


def install(wheel: Path, libs: Path) -> None:
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--target", str(libs)]
    # --no-compile: smaller; Python writes the caches it needs where it can.
    subprocess.run([*pip, "--no-compile", "--no-deps", str(wheel)], check=True)
    subprocess.run([*pip, "--no-compile", *requirements(wheel)], check=True)
    for name in DROPPED:
        shutil.rmtree(libs / name, ignore_errors=True)
    for package in libs.iterdir():
        for name in NESTED_TESTS:
            if package.is_dir() and (package / name / "__init__.py").exists():
                shutil.rmtree(package / name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    out: Path = args.out
    libs = out / "libs"
    shutil.rmtree(out, ignore_errors=True)
    libs.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as folder:
        wheel = build_wheel(Path(folder))
        install(wheel, libs)
    version = wheel.name.split("-")[1]
    info = {
        "checkspec": version,
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
        "platform": sysconfig.get_platform(),
    }
    (out / "bundle.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    size = sum(p.stat().st_size for p in libs.rglob("*") if p.is_file())
    print(
        f"bundled checkspec {version} for Python {info['python']} ({info['platform']}) "
        f"into {libs}: {size / 1e6:.1f} MB",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
