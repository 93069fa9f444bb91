"""The editor's settings and checkspec.yaml: workspace/didChangeConfiguration (or pulled
with workspace/configuration), and checkspec.yaml changed in the editor or on disk
(workspace/didChangeWatchedFiles, registered when the client allows it). Either may
change every diagnostic of the documents concerned."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import to_fs_path

from checkspec.engine.spec.kinds import CONFIG_NAMES, is_config_name

from . import diagnostics, workspace_scan
from .feature import handler
from .settings import SECTION, EditorSettings

if TYPE_CHECKING:
    from .host import Host


@handler(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: Host, params: types.DidChangeConfigurationParams) -> None:
    await apply_settings(ls, params.settings)


@handler(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: Host, params: types.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        path = to_fs_path(change.uri)
        if path is not None and is_config_name(path):
            config_changed(ls, Path(path))
    workspace_scan.files_changed(ls, params.changes)  # spec files: workspace diagnostics


async def apply_settings(ls: Host, settings: Any) -> None:
    """Use the `checkspec` settings given, or ask the client for them (pull model)."""
    if not (isinstance(settings, dict) and SECTION in settings) and can_pull_config(ls):
        try:
            pulled = await ls.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
            )
        except Exception as exc:  # a client that cannot answer keeps the current settings
            ls.log(f"checkspec: could not read the settings ({exc})", types.MessageType.Warning)
            return
        settings = pulled[0] if pulled else None
    for doc in ls.store.set_editor_settings(EditorSettings.from_client(settings)):
        diagnostics.publish(ls, doc.uri)
    workspace_scan.everything_changed(ls)  # workspace diagnostics (scope, settings)


def config_changed(ls: Host, config: Path) -> None:
    """checkspec.yaml changed: its custom checks and settings may change every diagnostic."""
    workspace_scan.everything_changed(ls)  # the unopened files' too
    for doc in ls.store.refresh(ls.store.using_config(config)):
        if not doc.is_config:
            diagnostics.publish_soon(ls, doc.uri)


def can_pull_config(ls: Host) -> bool:
    workspace = ls.client_capabilities.workspace
    return bool(workspace and workspace.configuration)


async def watch_configs(ls: Host) -> None:
    """Ask the client to tell us about checkspec.yaml changes made outside the editor."""
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace else None
    if not (watched and watched.dynamic_registration):
        return
    try:
        await ls.client_register_capability_async(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id="checkspec-config-watcher",
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=types.DidChangeWatchedFilesRegistrationOptions(
                            watchers=[
                                types.FileSystemWatcher(glob_pattern=f"**/{name}")
                                for name in CONFIG_NAMES
                            ]
                        ),
                    )
                ]
            )
        )
    except Exception as exc:  # the client refused: edits made in the editor still count
        ls.log(f"checkspec: not watching checkspec.yaml files ({exc})", types.MessageType.Warning)
