"""Bundle the language server into the VS Code extension (its package step calls this).

    python tools/bundle_server.py [--target linux-x64] [--out vscode-extension/bundled]
                                  [--pythons 3.11,3.12,3.13] [--wheelhouse build/wheelhouse]

Builds checkspec's wheel from the files git tracks (a copy of them outside the tree: no
untracked file, no stale build/ folder gets in) and lays it out with its dependencies
for one VS Code target
(linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64; default: this machine's)
and Python 3.11, 3.12 and 3.13, as Microsoft's Python tool extensions bundle theirs: the
extension starts `python -m checkspec.server` with the Python the Python extension selects
(else the first `python3` on PATH) and that Python's folders first on its path.

The wheels come from `pip download --platform ... --python-version ... --only-binary=:all:`
into a wheelhouse per target and Python (`build/wheelhouse/TARGET/cp3XY`, kept: a second
run needs no network). pip evaluates the dependencies' environment markers for the Python
running it, not for the target, so what to install is worked out here from the wheels'
own metadata with the target's markers (`closure`), and what the wheelhouse lacks is
downloaded until nothing does. Each Python's set is installed (`pip install --target
--no-deps`, offline) into a folder of its own; then what is the same for every Python
(the pure-Python libraries, and abi3 wheels) moves to `OUT/libs/common` and the rest stays
in `OUT/libs/cp3XY`. `OUT/bundle.json` names the target and, per Python, the folders to
put on its path; the extension checks the Python it found against it before starting
(docs/decisions.md, "The bundled server"). Test suites inside the libraries are left out,
and the bundle ends with a scan of every file in it for keys (`find_secrets`): a find
removes the bundle and fails the packaging.
"""

from __future__ import annotations

import argparse
import email.parser
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

try:
    from packaging import requirements as _requirements
    from packaging import utils as _utils
    from packaging import version as _version
except ImportError:  # a bare Python 3.11+ of a fresh clone: pip carries its own copy
    from pip._vendor.packaging import requirements as _requirements  # type: ignore[no-redef]
    from pip._vendor.packaging import utils as _utils  # type: ignore[no-redef]
    from pip._vendor.packaging import version as _version  # type: ignore[no-redef]

Requirement = _requirements.Requirement
Version = _version.Version
canonicalize_name = _utils.canonicalize_name
parse_wheel_filename = _utils.parse_wheel_filename

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "vscode-extension" / "bundled"
DEFAULT_WHEELHOUSE = ROOT / "build" / "wheelhouse"
PYTHONS = ("3.11", "3.12", "3.13")
# Not needed to serve or run: the scripts pip writes (they name this machine's Python),
# and test suites; textstat installs a top-level `tests` package, which first on the
# server's path would shadow the user's own `tests` in a run.
DROPPED = ("bin", "tests")
NESTED_TESTS = ("tests", "test")  # folders of test suites inside packages, at any depth
# Left out: litellm (with its own dependencies, 300 of the 430 MB) only sends model calls
# of models not written openai/NAME (the direct path, engine/llm/client.py, needs only
# openai); validating, the editor features and runs of openai/ models work without it.
LEFT_OUT = frozenset({"litellm"})


@dataclass(frozen=True)
class Target:
    """A VS Code target: the wheel platform tags pip may take, and its marker values."""

    platforms: tuple[str, ...]
    sys_platform: str
    platform_system: str
    platform_machine: str
    os_name: str = "posix"
    # Projects with no wheel for this target: left out (their checks report the import error).
    unavailable: frozenset[str] = frozenset()

    def environment(self, python: str) -> dict[str, str]:
        return {
            "python_version": python,
            "python_full_version": f"{python}.0",
            "implementation_name": "cpython",
            "platform_python_implementation": "CPython",
            "sys_platform": self.sys_platform,
            "platform_system": self.platform_system,
            "platform_machine": self.platform_machine,
            "os_name": self.os_name,
            "extra": "",
        }


def _manylinux(arch: str) -> tuple[str, ...]:
    # VS Code itself needs glibc >= 2.28; celine-regorus's only Linux wheel is
    # manylinux_2_34 (imported when a rego_policy check is, so older glibc loses that alone).
    return tuple(f"manylinux{tag}_{arch}" for tag in ("_2_34", "_2_28", "_2_17", "2014"))


