// The curation code actions that need an answer: a quick pick of the workspace's tags
// (with their counts) or of its suites and datasets, or an input box for a comment; then
// the server's checkspec.curate makes the edit, applied as one WorkspaceEdit (one undo).

import * as vscode from "vscode";
import { ExecuteCommandRequest, type LanguageClient } from "vscode-languageclient/node";
import type { ServerManager } from "./client";
import {
  CURATE,
  LIST_TAGS,
  curateTarget,
  fileItems,
  parseCurateAnswer,
  RECORD_OUTPUTS,
  recordedMessage,
  staleDocuments,
  tagItems,
  typed,
  type PickItem,
} from "./curateRequest";

export class Curation {
  constructor(private readonly server: ServerManager) {}

  async pickTag(uri: unknown, indexes: unknown): Promise<void> {
    const target = curateTarget(uri, indexes);
    const client = target === undefined ? undefined : await this.server.ready();
    if (target === undefined || client === undefined) return;
    const counts: unknown = await client.sendRequest(ExecuteCommandRequest.type, { command: LIST_TAGS, arguments: [] }).catch(() => ({}));
    const tag = await pick(tagItems(counts), "Tag to add", "New tag");
    if (tag !== undefined) await this.curate(client, target, "tag add", tag);
  }

  async pickFile(uri: unknown, indexes: unknown): Promise<void> {
    const target = curateTarget(uri, indexes);
    const client = target === undefined ? undefined : await this.server.ready();
    if (target === undefined || client === undefined) return;
    const found = await vscode.workspace.findFiles("**/*.{suite,dataset}.{yaml,yml,json,jsonl}", "**/node_modules/**");
    const from = vscode.Uri.parse(target.uri).fsPath;
    const file = await pick(fileItems(found.map((u) => u.fsPath), from), "Move to", "New file (e.g. archive.suite.yaml)");
    if (file !== undefined) await this.curate(client, target, "move", file);
  }

  async askComment(uri: unknown, indexes: unknown): Promise<void> {
    const target = curateTarget(uri, indexes);
    const client = target === undefined ? undefined : await this.server.ready();
    if (target === undefined || client === undefined) return;
    const text = typed(await vscode.window.showInputBox({ prompt: "Comment on the selected scenarios" }));
    if (text !== undefined) await this.curate(client, target, "comment", text);
  }

  /** "Record outputs from the target": the server runs the scenarios and applies the edit. */
  async recordOutputs(uri: unknown, indexes: unknown): Promise<void> {
    const target = curateTarget(uri, indexes);
    const client = target === undefined ? undefined : await this.server.ready();
    if (target === undefined || client === undefined) return;
    const answer: unknown = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "checkspec: recording outputs from the target" },
      () =>
        client
          .sendRequest(ExecuteCommandRequest.type, { command: RECORD_OUTPUTS, arguments: [target.uri, target.indexes] })
          .catch((error: unknown) => ({ error: error instanceof Error ? error.message : String(error) })),
    );
    const told = recordedMessage(answer);
    if (told.ok) void vscode.window.showInformationMessage(`checkspec: ${told.message}`);
    else void vscode.window.showErrorMessage(`checkspec: ${told.message}`);
  }

  private async curate(client: LanguageClient, target: { uri: string; indexes: number[] }, operation: string, value: string): Promise<void> {
    const answer: unknown = await client
      .sendRequest(ExecuteCommandRequest.type, { command: CURATE, arguments: [target.uri, target.indexes, operation, value] })
      .catch((error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }));
    const parsed = parseCurateAnswer(answer);
    if (!parsed.ok) {
      void vscode.window.showErrorMessage(`checkspec: ${parsed.message}`);
      return;
    }
    // An open file's edit names the version it was made on: typed into since, it is refused.
    const versionOf = (uri: string) => vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri)?.version;
    const stale = staleDocuments(parsed.edit, versionOf);
    if (stale.length > 0) {
      void vscode.window.showErrorMessage(`checkspec: ${stale.map((uri) => vscode.Uri.parse(uri).fsPath).join(", ")} changed meanwhile; nothing was applied (try again)`);
      return;
    }
    const edit = await client.protocol2CodeConverter.asWorkspaceEdit(parsed.edit as never);
    if (edit !== undefined) await vscode.workspace.applyEdit(edit);
  }
}

/** A quick pick whose last item asks for a new value in an input box. */
async function pick(items: PickItem[], placeHolder: string, prompt: string): Promise<string | undefined> {
  const chosen = await vscode.window.showQuickPick(items, { placeHolder });
  if (chosen === undefined) return undefined;
  if (chosen.value !== undefined) return chosen.value;
  return typed(await vscode.window.showInputBox({ prompt }));
}
