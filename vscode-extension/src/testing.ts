// Test Explorer: spec files > scenarios (from the server's document symbols), run through
// the same commands as the code lenses; failures are shown at the line of each check.

import * as vscode from "vscode";
import type { ServerManager } from "./client";
import { RUN_FILE, RUN_SCENARIO, scenarioSymbols, type Runner } from "./run";
import { problems, resultLines, type RunReport, type ScenarioSummary } from "./runResults";
import type { ScenarioSymbol } from "./scenarios";
import { RUNNABLE_GLOB, isRunnableSpec } from "./specFiles";

const IGNORED = "**/{node_modules,.venv,venv,.git}/**";
const REFRESH_DELAY_MS = 500; // after the last keystroke: the outline is parsed from scratch

export class ScenarioTests implements vscode.Disposable {
  private readonly controller = vscode.tests.createTestController("checkspec", "checkspec");
  private readonly disposables: vscode.Disposable[] = [this.controller];
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly server: ServerManager,
    private readonly runner: Runner,
  ) {
    this.controller.resolveHandler = (item) => (item === undefined ? this.discover() : this.resolve(item));
    this.controller.refreshHandler = () => this.discover();
    this.controller.createRunProfile("Run", vscode.TestRunProfileKind.Run, (request, token) => this.run(request, token), true);

    const watcher = vscode.workspace.createFileSystemWatcher(RUNNABLE_GLOB);
    this.disposables.push(
      watcher,
      watcher.onDidCreate((uri) => this.fileItem(uri)),
      watcher.onDidDelete((uri) => this.controller.items.delete(uri.toString())),
      watcher.onDidChange((uri) => this.refreshSoon(uri)),
      vscode.workspace.onDidOpenTextDocument((doc) => this.refreshSoon(doc.uri)),
      vscode.workspace.onDidChangeTextDocument((event) => this.refreshSoon(event.document.uri)),
    );
  }

  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    for (const disposable of this.disposables) disposable.dispose();
  }

  private async discover(): Promise<void> {
    const files = await vscode.workspace.findFiles(RUNNABLE_GLOB, IGNORED);
    const seen = new Set(files.map((uri) => uri.toString()));
    this.controller.items.forEach((item) => {
      if (!seen.has(item.id)) this.controller.items.delete(item.id);
    });
    for (const uri of files) this.fileItem(uri);
  }

  private fileItem(uri: vscode.Uri): vscode.TestItem {
    const existing = this.controller.items.get(uri.toString());
    if (existing !== undefined) return existing;
    const item = this.controller.createTestItem(uri.toString(), vscode.workspace.asRelativePath(uri, false), uri);
    item.canResolveChildren = true;
    this.controller.items.add(item);
    return item;
  }

  /** Only files the explorer already expanded are refreshed: the rest resolve when opened. */
  private refreshSoon(uri: vscode.Uri): void {
    const item = this.controller.items.get(uri.toString());
    if (item === undefined || item.canResolveChildren || !isRunnableSpec(uri.path)) return;
    clearTimeout(this.timers.get(item.id));
    this.timers.set(
      item.id,
      setTimeout(() => {
        this.timers.delete(item.id);
        void this.resolve(item);
      }, REFRESH_DELAY_MS),
    );
  }

  /** A file's scenarios. The server outlines open documents only, so the file is opened (not shown). */
  private async resolve(file: vscode.TestItem): Promise<void> {
    if (file.uri === undefined) return;
    const client = await this.server.ready();
    if (client === undefined) return;
    file.busy = true;
    try {
      await vscode.workspace.openTextDocument(file.uri);
      const scenarios = await scenarioSymbols(client, file.uri);
      file.children.replace(scenarios.map((scenario) => this.scenarioItem(file, scenario)));
      file.canResolveChildren = false;
      file.error = undefined;
    } catch (error) {
      file.error = `could not read its scenarios: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      file.busy = false;
    }
  }

  private scenarioItem(file: vscode.TestItem, scenario: ScenarioSymbol): vscode.TestItem {
    const item = this.controller.createTestItem(`${file.id}#${scenario.index}`, scenario.name, file.uri);
    const { start, end } = scenario.head;
    item.range = new vscode.Range(start.line, start.character, end.line, end.character);
    item.description = scenario.detail;
    item.sortText = String(scenario.index).padStart(6, "0"); // file order, not alphabetical
    item.error = scenario.runnable ? undefined : "not runnable: fix the problems shown in the file first";
    return item;
  }

  private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const run = this.controller.createTestRun(request);
    const excluded = new Set((request.exclude ?? []).map((item) => item.id));
    // Group by file: a whole file is one runFile request, lone scenarios one request each.
    const wanted = new Map<vscode.TestItem, Set<string> | "all">();
    for (const item of request.include ?? gather(this.controller.items)) {
      if (excluded.has(item.id)) continue;
      const file = item.parent ?? item;
      const current = wanted.get(file);
      if (item === file) wanted.set(file, "all");
      else if (current === undefined) wanted.set(file, new Set([item.id]));
      else if (current !== "all") current.add(item.id);
    }
    try {
      for (const [file, ids] of wanted) {
        if (token.isCancellationRequested || file.uri === undefined) break;
        if (file.canResolveChildren || ids === "all") await this.resolve(file);
        const items = gather(file.children).filter((item) => !excluded.has(item.id) && (ids === "all" || ids.has(item.id)));
        items.forEach((item) => run.started(item));
        if (ids === "all" && items.length === file.children.size) {
          this.record(run, file, items, await this.runner.run(RUN_FILE, file.uri, [], file.label, token));
          continue;
        }
        for (const item of items) {
          if (token.isCancellationRequested) break;
          const report = await this.runner.run(RUN_SCENARIO, file.uri, [indexOf(item)], item.label, token);
          this.record(run, file, [item], report);
        }
      }
    } finally {
      run.end();
    }
  }

  private record(run: vscode.TestRun, file: vscode.TestItem, items: vscode.TestItem[], report: RunReport | undefined): void {
    if (report === undefined) {
      for (const item of items) run.skipped(item); // not run: untrusted workspace or no server
      return;
    }
    run.appendOutput(resultLines(report).join("\r\n") + "\r\n");
    for (const summary of report.scenarios) {
      const item = file.children.get(`${file.id}#${summary.index}`);
      if (item !== undefined) this.outcome(run, item, summary);
    }
    if (report.error !== undefined && report.scenarios.length === 0) {
      for (const item of items) run.errored(item, new vscode.TestMessage(report.error));
    }
  }

  private outcome(run: vscode.TestRun, item: vscode.TestItem, summary: ScenarioSummary): void {
    const duration = summary.durationMs;
    if (summary.status === "pass") return run.passed(item, duration);
    if (summary.status === "skip") return run.skipped(item);
    const messages = problems(summary).map(({ line, message }) => located(message, item.uri, line));
    if (messages.length === 0) messages.push(located(summary.summary, item.uri, summary.line));
    if (summary.status === "fail") run.failed(item, messages, duration);
    else run.errored(item, messages, duration);
  }
}

function located(text: string, uri: vscode.Uri | undefined, line: number): vscode.TestMessage {
  const message = new vscode.TestMessage(text);
  if (uri !== undefined) message.location = new vscode.Location(uri, new vscode.Position(line, 0));
  return message;
}

function gather(collection: vscode.TestItemCollection): vscode.TestItem[] {
  const items: vscode.TestItem[] = [];
  collection.forEach((item) => items.push(item));
  return items;
}

function indexOf(item: vscode.TestItem): number {
  return Number(item.id.slice(item.id.lastIndexOf("#") + 1));
}
