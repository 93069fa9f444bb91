"""What the .vsix's bundled server carries (issue 48 item 9). Built from a developer's tree
it shipped an untracked `engine/llm/local_secrets.py` and a stale `build/lib` module
(pip built the wheel in the tree), packed the test folders of bundled libraries, and the
packaging's secret scan skipped `bundled/libs/*/checkspec`.

Here a copy of the repository (its tracked files, committed) gets those two planted,
untracked; tools/bundle_server.py builds checkspec's wheel from it and installs it as the
bundle does: neither is in the wheel or the bundle. A library's test folders are left
out, and the scan the bundle ends with flags a key planted in the bundled checkspec.

The wheel is built offline from the build system's wheels in build/wheelhouse (fetched
once, as `make package` does; skipped when they cannot be)."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.paths import REPO, load_script

# Made up, in the shape of an OpenAI project key (the scan knows keys by their shape).
FAKE_KEY = "sk-proj-" + "Q" * 40 + "T3BlbkFJ" + "Z" * 40
GIT = [
    "git",
    "-c",
    "user.name=t",
    "-c",
    "user.email=t@example.invalid",
    "-c",
    "core.hooksPath=/dev/null",
]

pytestmark = pytest.mark.subprocess


def _bundler() -> ModuleType:
    return load_script(REPO / "tools" / "bundle_server.py", "tools_bundle_server_contents")


bundler = _bundler()


@pytest.fixture(scope="module")
def developer_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's tracked files, committed in a git checkout of their own, with what
    a developer's tree may hold besides: a local secrets module and a stale build."""
    tree = tmp_path_factory.mktemp("tree")
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z"], check=True, capture_output=True
    ).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = REPO / name
        if source.is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, tree / name)
    subprocess.run([*GIT, "init", "-q", str(tree)], check=True)
    subprocess.run([*GIT, "-C", str(tree), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(tree), "commit", "-q", "-m", "copy"], check=True)
    (tree / "engine" / "llm" / "local_secrets.py").write_text(f'OPENAI_API_KEY = "{FAKE_KEY}"\n')
    stale = tree / "build" / "lib" / "checkspec" / "engine"
    stale.mkdir(parents=True)
    (stale / "stale_module.py").write_text("REMOVED_LAST_MONTH = True\n")
    return tree


@pytest.fixture(scope="module")
def wheel(developer_tree: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    wheelhouse = REPO / "build" / "wheelhouse"
    try:
        return bundler.build_wheel(tmp_path_factory.mktemp("wheel"), wheelhouse, developer_tree)  # type: ignore[no-any-return]
    except subprocess.CalledProcessError as exc:
        if not (wheelhouse / "build-system").is_dir():
            pytest.skip(f"the build system's wheels cannot be fetched into {wheelhouse}: {exc}")
        raise


def test_untracked_files_and_a_stale_build_are_not_packed(
    developer_tree: Path, wheel: Path, tmp_path: Path
) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "checkspec/engine/llm/client.py" in names  # tracked: packed
    assert not [n for n in names if "local_secrets" in n or "stale_module" in n]
    libs = tmp_path / "libs"
    bundler.install([wheel], bundler.TARGETS["linux-x64"], "3.11", libs)
    packed = [p.relative_to(libs).as_posix() for p in libs.rglob("*") if p.is_file()]
    assert "checkspec/engine/llm/client.py" in packed
    assert not [p for p in packed if "local_secrets" in p or "stale_module" in p]
    assert bundler.find_secrets(libs) == []
    # The developer's tree is left as it was: nothing built in it.
    assert (developer_tree / "engine" / "llm" / "local_secrets.py").is_file()
    assert not (developer_tree / "build" / "bdist.linux-x86_64").exists()


def test_a_key_in_the_bundled_checkspec_is_found(wheel: Path, tmp_path: Path) -> None:
    libs = tmp_path / "bundled" / "libs" / "cp311"
    bundler.install([wheel], bundler.TARGETS["linux-x64"], "3.11", libs)
    planted = libs / "checkspec" / "engine" / "llm" / "defaults.py"
    planted.write_text(f'# a key left in by mistake\nKEY = "{FAKE_KEY}"\n')
    found = bundler.find_secrets(tmp_path / "bundled")
    assert found == ["libs/cp311/checkspec/engine/llm/defaults.py:2: OpenAI key"]


def _library_wheel(folder: Path) -> Path:
    """A library with test suites inside it, as some on PyPI ship (fixtures and keys)."""
    path = folder / "somelib-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("somelib/__init__.py", "")
        archive.writestr("somelib/tests/__init__.py", "")
        archive.writestr("somelib/tests/data/key.pem", "not a key\n")
        archive.writestr("somelib/sub/test/test_sub.py", "")  # not a package: left before
        archive.writestr("somelib/testing.py", "HELPERS = 1\n")  # a module: kept
        archive.writestr(
            "somelib-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: somelib\nVersion: 1.0\n"
        )
        archive.writestr(
            "somelib-1.0.dist-info/WHEEL",
            "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        archive.writestr("somelib-1.0.dist-info/RECORD", "")
    return path


def test_the_test_folders_of_bundled_libraries_are_left_out(tmp_path: Path) -> None:
    libs = tmp_path / "libs"
    bundler.install([_library_wheel(tmp_path)], bundler.TARGETS["linux-x64"], "3.11", libs)
    packed = sorted(p.relative_to(libs).as_posix() for p in (libs / "somelib").rglob("*"))
    assert packed == ["somelib/__init__.py", "somelib/sub", "somelib/testing.py"]


def test_a_tree_that_is_not_a_git_checkout_is_refused(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[build-system]\nrequires = []\n")
    with pytest.raises(SystemExit, match="not a git checkout"):
        bundler.tracked_tree(tmp_path, tmp_path / "out")
