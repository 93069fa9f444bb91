// Test Explorer: spec files > scenarios > checks (from the server's document symbols). A
// file's scenarios are listed as soon as it is opened (so the gutter shows their run
// icons at once), and any file's when it is expanded. Every run is listed here: the
// explorer's own, and those started from a code lens, the palette or a save
// (`runFromEditor`). A run, over one file or many, shows one progress notification and one
// summary; results are recorded as each scenario finishes, each check's at its line, with
// expected and actual values when the check compared two, and the agent's answer.

import * as vscode from "vscode";
import type { ServerManager } from "./client";
import { RUN_FILE, scenarioSymbols, type RunExplorer, type RunProgress, type Runner } from "./run";
import { messageWithAnswer, problems, resultLines, type CheckResult, type RunReport, type ScenarioSummary } from "./runResults";
import type { ScenarioSymbol } from "./scenarios";
import { RUNNABLE_GLOB, isRunnableSpec } from "./specFiles";

const IGNORED = "**/{node_modules,.venv,venv,.git}/**";
const REFRESH_DELAY_MS = 500; // after the last keystroke: the outline is parsed from scratch
const CHECK_SEPARATOR = "/"; // `<file>#<scenario>/<step>.<index>`

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
      watcher.onDidChange((uri) => this.refreshSoon(uri, false)),
      vscode.workspace.onDidOpenTextDocument((doc) => this.refreshSoon(doc.uri, true)),
      vscode.workspace.onDidChangeTextDocument((event) => this.refreshSoon(event.document.uri, true)),
    );
    // Files already open when the extension starts (a restored window).
    for (const doc of vscode.workspace.textDocuments) this.refreshSoon(doc.uri, true);
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

  /**
   * Lists a file's scenarios again shortly: an open file always (its gutter icons), a file
   * changed on disk only when the explorer already lists its scenarios.
   */
  private refreshSoon(uri: vscode.Uri, open: boolean): void {
    if (uri.scheme !== "file" || !isRunnableSpec(uri.path)) return;
    const known = this.controller.items.get(uri.toString());
    if (!open && (known === undefined || known.canResolveChildren)) return;
    const item = known ?? this.fileItem(uri);
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

  /** A scenario's item: the one already listed (a run may be recording into it), updated. */
  private scenarioItem(file: vscode.TestItem, scenario: ScenarioSymbol): vscode.TestItem {
    const id = `${file.id}#${scenario.index}`;
    const item = file.children.get(id) ?? this.controller.createTestItem(id, scenario.name, file.uri);
    item.label = scenario.name;
    item.range = toRange(scenario.head);
    item.description = scenario.detail;
    item.sortText = String(scenario.index).padStart(6, "0"); // file order, not alphabetical
    item.error = scenario.runnable ? undefined : "not runnable: fix the problems shown in the file first";
    item.children.replace(
      scenario.checks.map((check, order) => {
        const childId = `${item.id}${CHECK_SEPARATOR}${check.step}.${check.index}`;
        const child = item.children.get(childId) ?? this.controller.createTestItem(childId, check.kind, file.uri);
        child.label = check.kind;
        child.range = toRange(check.head);
        child.description = [check.name, `step ${check.step + 1}`].filter(Boolean).join(" · ");
        child.sortText = String(order).padStart(6, "0");
        return child;
      }),
    );
    return item;
  }

  /** A run started from a code lens, the palette or a save, listed in the Test Explorer. */
  async runFromEditor(uri: vscode.Uri, indexes: number[] | "all"): Promise<RunReport | undefined> {
    if (!this.runner.trusted()) return undefined;
    const file = this.fileItem(uri);
    await this.resolve(file);
    const wanted = indexes === "all" ? "all" : new Set(indexes.map((index) => `${file.id}#${index}`));
    const chosen = wanted === "all" ? [file] : gather(file.children).filter((item) => wanted.has(item.id));
    const run = this.controller.createTestRun(new vscode.TestRunRequest(chosen.length > 0 ? chosen : [file]));
    try {
      const what = wanted === "all" ? file.label : chosen.length === 1 ? (chosen[0]?.label ?? "scenario") : `${chosen.length} scenarios of ${file.label}`;
      const report = await this.runner.withProgress(what, run.token, (progress, token) =>
        this.runFile(run, file, wanted, new Set(), token, progress),
      );
      this.runner.summarize(report === undefined ? [] : [report]);
      return report;
    } finally {
      run.end();
    }
  }

  private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const run = this.controller.createTestRun(request);
    const excluded = new Set((request.exclude ?? []).map((item) => item.id));
    // Group by file: one request per file, for the whole file or the scenarios chosen.
    const wanted = new Map<vscode.TestItem, Set<string> | "all">();
    for (const chosen of request.include ?? gather(this.controller.items)) {
      const item = scenarioOf(chosen); // a check runs with its scenario
      if (excluded.has(item.id)) continue;
      const file = item.parent ?? item;
      const current = wanted.get(file);
      if (item === file) wanted.set(file, "all");
      else if (current === undefined) wanted.set(file, new Set([item.id]));
      else if (current !== "all") current.add(item.id);
    }
    const files = [...wanted].filter(([file]) => file.uri !== undefined);
    if (files.length === 0 || !this.runner.trusted()) {
      run.end();
      return;
    }
    const what = files.length === 1 ? (files[0]?.[0].label ?? "") : `${files.length} files`;
    const reports: RunReport[] = [];
    try {
      await this.runner.withProgress(what, token, async (progress, cancel) => {
        for (const [done, [file, ids]] of files.entries()) {
          if (cancel.isCancellationRequested) break;
          progress.files(done, files.length);
          const report = await this.runFile(run, file, ids, excluded, cancel, progress);
          if (report !== undefined) reports.push(report);
        }
      });
      this.runner.summarize(reports);
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
    progress: RunProgress,
  ): Promise<RunReport | undefined> {
    if (file.uri === undefined) return undefined;
    if (file.canResolveChildren || ids === "all") await this.resolve(file);
    const items = gather(file.children).filter((item) => !excluded.has(item.id) && (ids === "all" || ids.has(item.id)));
    // Checks get their state with their scenario's result (a check left queued would keep
    // its scenario spinning in the explorer if that result never came).
    for (const item of items) run.started(item);
    const recorded = new Set<string>();
    const wantedIds = new Set(items.map((item) => item.id));
    const live = (summary: ScenarioSummary): void => {
      const item = file.children.get(`${file.id}#${summary.index}`);
      if (item === undefined || recorded.has(item.id) || !wantedIds.has(item.id)) return;
      recorded.add(item.id);
      this.outcome(run, item, summary);
    };
    if (items.length === 0) return undefined;
    const whole = ids === "all" && items.length === file.children.size;
    const extra = whole ? [] : [items.map(indexOf)];
    const report = await this.runner.execute(RUN_FILE, file.uri, extra, token, live, progress);
    this.record(run, file, items, recorded, report);
    for (const item of items) {
      if (recorded.has(item.id)) continue;
      run.skipped(item); // not run
      item.children.forEach((check) => run.skipped(check));
    }
    return report;
  }

  private record(
    run: vscode.TestRun,
    file: vscode.TestItem,
    items: vscode.TestItem[],
    recorded: Set<string>,
    report: RunReport | undefined,
  ): void {
    if (report === undefined) return; // not run: no server
    // The Test Results' output, grouped by file.
    run.appendOutput([`── ${file.label} ──`, ...resultLines(report), ""].join("\r\n"));
    for (const summary of report.scenarios) {
      const item = file.children.get(`${file.id}#${summary.index}`);
      if (item !== undefined && !recorded.has(item.id) && items.some((wanted) => wanted.id === item.id)) {
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
    this.checkOutcomes(run, item, summary);
    if (summary.status === "pass") return run.passed(item, duration);
    if (summary.status === "skip" || summary.status === "cancelled") return run.skipped(item);
    const messages = problems(summary).map((problem) => {
      const text = messageWithAnswer(problem.message, summary.answer);
      const message =
        problem.expected !== undefined && problem.actual !== undefined
          ? vscode.TestMessage.diff(text, problem.expected, problem.actual)
          : new vscode.TestMessage(text);
      if (item.uri !== undefined) message.location = new vscode.Location(item.uri, new vscode.Position(problem.line, 0));
      return message;
    });
    if (messages.length === 0) messages.push(located(messageWithAnswer(summary.summary, summary.answer), item.uri, summary.line));
    if (summary.status === "fail") run.failed(item, messages, duration);
    else run.errored(item, messages, duration);
  }

  /** Each check of the scenario as its own result, at its line. */
  private checkOutcomes(run: vscode.TestRun, scenario: vscode.TestItem, summary: ScenarioSummary): void {
    const results = new Map<string, CheckResult>(summary.checks.map((check) => [`${check.step}.${check.index}`, check]));
    scenario.children.forEach((item) => {
      const check = results.get(item.id.slice(item.id.lastIndexOf(CHECK_SEPARATOR) + 1));
      if (check === undefined || summary.status === "cancelled") return run.skipped(item);
      // VS Code shows a duration to a tenth of a millisecond: "0.0ms" says nothing.
      const took = check.durationMs !== undefined && check.durationMs >= 1 ? check.durationMs : undefined;
      if (check.status === "pass") return run.passed(item, took);
      if (check.status !== "fail" && check.status !== "error") return run.skipped(item);
      const text = messageWithAnswer(`${check.kind} ${check.status}ed: ${check.message || "no message"}`, summary.answer);
      const message =
        check.expected !== undefined && check.actual !== undefined
          ? vscode.TestMessage.diff(text, check.expected, check.actual)
          : new vscode.TestMessage(text);
      if (item.uri !== undefined) message.location = new vscode.Location(item.uri, new vscode.Position(check.line, 0));
      if (check.status === "fail") run.failed(item, message, took);
      else run.errored(item, message, took);
    });
  }
}

function located(text: string, uri: vscode.Uri | undefined, line: number): vscode.TestMessage {
  const message = new vscode.TestMessage(text);
  if (uri !== undefined) message.location = new vscode.Location(uri, new vscode.Position(line, 0));
  return message;
}

function toRange(range: ScenarioSymbol["head"]): vscode.Range {
  return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

/** A check item's scenario; a scenario or file item itself. */
function scenarioOf(item: vscode.TestItem): vscode.TestItem {
  return item.id.includes(CHECK_SEPARATOR, item.id.lastIndexOf("#")) && item.parent !== undefined ? item.parent : item;
}

function gather(collection: vscode.TestItemCollection): vscode.TestItem[] {
  const items: vscode.TestItem[] = [];
  collection.forEach((item) => items.push(item));
  return items;
}

function indexOf(item: vscode.TestItem): number {
  return Number(item.id.slice(item.id.lastIndexOf("#") + 1));
}