# celine-regorus publishes wheels for manylinux_2_34 x86_64 and macOS only.
NO_REGORUS = frozenset({"celine-regorus"})
TARGETS: dict[str, Target] = {
    "linux-x64": Target(_manylinux("x86_64"), "linux", "Linux", "x86_64"),
    "linux-arm64": Target(
        _manylinux("aarch64"), "linux", "Linux", "aarch64", unavailable=NO_REGORUS
    ),
    # pip widens a macOS tag to every older macOS release (and universal2 wheels).
    "darwin-x64": Target(("macosx_11_0_x86_64",), "darwin", "Darwin", "x86_64"),
    "darwin-arm64": Target(("macosx_11_0_arm64",), "darwin", "Darwin", "arm64"),
    "win32-x64": Target(
        ("win_amd64",), "win32", "Windows", "AMD64", os_name="nt", unavailable=NO_REGORUS
    ),
}


def local_target() -> str:
    """This machine's VS Code target (node's `${process.platform}-${process.arch}`)."""
    system = {"linux": "linux", "darwin": "darwin", "win32": "win32"}.get(
        sys.platform, sys.platform
    )
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        machine, machine
    )
    return f"{system}-{arch}"


def tag(python: str) -> str:
    """'3.12' -> 'cp312', the folder of that Python's wheels and libraries."""
    return "cp" + python.replace(".", "")


@dataclass
class Wheel:
    path: Path
    name: str
    version: Version
    requires: list[str] = field(default_factory=list)


def read_wheel(path: Path) -> Wheel:
    name, version, _, _ = parse_wheel_filename(path.name)
    with zipfile.ZipFile(path) as archive:
        (metadata_name,) = [
            n for n in archive.namelist() if n.count("/") == 1 and n.endswith(".dist-info/METADATA")
        ]
        metadata = email.parser.HeaderParser().parsestr(archive.read(metadata_name).decode())
    return Wheel(
        path, canonicalize_name(name), version, list(metadata.get_all("Requires-Dist") or [])
    )


