// The language status of spec files: whether the server runs, its version and which
// executable it is (and where it was found), with Restart and Show Output at hand.

import * as vscode from "vscode";
import type { ServerManager, ServerState } from "./client";
import { SPEC_PATTERNS } from "./specFiles";
import { statusText } from "./statusText";

export function serverStatus(server: ServerManager): vscode.Disposable {
  const selector = SPEC_PATTERNS.map((pattern) => ({ scheme: "file", pattern }));
  const item = vscode.languages.createLanguageStatusItem("checkspec.server", selector);
  item.name = "checkspec language server";
  const logs = vscode.languages.createLanguageStatusItem("checkspec.output", selector);
  logs.name = "checkspec output";
  logs.text = "$(output) checkspec output";
  logs.command = { title: "Show Output", command: "checkspec.showOutput" };
  const show = (state: ServerState): void => {
    const shown = statusText(state, server.info);
    item.text = shown.text;
    item.detail = shown.detail;
    item.busy = state === "starting";
    item.severity = state === "failed" ? vscode.LanguageStatusSeverity.Error : vscode.LanguageStatusSeverity.Information;
    item.command = { title: "Restart", command: "checkspec.restartServer" };
  };
  show(server.state);
  const listener = server.onDidChangeState(show);
  return vscode.Disposable.from(item, logs, listener);
}
