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
  const runs = info.runs ?? 0;
  if (state === "running" && runs > 0) {
    const shown = `${text} · ${runs} run${runs === 1 ? "" : "s"}`;
    return { text: shown, detail: statusDetail(info) };
  }
  if (state === "failed" && info.problem !== undefined) return { text, detail: info.problem };
  return { text, detail: statusDetail(info) };
}

function statusDetail(info: ServerInfo): string {
  const source = SOURCES[info.source] ?? "";
  return [info.command, source].filter(Boolean).join(" — ");
}
