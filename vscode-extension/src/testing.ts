// Test Explorer: spec files > scenarios (from the server's document symbols). Every run
// is listed here: the explorer's own, and those started from a code lens or the command
// palette (`runFromEditor`). Results are recorded as each scenario finishes; failures
// are shown at the line of each check, with expected and actual values when the check
// compared two.

import * as vscode from "vscode";
import type { ServerManager } from "./client";
import { RUN_FILE, scenarioSymbols, type RunExplorer, type Runner } from "./run";
import { problems, resultLines, type RunReport, type ScenarioSummary } from "./runResults";
import type { ScenarioSymbol } from "./scenarios";
import { RUNNABLE_GLOB, isRunnableSpec } from "./specFiles";

const IGNORED = "**/{node_modules,.venv,venv,.git}/**";
const REFRESH_DELAY_MS = 500; // after the last keystroke: the outline is parsed from scratch

export class ScenarioTests implements vscode.Disposable, RunExplorer {
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

  /** A run started from a code lens or the palette, listed in the Test Explorer. */
  async runFromEditor(uri: vscode.Uri, indexes: number[] | "all"): Promise<RunReport | undefined> {
    const file = this.fileItem(uri);
    await this.resolve(file);
    const wanted = indexes === "all" ? "all" : new Set(indexes.map((index) => `${file.id}#${index}`));
    const chosen = wanted === "all" ? [file] : gather(file.children).filter((item) => wanted.has(item.id));
    const run = this.controller.createTestRun(new vscode.TestRunRequest(chosen.length > 0 ? chosen : [file]));
    try {
      return await this.runFile(run, file, wanted, new Set(), run.token);
    } finally {
      run.end();
    }
  }

  private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const run = this.controller.createTestRun(request);
    const excluded = new Set((request.exclude ?? []).map((item) => item.id));
    // Group by file: one request per file, for the whole file or the scenarios chosen.
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
        await this.runFile(run, file, ids, excluded, token);
      }
    } finally {
      run.end();
    }
  }

  /** Runs `ids` of one file (or all of it) in one server request, recording results as they come. */
  private async runFile(
    run: vscode.TestRun,
    file: vscode.TestItem,
    ids: Set<string> | "all",
    excluded: Set<string>,
    token: vscode.CancellationToken,
  ): Promise<RunReport | undefined> {
    if (file.uri === undefined) return undefined;
    if (file.canResolveChildren || ids === "all") await this.resolve(file);
    const items = gather(file.children).filter((item) => !excluded.has(item.id) && (ids === "all" || ids.has(item.id)));
    items.forEach((item) => run.started(item));
    const recorded = new Set<string>();
    const live = (summary: ScenarioSummary): void => {
      const item = file.children.get(`${file.id}#${summary.index}`);
      if (item === undefined || recorded.has(item.id) || !items.includes(item)) return;
      recorded.add(item.id);
      this.outcome(run, item, summary);
    };
    if (items.length === 0) return undefined;
    const whole = ids === "all" && items.length === file.children.size;
    const what = whole ? file.label : items.length === 1 ? `${items[0]?.label ?? "scenario"}` : `${items.length} scenarios of ${file.label}`;
    const extra = whole ? [] : [items.map(indexOf)];
    const report = await this.runner.run(RUN_FILE, file.uri, extra, what, token, live);
    this.record(run, file, items, recorded, report);
    for (const item of items) if (!recorded.has(item.id)) run.skipped(item); // not run
    return report;
  }

  private record(
    run: vscode.TestRun,
    file: vscode.TestItem,
    items: vscode.TestItem[],
    recorded: Set<string>,
    report: RunReport | undefined,
  ): void {
    if (report === undefined) return; // not run: untrusted workspace or no server
    run.appendOutput(resultLines(report).join("\r\n") + "\r\n");
    for (const summary of report.scenarios) {
      const item = file.children.get(`${file.id}#${summary.index}`);
      if (item !== undefined && !recorded.has(item.id) && items.includes(item)) {
        recorded.add(item.id);
        this.outcome(run, item, summary);
      }
    }
    if (report.error !== undefined && report.scenarios.length === 0) {
      for (const item of items) {
        if (recorded.has(item.id)) continue;
        recorded.add(item.id);
        run.errored(item, new vscode.TestMessage(report.error));
      }
    }
  }

  private outcome(run: vscode.TestRun, item: vscode.TestItem, summary: ScenarioSummary): void {
    const duration = summary.durationMs;
    if (summary.output !== "") {
      const location = item.uri === undefined ? undefined : new vscode.Location(item.uri, new vscode.Position(summary.line, 0));
      run.appendOutput(summary.output.replace(/\r?\n/g, "\r\n"), location, item);
    }
    if (summary.status === "pass") return run.passed(item, duration);
    if (summary.status === "skip" || summary.status === "cancelled") return run.skipped(item);
    const messages = problems(summary).map((problem) => {
      const message =
        problem.expected !== undefined && problem.actual !== undefined
          ? vscode.TestMessage.diff(problem.message, problem.expected, problem.actual)
          : new vscode.TestMessage(problem.message);
      if (item.uri !== undefined) message.location = new vscode.Location(item.uri, new vscode.Position(problem.line, 0));
      return message;
    });
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
