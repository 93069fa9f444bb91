"""Every target's .vsix (issue 39 item 1): `make -C vscode-extension package-all` builds
one package per VS Code target, each carrying the server for Python 3.11, 3.12 and 3.13.

Unpacks each package and checks, for every Python minor version, that its binary modules
are built for that target and that Python (the wheel tags pip installed them from, the
file names' ABI tags, and the machine in the ELF / Mach-O / PE header of every extension
module), that none of them sits in the shared folder unless it is abi3, and that the
linux-x64 package's files import, serve and validate with this machine's Python 3.11 and
3.13 (pyenv's).

Slow (minutes: five packages of about 30 MB, and the first run downloads the wheels into
build/wheelhouse), so it runs only under `make package-test` (CHECKSPEC_PACKAGE_TEST=1);
skipped, with the reason, when the wheelhouse cannot be filled (no route to PyPI).
CHECKSPEC_PACKAGE_DIR=vscode-extension checks the checkspec-<target>.vsix files there
(`make -C vscode-extension package-all`) instead of building them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.paths import REPO

EXTENSION = REPO / "vscode-extension"
NODE = shutil.which("node")
TARGETS = ("linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64")
PYTHONS = ("3.11", "3.12", "3.13")
# The wheel platform tags each target may carry.
PLATFORM_TAGS = {
    "linux-x64": r"manylinux(_\d+_\d+|2014|2010|1)_x86_64",
    "linux-arm64": r"manylinux(_\d+_\d+|2014)_aarch64",
    "darwin-x64": r"macosx_\d+_\d+_(x86_64|intel|universal2)",
    "darwin-arm64": r"macosx_\d+_\d+_(arm64|universal2)",
    "win32-x64": r"win_amd64",
}
# The CPU in an extension module's header: ELF e_machine, Mach-O cputype, PE machine.
ELF_MACHINE = {"x64": 0x3E, "arm64": 0xB7}
MACHO_CPU = {"x64": 0x01000007, "arm64": 0x0100000C}
PE_MACHINE = {"x64": 0x8664}
# Extension modules every Python's folders must hold (module path prefixes), and regorus's
# where the target has a wheel of it.
BINARY_MODULES = (
    "pydantic_core/_pydantic_core",
    "regex/_regex",
    "rpds/rpds",
    "jiter/jiter",
    "yaml/_yaml",
    "markupsafe/_speedups",
    "watchfiles/_rust_notify",
)
EXTENSION_SUFFIXES = (".so", ".pyd")

pytestmark = [
    pytest.mark.subprocess,
    pytest.mark.skipif(
        os.environ.get("CHECKSPEC_PACKAGE_TEST") != "1",
        reason="builds every target's .vsix (minutes): run `make package-test`",
    ),
]


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each target's .vsix, unpacked: target -> its `extension/` folder."""
    if NODE is None or not (EXTENSION / "node_modules" / "@vscode" / "vsce").is_dir():
        pytest.skip("node and vscode-extension/node_modules are needed: run `make package-test`")
    for target in TARGETS:
        fetched = subprocess.run(
            [
                sys.executable,
                str(REPO / "tools" / "bundle_server.py"),
                "--fetch",
                "--target",
                target,
            ],
            capture_output=True,
            text=True,
            timeout=1800,
        )
        if fetched.returncode != 0:
            errors = [ln for ln in fetched.stderr.splitlines() if "ERROR" in ln or "Error" in ln]
            pytest.skip(f"the wheelhouse for {target} cannot be built: {(errors or ['?'])[-1]}")
    out = tmp_path_factory.mktemp("vsix")
    if os.environ.get("CHECKSPEC_PACKAGE_DIR"):  # packages built already (package-all)
        out = Path(os.environ["CHECKSPEC_PACKAGE_DIR"])
    else:
        build(out)
    unpacked = {}
    for target in TARGETS:
        folder = tmp_path_factory.mktemp(target)
        with zipfile.ZipFile(out / f"checkspec-{target}.vsix") as archive:
            archive.extractall(folder)
        unpacked[target] = folder / "extension"
    return unpacked


def build(out: Path) -> None:
    assert NODE is not None
    built = subprocess.run(
        [NODE, "scripts/package.mjs", "--all", "--out-dir", str(out)],
        cwd=EXTENSION,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]


