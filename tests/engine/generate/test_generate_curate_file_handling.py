"""Files that `generate` and curation write (issue 36): the umask's mode for a new file,
the file's own mode kept by `--append` and by an edit, a link inside the workspace edited
at its target (the link stays a link), a link out of the workspace and a 0444 file
refused with `error:` and exit 2, nothing written."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from checkspec.engine.cli.main import main
from checkspec.engine.core.write import WriteRefused, write_bytes_atomically
from tests.support.generate_helpers import knowledge_base, model_fixture  # noqa: F401 (the fixture)
from tests.support.openai_stub import GenerationAnswers, OpenAIStub

Model = tuple[OpenAIStub, GenerationAnswers]
pytestmark = pytest.mark.skipif(os.name == "nt", reason="modes and links")

SUITE = """\
name: s
scenarios:
  - name: one
    target: python:agent:answer
    tags: [old]
    steps:
      - interacts: [{inputs: hi}]
        checks: [{kind: string_matching, keyword: ok}]
"""


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask_002():  # type: ignore[no-untyped-def]
    old = os.umask(0o002)
    yield
    os.umask(old)


def test_generate_writes_with_the_umask_and_append_keeps_the_mode(
    tmp_path: Path, model: Model, monkeypatch: pytest.MonkeyPatch, umask_002: None
) -> None:
    monkeypatch.chdir(tmp_path)
    kb = knowledge_base(tmp_path)
    out = tmp_path / "kb.dataset.yaml"
    assert main(["generate", "--from-docs", str(kb), "-n", "1", "-o", str(out)]) == 0
    assert mode(out) == 0o664  # 0666 & ~0002, not 0600
    out.chmod(0o640)
    assert main(["generate", "--from-docs", str(kb), "-n", "1", "-o", str(out), "--append"]) == 0
    assert mode(out) == 0o640


def test_generate_o_on_a_link_writes_its_target_inside_and_refuses_one_outside(
    tmp_path: Path,
    model: Model,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "checkspec.yaml").write_text("{}\n")
    monkeypatch.chdir(workspace)
    kb = knowledge_base(tmp_path)
    shared = workspace / "shared.dataset.yaml"
    assert main(["generate", "--from-docs", str(kb), "-n", "1", "-o", str(shared)]) == 0
    link = workspace / "link.dataset.yaml"
    link.symlink_to(shared)
    assert main(["generate", "--from-docs", str(kb), "-n", "1", "-o", str(link), "--append"]) == 0
    assert link.is_symlink() and shared.read_text().count("- name:") == 2
    outside = tmp_path / "outside.dataset.yaml"
    outside.write_text("precious\n")
    escape = workspace / "escape.dataset.yaml"
    escape.symlink_to(outside)
    capsys.readouterr()
    assert main(["generate", "--from-docs", str(kb), "-n", "1", "-o", str(escape), "--force"]) == 2
    assert "is a link out of the workspace" in capsys.readouterr().err
    assert outside.read_text() == "precious\n" and escape.is_symlink()


def test_generate_refuses_a_read_only_file(
    tmp_path: Path,
    model: Model,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    kb = knowledge_base(tmp_path)
    out = tmp_path / "kb.dataset.yaml"
    assert main(["generate", "--from-docs", str(kb), "-n", "1", "-o", str(out)]) == 0
    before = out.read_bytes()
    out.chmod(0o444)
    assert main(["generate", "--from-docs", str(kb), "-n", "1", "-o", str(out), "--append"]) == 2
    assert "is read-only (mode 0444)" in capsys.readouterr().err
    assert out.read_bytes() == before


def test_curation_through_a_link_edits_the_shared_file_and_keeps_the_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = tmp_path / "ws"
    (workspace / "shared").mkdir(parents=True)
    (workspace / "checkspec.yaml").write_text("{}\n")
    shared = workspace / "shared" / "s.suite.yaml"
    shared.write_text(SUITE)
    shared.chmod(0o640)
    link = workspace / "l.suite.yaml"
    link.symlink_to(shared)
    monkeypatch.chdir(workspace)
    assert main(["tag", "add", "new", str(link)]) == 0
    assert link.is_symlink()
    assert "new" in shared.read_text() and mode(shared) == 0o640


def test_curation_refuses_a_link_out_of_the_workspace_and_a_read_only_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "checkspec.yaml").write_text("{}\n")
    outside = tmp_path / "outside.suite.yaml"
    outside.write_text(SUITE)
    (workspace / "l.suite.yaml").symlink_to(outside)
    frozen = workspace / "frozen.suite.yaml"
    frozen.write_text(SUITE)
    frozen.chmod(0o444)
    monkeypatch.chdir(workspace)
    assert main(["tag", "add", "new", str(workspace / "l.suite.yaml")]) == 2
    assert "is a link out of the workspace" in capsys.readouterr().err
    assert outside.read_text() == SUITE
    assert main(["tag", "add", "new", str(frozen)]) == 2
    assert "is read-only (mode 0444)" in capsys.readouterr().err
    assert frozen.read_text() == SUITE


def test_write_bytes_atomically_refuses_a_dangling_link(tmp_path: Path) -> None:
    (tmp_path / "l").symlink_to(tmp_path / "nowhere")
    with pytest.raises(WriteRefused, match="leads nowhere"):
        write_bytes_atomically(tmp_path / "l", b"x", tmp_path)
