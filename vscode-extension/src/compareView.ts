// "checkspec: Compare with Previous Run": the compare page of the file's last two recorded
// runs (from the run history, `checkspec.compareWithPrevious [uri]` on the server) in a
// webview (one panel, reused). The page's script renders its embedded data; it fetches
// nothing (no local resources, no network: its CSP says so).

import * as vscode from "vscode";
import { ExecuteCommandRequest } from "vscode-languageclient/node";
import type { ServerManager } from "./client";
import { COMPARE_WITH_PREVIOUS, errorHtml, parseCompareAnswer } from "./compareRequest";
import { isRunnableSpec } from "./specFiles";

export { COMPARE_WITH_PREVIOUS };

export class CompareView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;

  constructor(private readonly server: ServerManager) {}

  dispose(): void {
    this.panel?.dispose();
  }

  async show(target?: unknown): Promise<void> {
    const uri = typeof target === "string" ? vscode.Uri.parse(target) : target instanceof vscode.Uri ? target : vscode.window.activeTextEditor?.document.uri;
    if (uri === undefined || !isRunnableSpec(uri.path)) {
      void vscode.window.showInformationMessage("checkspec: open a *.scenario, *.suite or *.dataset file first.");
      return;
    }
    const client = await this.server.ready();
    if (client === undefined) return;
    const answer = parseCompareAnswer(
      await client
        .sendRequest(ExecuteCommandRequest.type, { command: COMPARE_WITH_PREVIOUS, arguments: [client.code2ProtocolConverter.asUri(uri)] })
        .catch((error: unknown) => ({ error: `could not ask the server: ${error instanceof Error ? error.message : String(error)}` })),
    );
    const panel = this.reveal();
    if ("error" in answer) {
      panel.title = "Compare with previous run";
      panel.webview.html = errorHtml(answer.error);
      return;
    }
    panel.title = answer.title;
    panel.webview.html = answer.html;
  }

  private reveal(): vscode.WebviewPanel {
    if (this.panel !== undefined) {
      this.panel.reveal(vscode.ViewColumn.Beside, true);
      return this.panel;
    }
    const panel = vscode.window.createWebviewPanel("checkspec.compare", "Compare with previous run", { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
      enableScripts: true, // the page's own inline script renders its rows
      enableCommandUris: false,
      localResourceRoots: [],
    });
    panel.onDidDispose(() => (this.panel = undefined));
    this.panel = panel;
    return panel;
  }
}
