// "checkspec: Generate Scenarios…": quick picks for the source (a preset, a persona, a
// knowledge base, its topics and the voice its questions are asked in, or more like the
// open dataset) and the count, then the
// server's `checkspec.generate` (in a worker of the server's pool) under a cancellable
// notification fed by its work-done progress; the new file opens when it is written.
// Called with a request object (the "Generate N more like these" code action), it skips
// the picks.

import { existsSync } from "node:fs";
import * as vscode from "vscode";
import { ExecuteCommandRequest, WorkDoneProgress } from "vscode-languageclient/node";
import type { ServerManager } from "./client";
import {
  GENERATE,
  LIST_PRESETS,
  LIST_TOPICS,
  countProblem,
  freeOutput,
  generateRequest,
  namedItems,
  parseGenerateAnswer,
  type GenerateAnswer,
  type GenerateRequest,
  type Source,
  type Voice,
} from "./generateRequest";

export { GENERATE };

let generations = 0;

export class Generation {
  constructor(private readonly server: ServerManager) {}

  async run(given?: unknown): Promise<GenerateAnswer | undefined> {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage("checkspec generates scenarios only in a trusted workspace.");
      return undefined;
    }
    const request = isRequest(given) ? given : await this.ask();
    if (request === undefined) return undefined;
    const answer = await this.send(request);
    if (answer.status === "written" && answer.output !== undefined) {
      const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(answer.output));
      await vscode.window.showTextDocument(document);
      void vscode.window.showInformationMessage(`checkspec: ${answer.summary ?? "scenarios generated"}`);
    } else if (answer.status === "error") {
      void vscode.window.showErrorMessage(`checkspec: ${answer.error ?? "the generation failed"}`);
    }
    return answer;
  }

  private async ask(): Promise<GenerateRequest | undefined> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const active = vscode.window.activeTextEditor?.document.uri;
    const onDataset = active !== undefined && /\.dataset\.(ya?ml|jsonl)$/.test(active.path);
    const choices = [
      { label: "From a persona preset", from: "preset" as const },
      { label: "From a persona, in words", from: "persona" as const },
      { label: "From a knowledge base (documents)", from: "docs" as const },
      ...(onDataset ? [{ label: "More like this dataset's scenarios", from: "like" as const }] : []),
    ];
    const picked = await vscode.window.showQuickPick(choices, { placeHolder: "Generate scenarios from…" });
    if (picked === undefined) return undefined;
    let source: Source | undefined;
    let stem = "generated";
    if (picked.from === "preset") {
      const presets = await this.named(LIST_PRESETS, [], "presets");
      const preset = presets && (await vscode.window.showQuickPick(presets.map((p) => ({ label: p.name, detail: p.detail })), { placeHolder: "Which preset?" }));
      if (!preset) return undefined;
      source = { kind: "preset", name: preset.label };
      stem = preset.label;
    } else if (picked.from === "persona") {
      const text = await vscode.window.showInputBox({ prompt: "Describe the user (persona)", placeHolder: "An impatient customer who…" });
      if (!text?.trim()) return undefined;
      source = { kind: "persona", text };
      stem = "persona";
    } else if (picked.from === "docs") {
      const chosen = await vscode.window.showOpenDialog({ canSelectFiles: true, canSelectFolders: true, canSelectMany: true, openLabel: "Use as knowledge base" });
      if (!chosen || chosen.length === 0) return undefined;
      const paths = chosen.map((uri) => uri.fsPath);
      const topics = await this.named(LIST_TOPICS, [{ docs: paths }], "topics");
      if (topics === undefined) return undefined;
      const kept = topics.length > 1 ? await vscode.window.showQuickPick(topics.map((t) => ({ label: t.name, description: t.detail })), { placeHolder: "Only some topics? (none picked: all)", canPickMany: true }) : [];
      if (kept === undefined) return undefined;
      const voice = await this.voice();
      if (voice === null) return undefined;
      source = { kind: "docs", paths, topics: kept.map((t) => t.label), ...(voice === undefined ? {} : { voice }) };
      stem = chosen[0]?.path.split("/").pop()?.replace(/\.[^.]*$/, "") ?? "knowledge";
    } else if (active !== undefined) {
      source = { kind: "like", path: active.fsPath };
    }
    if (source === undefined) return undefined;
    const count = await vscode.window.showInputBox({ prompt: "How many scenarios?", value: "10", validateInput: countProblem });
    if (count === undefined || countProblem(count) !== undefined) return undefined;
    if (source.kind === "like" && active !== undefined) return generateRequest(source, active.fsPath, Number(count), true);
    const base = folder ?? (active !== undefined ? active.fsPath.replace(/\/[^/]*$/, "") : undefined);
    if (base === undefined) {
      void vscode.window.showInformationMessage("checkspec: open a folder first: the new dataset is written there.");
      return undefined;
    }
    return generateRequest(source, freeOutput(base, stem, existsSync), Number(count));
  }

  /** Whose voice the document questions are asked in: undefined for none, null when dismissed. */
  private async voice(): Promise<Voice | undefined | null> {
    const presets = (await this.named(LIST_PRESETS, [], "presets")) ?? [];
    const items = [
      { label: "No persona", detail: "plain questions about the documents", voice: "none" as const },
      ...presets.map((p) => ({ label: p.name, detail: p.detail, voice: "preset" as const })),
      { label: "A persona, in words…", detail: "describe the user", voice: "words" as const },
    ];
    const picked = await vscode.window.showQuickPick(items, { placeHolder: "Ask the questions in whose voice?" });
    if (picked === undefined) return null;
    if (picked.voice === "none") return undefined;
    if (picked.voice === "preset") return { preset: picked.label };
    const text = await vscode.window.showInputBox({ prompt: "Describe the user (persona)", placeHolder: "A non-native speaker who…" });
    return text?.trim() ? { persona: text } : null;
  }

  private async named(command: string, args: unknown[], key: "topics" | "presets") {
    const client = await this.server.ready();
    if (client === undefined) return undefined;
    const answer: unknown = await client
      .sendRequest(ExecuteCommandRequest.type, { command, arguments: args })
      .catch((error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }));
    const items = namedItems(answer, key);
    if (typeof items === "string") {
      void vscode.window.showErrorMessage(`checkspec: ${items}`);
      return undefined;
    }
    return items;
  }

  private async send(request: GenerateRequest): Promise<GenerateAnswer> {
    const client = await this.server.ready();
    if (client === undefined) return { status: "error", error: "the language server is not running" };
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "checkspec: generating scenarios", cancellable: true },
      async (progress, token) => {
        const workDoneToken = `checkspec-generate-${process.pid}-${++generations}`;
        let last = 0;
        const subscription = client.onProgress(WorkDoneProgress.type, workDoneToken, (value) => {
          if (value.kind === "end") return;
          const percentage = value.percentage ?? last;
          progress.report({ ...(value.message === undefined ? {} : { message: value.message }), increment: percentage - last });
          last = percentage;
        });
        try {
          const params = { command: GENERATE, arguments: [request], workDoneToken };
          return parseGenerateAnswer(await client.sendRequest(ExecuteCommandRequest.type, params, token));
        } catch (error) {
          if (token.isCancellationRequested) return { status: "cancelled" };
          return { status: "error", error: error instanceof Error ? error.message : String(error) };
        } finally {
          subscription.dispose();
        }
      },
    );
  }
}

function isRequest(value: unknown): value is GenerateRequest {
  return typeof value === "object" && value !== null && typeof (value as Record<string, unknown>)["output"] === "string";
}
