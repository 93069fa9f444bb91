"""tools/bundle_server.py works out each target's and Python's wheels itself (issue 39
item 1): pip evaluates environment markers for the Python running it, not for the target,
so the closure of the requirements is computed from the wheels' metadata with the
target's markers; and what every Python's folder holds the same moves to libs/common."""

from __future__ import annotations

import zipfile
from pathlib import Path
from types import ModuleType

from tests.support.paths import REPO, load_script


def _bundler() -> ModuleType:
    return load_script(REPO / "tools" / "bundle_server.py", "tools_bundle_server")


bundler = _bundler()


def wheel(folder: Path, name: str, version: str, *requires: str, tag: str = "py3-none-any") -> Path:
    """A wheel holding only its METADATA, which is all the closure reads."""
    path = folder / f"{name}-{version}-{tag}.whl"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    metadata += "".join(f"Requires-Dist: {r}\n" for r in requires)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{name}-{version}.dist-info/METADATA", metadata)
    return path


def names(wheels: list[object]) -> list[str]:
    return sorted(w.name for w in wheels)  # type: ignore[attr-defined]


def test_markers_are_evaluated_for_the_target_not_this_python(tmp_path: Path) -> None:
    for args in [
        ("anyio", "4.0", 'typing_extensions>=4.5; python_version < "3.13"', "idna"),
        ("typing_extensions", "4.12"),
        ("idna", "3.7"),
        ("tqdm", "4.66", 'colorama; platform_system == "Windows"'),
        ("colorama", "0.4.6"),
    ]:
        wheel(tmp_path, *args)
    wheels = [bundler.read_wheel(p) for p in tmp_path.glob("*.whl")]
    roots = ["anyio>=4", "tqdm"]
    linux = bundler.TARGETS["linux-x64"]
    windows = bundler.TARGETS["win32-x64"]
    assert names(bundler.closure(roots, wheels, linux.environment("3.11"))[0]) == [
        "anyio",
        "idna",
        "tqdm",
        "typing-extensions",
    ]
    assert names(bundler.closure(roots, wheels, linux.environment("3.13"))[0]) == [
        "anyio",
        "idna",
        "tqdm",
    ]
    assert "colorama" in names(bundler.closure(roots, wheels, windows.environment("3.13"))[0])


def test_what_is_missing_is_asked_for_and_left_out_projects_are_not(tmp_path: Path) -> None:
    wheel(tmp_path, "openai", "1.50", "httpx<1,>=0.23", "pydantic[email]>=2")
    wheel(tmp_path, "httpx", "0.27")
    wheel(tmp_path, "pydantic", "2.9", 'email-validator>=2; extra == "email"')
    wheels = [bundler.read_wheel(p) for p in tmp_path.glob("*.whl")]
    chosen, missing = bundler.closure(
        ["openai", "litellm>=1.60"], wheels, bundler.TARGETS["darwin-arm64"].environment("3.12")
    )
    assert names(chosen) == ["httpx", "openai", "pydantic"]
    # The extra asked for pulls in its own requirement; litellm is never asked for.
    assert missing == ["email-validator>=2"]


def test_a_project_without_wheels_for_the_target_is_left_out(tmp_path: Path) -> None:
    wheel(tmp_path, "pydantic", "2.9")
    wheels = [bundler.read_wheel(p) for p in tmp_path.glob("*.whl")]
    arm = bundler.TARGETS["linux-arm64"]
    chosen, missing = bundler.closure(
        ["pydantic", "celine-regorus>=0.5"],
        wheels,
        arm.environment("3.11"),
        bundler.LEFT_OUT | arm.unavailable,
    )
    assert (names(chosen), missing) == (["pydantic"], [])


def test_what_every_python_holds_the_same_is_shared(tmp_path: Path) -> None:
    libs = tmp_path / "libs"
    staged = {}
    for python in ("3.11", "3.13"):
        folder = libs / f"staging-{python}"
        (folder / "pydantic").mkdir(parents=True)
        (folder / "pydantic" / "__init__.py").write_text("pure\n")
        (folder / "pydantic_core").mkdir()
        (folder / "pydantic_core" / f"_core.cpython-3{python[2:]}-x86_64-linux-gnu.so").write_bytes(
            b"\x7fELF" + python.encode()
        )
        (folder / "typing_extensions.py").write_text(f"for {python}\n")
        staged[python] = folder
    paths = bundler.split_common(staged, libs)
    assert paths == {"3.11": ["libs/cp311", "libs/common"], "3.13": ["libs/cp313", "libs/common"]}
    assert sorted(p.name for p in (libs / "common").iterdir()) == ["pydantic"]
    assert sorted(p.name for p in (libs / "cp311").iterdir()) == [
        "pydantic_core",
        "typing_extensions.py",
    ]
    assert sorted(p.name for p in libs.iterdir()) == ["common", "cp311", "cp313"]