def tracked_tree(source: Path, into: Path) -> Path:
    """A copy in `into` of the files git tracks in `source` (as they are in its work tree):
    all a package may carry. A developer's untracked files (a local secrets module) and a
    stale build/ folder (which an in-tree build packs: build/lib) stay out."""
    try:
        listed = subprocess.run(
            ["git", "-C", str(source), "ls-files", "-z", "--cached"],
            check=True,
            capture_output=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SystemExit(
            f"bundle_server: {source} is not a git checkout (or git is missing): the bundle "
            f"is built from the files git tracks ({exc})"
        ) from None
    for name in filter(None, listed.split(b"\0")):
        relative = os.fsdecode(name)
        found = source / relative
        if not (found.is_file() or found.is_symlink()):  # deleted in the tree, a submodule
            continue
        copy = into / relative
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(found, copy, follow_symlinks=False)
    return into


def build_wheel(into: Path, wheelhouse: Path, source: Path = ROOT) -> Path:
    """checkspec's wheel, built from the files git tracks in `source` (tracked_tree) in
    pip's isolated environment, from the build system's wheels kept in
    `wheelhouse/build-system` (downloaded once: a second run is offline)."""
    tools = wheelhouse / "build-system"
    pyproject = tomllib.loads((source / "pyproject.toml").read_text(encoding="utf-8"))
    needed: list[str] = pyproject["build-system"]["requires"]
    have = [read_wheel(path) for path in tools.glob("*.whl")] if tools.is_dir() else []
    if closure(needed, have, {})[1]:
        pip = [sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:"]
        subprocess.run([*pip, "--dest", str(tools), *needed], check=True)
    with tempfile.TemporaryDirectory() as folder:
        tree = tracked_tree(source, Path(folder))
        subprocess.run(
            [
                *(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet"),
                *("--no-index", "--find-links", str(tools), "-w", str(into), str(tree)),
            ],
            check=True,
        )
    (wheel,) = into.glob("checkspec-*.whl")
    return wheel


def requirements(wheel: Path) -> list[str]:
    """The wheel's own dependencies (Requires-Dist without extras), but those LEFT_OUT."""
    found = []
    for requirement in read_wheel(wheel).requires:
        parsed = Requirement(requirement)
        if parsed.marker is not None and "extra" in str(parsed.marker):
            continue
        if canonicalize_name(parsed.name) not in LEFT_OUT:
            found.append(requirement)
    return found


def closure(
    roots: list[str],
    wheels: list[Wheel],
    environment: dict[str, str],
    without: frozenset[str] = LEFT_OUT,
) -> tuple[list[Wheel], list[str]]:
    """The wheels `roots` need on a Python of `environment` (its markers), but the projects
    `without`, and the requirements no wheel here satisfies (to download)."""
    by_name: dict[str, list[Wheel]] = {}
    for wheel in wheels:
        by_name.setdefault(wheel.name, []).append(wheel)
    chosen: dict[str, Wheel] = {}
    missing: list[str] = []
    queue = [(text, "") for text in roots]
    seen_extras: set[tuple[str, str]] = set()
    while queue:
        text, extra = queue.pop(0)
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate(
            {**environment, "extra": extra}
        ):
            continue
        name = canonicalize_name(requirement.name)
        if name in without:
            continue
        if name not in chosen:
            fitting = [
                w
                for w in by_name.get(name, [])
                if requirement.specifier.contains(w.version, prereleases=True)
            ]
            if not fitting:
                missing.append(str(requirement).split(";")[0].strip())
                continue
            chosen[name] = max(fitting, key=lambda w: w.version)
            queue.extend((dependency, "") for dependency in chosen[name].requires)
        wheel = chosen[name]
        if not requirement.specifier.contains(wheel.version, prereleases=True):
            raise SystemExit(
                f"bundle_server: {wheel.path.name} does not satisfy {text}; clear the wheelhouse"
            )
        for wanted in requirement.extras:
            if (name, wanted) not in seen_extras:
                seen_extras.add((name, wanted))
                queue.extend((dependency, wanted) for dependency in wheel.requires)
    return list(chosen.values()), missing


def pip_platform_args(target: Target, python: str) -> list[str]:
    args = [f"--platform={p}" for p in target.platforms]
    return [*args, f"--python-version={python}", "--implementation=cp", "--only-binary=:all:"]


def wheels_for(roots: list[str], target: Target, python: str, wheelhouse: Path) -> list[Wheel]:
    """The wheels for `roots` on that target and Python, downloaded into `wheelhouse` as
    far as it lacks them."""
    wheelhouse.mkdir(parents=True, exist_ok=True)
    environment = target.environment(python)
    for _ in range(5):
        have = [read_wheel(path) for path in sorted(wheelhouse.glob("*.whl"))]
        chosen, missing = closure(roots, have, environment, LEFT_OUT | target.unavailable)
        if not missing:
            return chosen
        print(
            f"bundle_server: downloading {len(missing)} requirement(s) into {wheelhouse}",
            file=sys.stderr,
        )
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--dest",
                str(wheelhouse),
                *pip_platform_args(target, python),
                *missing,
            ],
            check=True,
        )
    raise SystemExit(f"bundle_server: {wheelhouse} still lacks {', '.join(missing)}")


def install(wheels: list[Path], target: Target, python: str, into: Path) -> None:
    # --no-compile: smaller; Python writes the caches it needs where it can.
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-index",
            "--no-deps",
            "--no-compile",
            "--target",
            str(into),
            *pip_platform_args(target, python),
            *map(str, wheels),
        ],
        check=True,
    )
    for name in DROPPED:
        shutil.rmtree(into / name, ignore_errors=True)
    drop_test_folders(into)
    for entry in into.iterdir():
        # It names this machine's wheelhouse, and would tell identical folders apart.
        if entry.is_dir() and (entry / "direct_url.json").exists():
            (entry / "direct_url.json").unlink()
            record = entry / "RECORD"
            lines = record.read_text(encoding="utf-8").splitlines(keepends=True)
            record.write_text(
                "".join(ln for ln in lines if "/direct_url.json," not in ln), encoding="utf-8"
            )


def drop_test_folders(libs: Path) -> list[Path]:
    """Remove the test suites inside the installed packages (a `tests` or `test` folder at
    any depth, a package or not): neither served nor run, and they carry fixtures (keys
    and certificates made for tests among them). The folders removed."""
    removed = []
    for package in sorted(p for p in libs.iterdir() if p.is_dir()):
        if package.name.endswith((".dist-info", ".data")):
            continue
        for folder in sorted(package.rglob("*"), key=lambda p: len(p.parts)):
            if folder.name in NESTED_TESTS and folder.is_dir() and folder.exists():
                shutil.rmtree(folder)
                removed.append(folder)
    return removed