def bundle_of(extension: Path) -> dict[str, object]:
    return json.loads((extension / "bundled" / "bundle.json").read_text(encoding="utf-8"))


def folders_of(extension: Path, python: str) -> list[Path]:
    paths = bundle_of(extension)["pythons"]
    assert isinstance(paths, dict)
    return [extension / "bundled" / folder for folder in paths[python]]


def header_arches(path: Path) -> set[str]:
    """The CPUs an extension module is built for, read from its header."""
    head = path.read_bytes()[:4096]
    if head[:4] == b"\x7fELF":
        (machine,) = struct.unpack_from("<H", head, 18)
        return {arch for arch, number in ELF_MACHINE.items() if number == machine}
    if head[:4] == b"\xcf\xfa\xed\xfe":
        (cpu,) = struct.unpack_from("<I", head, 4)
        return {arch for arch, number in MACHO_CPU.items() if number == cpu}
    if head[:4] == b"\xca\xfe\xba\xbe":  # universal: one header per architecture
        (count,) = struct.unpack_from(">I", head, 4)
        cpus = {struct.unpack_from(">I", head, 8 + 20 * i)[0] for i in range(count)}
        return {arch for arch, number in MACHO_CPU.items() if number in cpus}
    if head[:2] == b"MZ":
        (offset,) = struct.unpack_from("<I", head, 0x3C)
        assert head[offset : offset + 4] == b"PE\0\0", path
        (machine,) = struct.unpack_from("<H", head, offset + 4)
        return {arch for arch, number in PE_MACHINE.items() if number == machine}
    raise AssertionError(f"{path}: not an ELF, Mach-O or PE file")


def abi_ok(interpreter: str, abi: str, minors: set[int]) -> bool:
    """A wheel's python/abi tags fit every Python minor in `minors` (3.X)."""
    found = re.fullmatch(r"cp3(\d+)", interpreter)
    if found is None:
        return interpreter.startswith("py3") and abi == "none"
    built_for = int(found.group(1))
    if abi == "abi3":
        return built_for <= min(minors)
    return minors == {built_for} and abi == f"cp3{built_for}"


@pytest.mark.parametrize("target", TARGETS)
def test_the_package_names_its_target_and_pythons(packages: dict[str, Path], target: str) -> None:
    bundle = bundle_of(packages[target])
    assert bundle["target"] == target
    assert sorted(bundle["pythons"]) == list(PYTHONS)  # type: ignore[call-overload]
    assert "litellm" in bundle["without"]  # type: ignore[operator]
    assert not list((packages[target] / "bundled").rglob("litellm"))


@pytest.mark.parametrize("target", TARGETS)
def test_binary_modules_carry_the_targets_platform_for_each_python(
    packages: dict[str, Path], target: str
) -> None:
    extension = packages[target]
    arch = target.split("-")[1]
    platform_tag = re.compile(PLATFORM_TAGS[target])
    bundled = extension / "bundled"
    # Which Pythons each folder serves: libs/common serves them all.
    serves: dict[Path, set[int]] = {}
    for python in PYTHONS:
        for folder in folders_of(extension, python):
            serves.setdefault(folder, set()).add(int(python.split(".")[1]))
    assert len(serves) == len(PYTHONS) + 1, serves
    checked_wheels = 0
    for folder, minors in serves.items():
        for wheel in folder.glob("*.dist-info/WHEEL"):
            fields = wheel.read_text(encoding="utf-8")
            if "Root-Is-Purelib: true" in fields:
                continue
            tags = re.findall(r"^Tag: (\S+)$", fields, re.MULTILINE)
            assert tags, wheel
            for tag in tags:
                interpreter, abi, platform = tag.split("-")
                assert abi_ok(interpreter, abi, minors), (
                    f"{wheel.relative_to(bundled)}: {tag} for 3.{minors}"
                )
                assert platform_tag.fullmatch(platform), (
                    f"{wheel.relative_to(bundled)}: {tag} is not for {target}"
                )
            checked_wheels += 1
        for module in (p for p in folder.rglob("*") if p.suffix in EXTENSION_SUFFIXES):
            name = module.relative_to(bundled)
            assert arch in header_arches(module), f"{name} is not built for {arch}"
            version = re.search(r"\.(?:cpython-|cp)3(\d+)", module.name)
            if version is not None:
                assert minors == {int(version.group(1))}, (
                    f"{name} is for 3.{version.group(1)}, not 3.{minors}"
                )
            else:
                assert "abi3" in module.name or module.suffix == ".pyd", name
    assert checked_wheels >= len(PYTHONS) * 5
    without = bundle_of(extension)["without"]
    wanted = [*BINARY_MODULES, *([] if "celine-regorus" in without else ["regorus/regorus"])]  # type: ignore[operator]
    for python in PYTHONS:
        modules = [
            str(p.relative_to(folder)).replace("\\", "/")
            for folder in folders_of(extension, python)
            for p in folder.rglob("*")
            if p.suffix in EXTENSION_SUFFIXES
        ]
        for prefix in wanted:
            assert any(m.startswith(prefix) for m in modules), (
                f"{target} has no {prefix} for Python {python}"
            )


