"""The VS Code extension can be published as it is (issue 39 item 3): package.json names
its repository, homepage, bugs page and icon, the package carries the licence and a
changelog, and packaging needs neither --allow-missing-repository nor --skip-license."""

from __future__ import annotations

import json
import struct

from tests.support.paths import REPO

EXTENSION = REPO / "vscode-extension"


def test_the_manifest_names_what_a_marketplace_needs() -> None:
    manifest = json.loads((EXTENSION / "package.json").read_text())
    assert manifest["repository"]["url"].startswith("https://github.com/")
    assert manifest["homepage"].startswith("https://") and manifest["bugs"]["url"]
    assert manifest["license"] == "MIT"
    icon = EXTENSION / manifest["icon"]
    header = icon.read_bytes()[:24]
    assert header.startswith(b"\x89PNG") and struct.unpack(">II", header[16:24]) == (128, 128)
    for script in manifest["scripts"].values():
        assert "--allow-missing-repository" not in script and "--skip-license" not in script


def test_the_package_carries_the_licence_the_changelog_and_the_icon() -> None:
    assert (EXTENSION / "LICENSE").read_text() == (REPO / "LICENSE").read_text()
    assert (EXTENSION / "CHANGELOG.md").read_text().startswith("# Changelog")
    kept = (EXTENSION / ".vscodeignore").read_text().splitlines()
    assert {"!LICENSE", "!CHANGELOG.md", "!images/icon.png"} <= set(kept)