# What a package must not carry: keys of the services checkspec and its users call, and
# private keys. Narrow on purpose (each pattern is a key's own shape), so that a hit in
# 30 MB of third-party code is a key, not a word.
SECRET_PATTERNS: dict[str, re.Pattern[bytes]] = {
    "OpenAI key": re.compile(rb"sk-[A-Za-z0-9_-]{0,80}T3BlbkFJ[A-Za-z0-9_-]{16,}"),
    "Anthropic key": re.compile(rb"sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{40,}"),
    "AWS access key id": re.compile(rb"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "GitHub token": re.compile(rb"\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{60,})"),
    "Slack token": re.compile(rb"\bxox[abposr]-[0-9]{6,}-[A-Za-z0-9-]{10,}"),
    "Google API key": re.compile(rb"\bAIza[0-9A-Za-z_-]{35}\b"),
    "Hugging Face token": re.compile(rb"\bhf_[A-Za-z]{34}\b"),
    "npm token": re.compile(rb"\bnpm_[A-Za-z0-9]{36}\b"),
    "private key": re.compile(
        rb"-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED )?PRIVATE KEY-----\r?\n[A-Za-z0-9+/=]{40,}"
    ),
}


def find_secrets(folder: Path) -> list[str]:
    """`path:line: what` for each key found in any file under `folder`."""
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
        data = path.read_bytes()
        for what, pattern in SECRET_PATTERNS.items():
            for match in pattern.finditer(data):
                line = data.count(b"\n", 0, match.start()) + 1
                found.append(f"{path.relative_to(folder)}:{line}: {what}")
    return found


def digest(path: Path) -> str:
    hashed = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        hashed.update(str(file.relative_to(path) if path.is_dir() else file.name).encode())
        hashed.update(file.read_bytes())
    return hashed.hexdigest()


def split_common(staged: dict[str, Path], libs: Path) -> dict[str, list[str]]:
    """Move what every Python's folder holds the same to libs/common, the rest to
    libs/cp3XY; the folders each Python puts on its path, relative to libs' parent."""
    common = libs / "common"
    common.mkdir(parents=True)
    names = set.intersection(*({e.name for e in folder.iterdir()} for folder in staged.values()))
    for name in sorted(names):
        digests = {digest(folder / name) for folder in staged.values()}
        if len(digests) == 1:
            first, *rest = staged.values()
            shutil.move(first / name, common / name)
            for folder in rest:
                shutil.rmtree(folder / name) if (folder / name).is_dir() else (
                    folder / name
                ).unlink()
    paths = {}
    for python, folder in staged.items():
        own = libs / tag(python)
        shutil.move(folder, own)
        paths[python] = [f"libs/{tag(python)}", "libs/common"]
    return paths


def size_of(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--target", default=local_target(), help=f"one of {', '.join(TARGETS)}")
    parser.add_argument(
        "--pythons", default=",".join(PYTHONS), help="comma-separated minor versions"
    )
    parser.add_argument("--wheelhouse", type=Path, default=DEFAULT_WHEELHOUSE)
    parser.add_argument(
        "--fetch", action="store_true", help="fill the wheelhouse only; write no bundle"
    )
    args = parser.parse_args()
    if args.target not in TARGETS:
        parser.error(f"no bundle for {args.target}: one of {', '.join(sorted(TARGETS))}")
    target = TARGETS[args.target]
    pythons = [p.strip() for p in args.pythons.split(",") if p.strip()]
    out: Path = args.out
    libs = out / "libs"
    with tempfile.TemporaryDirectory() as folder:
        own = build_wheel(Path(folder), args.wheelhouse)
        roots = requirements(own)
        if args.fetch:
            for python in pythons:
                wheels_for(roots, target, python, args.wheelhouse / args.target / tag(python))
            print(
                f"bundle_server: the wheels for {args.target} are in {args.wheelhouse}",
                file=sys.stderr,
            )
            return 0
        shutil.rmtree(out, ignore_errors=True)
        libs.mkdir(parents=True)
        staged = {}
        for python in pythons:
            wheels = wheels_for(roots, target, python, args.wheelhouse / args.target / tag(python))
            staged[python] = libs / f"staging-{tag(python)}"
            install([own, *(w.path for w in wheels)], target, python, staged[python])
        paths = split_common(staged, libs)
    version = own.name.split("-")[1]
    info = {
        "checkspec": version,
        "target": args.target,
        "pythons": paths,
        "without": sorted(LEFT_OUT | target.unavailable),
    }
    (out / "bundle.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    secrets = find_secrets(out)
    if secrets:
        print("\n".join(f"bundle_server: {out / hit}" for hit in secrets), file=sys.stderr)
        shutil.rmtree(out, ignore_errors=True)
        print(f"bundle_server: secrets in the bundle; {out} removed", file=sys.stderr)
        return 1
    sizes = ", ".join(f"{p.name} {size_of(p) / 1e6:.1f} MB" for p in sorted(libs.iterdir()))
    print(
        f"bundled checkspec {version} for {args.target}, Python {', '.join(pythons)} into {libs}: {sizes}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