def pyenv_python(version: str) -> Path | None:
    pyenv = shutil.which("pyenv")
    if pyenv is not None:
        prefix = subprocess.run([pyenv, "prefix", version], capture_output=True, text=True)
        if prefix.returncode == 0:
            return Path(prefix.stdout.strip().splitlines()[-1]) / "bin" / f"python{version}"
    found = sorted(Path.home().glob(f".pyenv/versions/{version}*/bin/python{version}"))
    return found[-1] if found else None


IMPORT_CHECK = """
import json, sys
import checkspec, pydantic_core, regex, rpds, jiter, yaml, markupsafe, regorus, watchfiles
import checkspec.server.main as server
from checkspec.engine.checks.rego_policy import compile_policy
compile_policy("package checkspec\\nallow if { true }")
print(json.dumps({"checkspec": server.__file__, "pydantic_core": pydantic_core.__file__,
                  "version": "%d.%d" % sys.version_info[:2]}))
"""


@pytest.mark.parametrize("python", ["3.11", "3.13"])
def test_the_linux_x64_package_imports_serves_and_validates(
    packages: dict[str, Path], python: str, tmp_path: Path
) -> None:
    interpreter = pyenv_python(python)
    if interpreter is None or not interpreter.exists():
        pytest.skip(f"no Python {python} here (pyenv versions)")
    extension = packages["linux-x64"]
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "PYTHONPATH": os.pathsep.join(str(f) for f in folders_of(extension, python)),
    }
    # -s: not the user's site-packages; the interpreter's own has no checkspec (asserted).
    done = subprocess.run(
        [str(interpreter), "-s", "-c", IMPORT_CHECK],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["version"] == python
    assert found["checkspec"].startswith(str(extension)), found
    assert found["pydantic_core"].startswith(
        str(extension / "bundled" / "libs" / f"cp3{python[2:]}")
    ), found

    bad = tmp_path / "bad.scenario.yaml"
    bad.write_text(
        "name: bad\nsteps:\n  - interacts:\n      - {inputs: hi, outputs: hello}\n"
        "    checks:\n      - {kind: string_matchnig, keyword: hello}\n",
        encoding="utf-8",
    )
    validate = subprocess.run(
        [
            str(interpreter),
            "-s",
            "-c",
            "from checkspec.engine.cli.main import main; raise SystemExit(main())",
            "validate",
            str(bad),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert validate.returncode == 2, validate.stdout + validate.stderr
    assert re.search(
        r"bad\.scenario\.yaml:6:\d+: .*string_matchnig", validate.stdout + validate.stderr
    )

    # The language server answers initialize over stdio, as the extension starts it.
    body = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
    )
    message = f"Content-Length: {len(body)}\r\n\r\n{body}".encode()
    exit_ = json.dumps({"jsonrpc": "2.0", "method": "exit"})
    message += f"Content-Length: {len(exit_)}\r\n\r\n{exit_}".encode()
    served = subprocess.run(
        [str(interpreter), "-s", "-m", "checkspec.server"],
        env=env,
        input=message,
        capture_output=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert b'"serverInfo"' in served.stdout, served.stdout[-2000:] + served.stderr[-2000:]
