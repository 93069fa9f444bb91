"""Workspace symbols over a suite of 8,000 scenarios: the index of a file never opened,
its fuzzy search, the answer's cap, and a change on disk followed.

Volume: a server of its own, untraced by coverage (tests/support/unmeasured.py): the
lines it runs are those test_server_curate.py's small workspace measures, 8,000 times.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.support.lsp_helpers import SERVER, position_of, start_session, symbols
from tests.support.paths import REPO
from tests.support.unmeasured import UNMEASURED_ENV

pytestmark = pytest.mark.asyncio(loop_scope="module")

UNMEASURED_SERVER = ClientServerConfig(
    server_command=SERVER.server_command, server_env=UNMEASURED_ENV
)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("symbols")
    (root / "checkspec.yaml").write_text("jobs: 1\n")
    return root


@pytest_lsp.fixture(scope="module", config=UNMEASURED_SERVER)
async def client(lsp_client: LanguageClient, workspace: Path):
    await start_session(lsp_client, workspace, folders=True)
    yield
    await lsp_client.shutdown_session()


async def test_workspace_symbols_over_8000_scenarios(
    client: LanguageClient, workspace: Path
) -> None:
    # How fast: bench/curate.py --only symbols (no timing in tests).
    sys.path.insert(0, str(REPO / "bench"))
    from workload import write_suite_yaml

    big = write_suite_yaml(workspace / "big" / "big.suite.yaml", 8000)
    assert len(await symbols(client, "scenario-07999")) == 1  # indexes the new file
    found = await symbols(client, "scenario-04242")
    assert [s.name for s in found] == ["scenario-04242"]
    assert found[0].location.uri == big.as_uri()
    text = big.read_text()
    assert found[0].location.range.start == position_of(text, "scenario-04242")
    assert len(await symbols(client, "case")) == 500  # the answer's cap
    assert "scenario-04242" in [s.name for s in await symbols(client, "scn04242")]  # fuzzy
    assert [s.name for s in await symbols(client, "where case 4242?")] == ["scenario-04242"]
    # A file not open changes on disk: the index follows it.
    big.write_text(text.replace("scenario-04242", "renamed-04242"))
    assert [s.name for s in await symbols(client, "renamed-04242")] == ["renamed-04242"]
    big.unlink()
    assert await symbols(client, "renamed-04242") == []
