// What the language status says about the server: state, version, executable. Pure.

import type { ServerInfo, ServerState } from "./client";

const SOURCES: Readonly<Record<string, string>> = {
  setting: "from checkspec.server.path",
  workspace: "from the workspace's virtualenv",
  path: "from PATH",
  bundled: "bundled with the extension",
};

export function statusText(state: ServerState, info: ServerInfo | undefined): { text: string; detail: string } {
  const version = info?.version === undefined ? "" : ` ${info.version}`;
  const text = {
    running: `$(check) checkspec${version}`,
    starting: "$(sync~spin) checkspec starting",
    stopped: "$(circle-slash) checkspec stopped",
    failed: "$(error) checkspec not running",
  }[state];
  if (info === undefined) return { text, detail: "" };
  if (state === "failed" && info.problem !== undefined) return { text, detail: info.problem };
  const source = SOURCES[info.source] ?? "";
  return { text, detail: [info.command, source].filter(Boolean).join(" — ") };
}
