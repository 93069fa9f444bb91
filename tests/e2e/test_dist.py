"""What PyPI would get (`make dist`): the sdist and the wheel pass `twine check`, the sdist
holds everything the wheel is built from, and the wheel installed into a clean venv runs
the command line, the HTML report and the language server, on the oldest and the newest
supported Python.

The clean venv takes the package from the wheel alone (no editable install, no source
tree on its path); its dependencies come from the project's own venv for that Python (a
path entry, whose .pth files are not processed), so the test needs no network.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import textwrap
import zipfile
from pathlib import Path

import pytest

from tests.support.paths import REPO

# The project's venvs per Python (make install, make install PYTHON=python3.13).
VENVS = {"3.11": REPO / ".venv", "3.13": REPO / ".venv-python3.13"}


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(REPO)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return out


def _wheel(dist: Path) -> Path:
    (wheel,) = dist.glob("checkspec-*.whl")
    return wheel


def test_twine_accepts_the_sdist_and_the_wheel(dist: Path) -> None:
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, sorted(dist.iterdir()))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    metadata = zipfile.ZipFile(_wheel(dist)).read(
        next(n for n in zipfile.ZipFile(_wheel(dist)).namelist() if n.endswith("/METADATA"))
    )
    text = metadata.decode()
    assert "License-Expression: MIT" in text and "License-File: LICENSE" in text
    assert "Project-URL: Repository," in text
    assert "Requires-Python: >=3.11" in text


def test_the_wheel_built_from_the_sdist_equals_the_wheel(dist: Path, tmp_path: Path) -> None:
    """The sdist holds the schemas, prompts, HTML assets and the rest: a wheel made from it
    has the same files as the one made from the repository."""
    (sdist,) = dist.glob("checkspec-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    root = names[0].split("/")[0]
    for needed in (
        "LICENSE",
        "README.md",
        "schemas/catalog.json",
        "engine/html/assets/page.html",
        "engine/judges/prompts",
        "server/initialize_answers.json",
    ):
        assert any(n == f"{root}/{needed}" or n.startswith(f"{root}/{needed}/") for n in names)
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path, filter="data")
    again = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"),
            *("-w", str(tmp_path / "again"), str(tmp_path / root)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert again.returncode == 0, again.stderr[-3000:]
    (rebuilt,) = (tmp_path / "again").glob("checkspec-*.whl")
    assert sorted(zipfile.ZipFile(rebuilt).namelist()) == sorted(
        zipfile.ZipFile(_wheel(dist)).namelist()
    )


SUITE = """\
name: shop
scenarios:
  - name: refund <b>asked</b>
    steps:
      - interacts: [{inputs: "Can I get a refund?", outputs: "Yes, within 30 days."}]
        checks: [{kind: string_matching, keyword: "30 days"}]
"""


def _initialize(command: list[str], cwd: Path) -> dict[str, object]:
    """`checkspec lsp` answers initialize, then shuts down and exits 0."""

    def frame(message: dict[str, object]) -> bytes:
        body = json.dumps(message).encode()
        return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)

    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    done = subprocess.run(
        command,
        input=b"".join(frame(m) for m in messages),
        capture_output=True,
        cwd=cwd,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    header, _, rest = done.stdout.partition(b"\r\n\r\n")
    length = int(header.split(b":")[1])
    return json.loads(rest[:length])


@pytest.mark.parametrize("version", sorted(VENVS))
def test_the_wheel_runs_in_a_clean_venv(dist: Path, tmp_path: Path, version: str) -> None:
    project = VENVS[version]
    if not (project / "bin" / "python").exists():
        pytest.skip(f"no project venv for Python {version} (make install PYTHON=python{version})")
    venv = tmp_path / "venv"
    # Without pip of its own (bootstrapping one costs seconds): the project's pip installs
    # into it (`pip --python`).
    subprocess.run(
        [str(project / "bin" / "python"), "-m", "venv", "--without-pip", str(venv)],
        check=True,
        timeout=300,
    )
    python = venv / "bin" / "python"
    installed = subprocess.run(
        [
            *(str(project / "bin" / "python"), "-m", "pip", "--python", str(python)),
            *("install", "-q", "--no-deps", "--no-index", str(_wheel(dist))),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stderr
    site = Path(
        subprocess.check_output(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            text=True,
        ).strip()
    )
    dependencies = subprocess.check_output(
        [
            str(project / "bin" / "python"),
            "-c",
            "import pydantic, os; print(os.path.dirname(os.path.dirname(pydantic.__file__)))",
        ],
        text=True,
    ).strip()
    (site / "zz_project_dependencies.pth").write_text(dependencies + "\n")
    checkspec = venv / "bin" / "checkspec"
    where = subprocess.check_output(
        [
            str(python),
            "-c",
            "import checkspec.engine as e, sys; print(e.__file__); print(sys.version)",
        ],
        text=True,
        cwd=tmp_path,
    )
    assert where.startswith(str(site)) and where.splitlines()[1].startswith(version), where

    version_out = subprocess.run(
        [str(checkspec), "--version"], capture_output=True, text=True, timeout=120
    )
    assert version_out.returncode == 0 and "0." in version_out.stdout, version_out

    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "checkspec.yaml").write_text("{}\n")
    (workspace / "shop.suite.yaml").write_text(SUITE)
    valid = subprocess.run(
        [str(checkspec), "validate", "."],
        capture_output=True,
        text=True,
        cwd=workspace,
        timeout=120,
    )
    assert valid.returncode == 0, valid.stdout + valid.stderr
    (workspace / "bad.suite.yaml").write_text(textwrap.dedent(SUITE).replace("keyword", "keywrd"))
    invalid = subprocess.run(
        [str(checkspec), "validate", "bad.suite.yaml"],
        capture_output=True,
        text=True,
        cwd=workspace,
        timeout=120,
    )
    assert invalid.returncode == 2 and "bad.suite.yaml:6:" in invalid.stdout + invalid.stderr
    (workspace / "bad.suite.yaml").unlink()

    page = subprocess.run(
        [str(checkspec), "run", ".", "--format", "html", "--no-history"],
        capture_output=True,
        text=True,
        cwd=workspace,
        timeout=300,
    )
    assert page.returncode == 0, page.stderr
    assert page.stdout.lstrip().lower().startswith("<!doctype html")
    assert "refund \\u003cb>asked\\u003c/b>" in page.stdout  # the name, as data, escaped

    answer = _initialize([str(checkspec), "lsp"], workspace)
    capabilities = answer["result"]["capabilities"]  # type: ignore[index]
    assert "completionProvider" in capabilities and "hoverProvider" in capabilities
