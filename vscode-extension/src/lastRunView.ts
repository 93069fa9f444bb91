// "checkspec: Show Last Run": the transcript of a scenario's last run in a webview (one
// panel, reused), asked from the server (`checkspec.showLastRun [uri, index]`), which keeps
// each scenario's last result while its text is unchanged. The page runs no script.

import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { ExecuteCommandRequest } from "vscode-languageclient/node";
import type { ServerManager } from "./client";
import type { Runner } from "./run";
import { scenarioAt } from "./scenarios";
import { isRunnableSpec } from "./specFiles";
import { parseTranscript, transcriptHtml } from "./transcript";

export const SHOW_LAST_RUN = "checkspec.showLastRun"; // [uri, scenario index]

export class LastRunView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;

  constructor(
    private readonly server: ServerManager,
    private readonly runner: Runner,
  ) {}

  dispose(): void {
    this.panel?.dispose();
  }

  /** From a lens: (uri string, index); from the palette: the scenario at the cursor. */
  async show(target?: unknown, index?: unknown): Promise<void> {
    const uri = typeof target === "string" ? vscode.Uri.parse(target) : target instanceof vscode.Uri ? target : vscode.window.activeTextEditor?.document.uri;
    if (uri === undefined || !isRunnableSpec(uri.path)) {
      void vscode.window.showInformationMessage("checkspec: open a *.scenario, *.suite or *.dataset file first.");
      return;
    }
    const scenario = typeof index === "number" ? index : await this.scenarioAtCursor(uri);
    if (scenario === undefined) return;
    const client = await this.server.ready();
    if (client === undefined) return;
    const answer: unknown = await client
      .sendRequest(ExecuteCommandRequest.type, { command: SHOW_LAST_RUN, arguments: [client.code2ProtocolConverter.asUri(uri), scenario] })
      .catch((error: unknown) => ({ error: `could not ask the server: ${error instanceof Error ? error.message : String(error)}` }));
    const transcript = parseTranscript(answer);
    const panel = this.reveal();
    panel.title = `Last run: ${transcript.scenario || vscode.workspace.asRelativePath(uri, false)}`;
    panel.webview.html = transcriptHtml(transcript, randomBytes(16).toString("base64"), panel.webview.cspSource);
  }

  private reveal(): vscode.WebviewPanel {
    if (this.panel !== undefined) {
      this.panel.reveal(vscode.ViewColumn.Beside, true);
      return this.panel;
    }
    const panel = vscode.window.createWebviewPanel("checkspec.lastRun", "Last run", { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
      enableScripts: false,
      enableCommandUris: false,
      localResourceRoots: [],
    });
    panel.onDidDispose(() => (this.panel = undefined));
    this.panel = panel;
    return panel;
  }

  private async scenarioAtCursor(uri: vscode.Uri): Promise<number | undefined> {
    const scenarios = (await this.runner.scenarios(uri)) ?? [];
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
    const here = editor === undefined ? undefined : scenarioAt(scenarios, editor.selection.active);
    if (here !== undefined) return here.index;
    const picked = await vscode.window.showQuickPick(
      scenarios.map((s) => ({ label: s.name, description: s.detail, index: s.index })),
      { placeHolder: "Show the last run of which scenario?" },
    );
    return picked?.index;
  }
}
