// checkspec.runScenario / checkspec.runFile: forwarded to the server's
// workspace/executeCommand. Every run, whatever started it, goes through the Test Explorer
// (`explorer`), so it is listed there. A run — however many files — shows one progress
// notification fed by the server's work-done progress and one summary (status bar, output
// channel); its Cancel, or the Test Explorer's, cancels the requests, which stops the run
// on the server. Each scenario's result arrives as it finishes (checkspec/scenarioFinished).

import * as vscode from "vscode";
import {
  DocumentSymbolRequest,
  ExecuteCommandRequest,
  WorkDoneProgress,
  type LanguageClient,
} from "vscode-languageclient/node";
import type { ServerManager } from "./client";
import {
  combine,
  headline,
  parseRunResult,
  parseScenarioFinished,
  resultLines,
  severity,
  statusBarText,
  type RunReport,
  type ScenarioSummary,
} from "./runResults";
import { scenarioAt, scenariosOf, type ScenarioSymbol, type SymbolLike } from "./scenarios";
import { isRunnableSpec } from "./specFiles";

export const RUN_SCENARIO = "checkspec.runScenario"; // [uri, index], as the code lens sends
export const RUN_FILE = "checkspec.runFile"; // [uri] or [uri, [scenario indexes]]
export const SCENARIO_FINISHED = "checkspec/scenarioFinished";
// Client-side: a scenario run K times, folded into one verdict (runFile's {"repeat": K}).
export const RUN_REPEATED = "checkspec.runScenarioRepeated";
export const MAX_REPEAT = 100;

/** Why a typed repeat count is refused (undefined: it is a whole number from 2 to MAX_REPEAT). */
export function repeatProblem(text: string): string | undefined {
  const value = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || value < 2 || value > MAX_REPEAT) {
    return `a whole number from 2 to ${MAX_REPEAT}`;
  }
  return undefined;
}

/** Where editor-started runs are listed (the Test Explorer). */
export interface RunExplorer {
  runFromEditor(uri: vscode.Uri, indexes: number[] | "all"): Promise<RunReport | undefined>;
}

let runCounter = 0;

/**
 * What a run's notification shows: the server's own message ("12/40, 1 failed") for a
 * one-file run; across files, `files(done, total)` counts them and the bar moves per file.
 */
export class RunProgress {
  private shown = 0;
  private prefix = "";

  constructor(private readonly progress: vscode.Progress<{ message?: string; increment?: number }>) {}

  /** The server's work-done progress of the current file (percentage of that file). */
  server(message: string | undefined, percentage: number | undefined): void {
    const step: { message?: string; increment?: number } = {};
    if (message !== undefined) step.message = this.prefix + message;
    if (percentage !== undefined && this.prefix === "") {
      step.increment = Math.max(0, percentage - this.shown);
      this.shown = Math.max(this.shown, percentage);
    }
    this.progress.report(step);
  }

  /** Several files: which one is running. */
  files(done: number, total: number): void {
    if (total <= 1) return;
    this.prefix = `file ${done + 1}/${total}: `;
    const percentage = Math.round((100 * done) / total);
    this.progress.report({ increment: Math.max(0, percentage - this.shown), message: this.prefix.slice(0, -2) });
    this.shown = Math.max(this.shown, percentage);
  }
}

export class Runner {
  explorer: RunExplorer | undefined;

  constructor(
    private readonly server: ServerManager,
    private readonly statusBar: vscode.StatusBarItem,
    private readonly output: vscode.OutputChannel,
  ) {}

  /** From a code lens: (uri, index); from the palette: the scenario at the cursor. */
  async runScenario(target?: unknown, index?: unknown): Promise<RunReport | undefined> {
    const chosen = await this.scenarioOf(target, index);
    if (chosen === undefined) return undefined;
    const [uri, scenario] = chosen;
    if (this.explorer !== undefined) return this.explorer.runFromEditor(uri, [scenario]);
    return this.run(RUN_SCENARIO, uri, [scenario], `scenario ${scenario + 1} of ${label(uri)}`);
  }

  /**
   * The scenario (the lens's, else the one at the cursor) run K times, its runs folded into
   * one verdict as `checkspec run --repeat K` folds them: the summary and the diagnostics
   * carry the runs' tally ("3/5 runs passed (60%), flaky"; each check's "passed 3 of 5").
   * K is asked for unless given.
   */
  async runScenarioRepeated(target?: unknown, index?: unknown, times?: unknown): Promise<RunReport | undefined> {
    const chosen = await this.scenarioOf(target, index);
    if (chosen === undefined) return undefined;
    const [uri, scenario] = chosen;
    let repeat = typeof times === "number" && repeatProblem(String(times)) === undefined ? times : undefined;
    if (repeat === undefined) {
      const given = await vscode.window.showInputBox({
        prompt: "Run the scenario how many times? Its runs are folded into one verdict.",
        value: "5",
        validateInput: repeatProblem,
      });
      if (given === undefined) return undefined;
      repeat = Number(given.trim());
    }
    const what = `scenario ${scenario + 1} of ${label(uri)} ${repeat} times`;
    return this.run(RUN_FILE, uri, [[scenario], { repeat }], what);
  }

  /** The file and scenario a lens names (uri, index), else the one at the cursor or picked. */
  private async scenarioOf(target: unknown, index: unknown): Promise<[vscode.Uri, number] | undefined> {
    const uri = uriOf(target);
    if (uri === undefined) return undefined;
    const scenario = typeof index === "number" ? index : await this.pickScenario(uri);
    return scenario === undefined ? undefined : [uri, scenario];
  }

  async runFile(target?: unknown): Promise<RunReport | undefined> {
    const uri = uriOf(target);
    if (uri === undefined) return undefined;
    if (this.explorer !== undefined) return this.explorer.runFromEditor(uri, "all");
    return this.run(RUN_FILE, uri, [], label(uri));
  }

  /** A run not listed in the Test Explorer (repeated runs, or no explorer at all). */
  async run(command: string, uri: vscode.Uri, extra: unknown[], what: string): Promise<RunReport | undefined> {
    if (!this.trusted()) return undefined;
    const report = await this.withProgress(what, undefined, (progress, token) =>
      this.execute(command, uri, extra, token, () => undefined, progress),
    );
    this.summarize(report === undefined ? [] : [report]);
    return report;
  }

  /** Runs may import the workspace's code: only in a trusted workspace (says so otherwise). */
  trusted(): boolean {
    if (vscode.workspace.isTrusted) return true;
    void vscode.window
      .showWarningMessage(
        "checkspec runs scenarios only in a trusted workspace: a run imports the workspace's code.",
        "Manage Workspace Trust",
      )
      .then((choice) => choice && vscode.commands.executeCommand("workbench.trust.manage"));
    return false;
  }

  /**
   * One progress notification for a whole run (however many files it has), cancellable;
   * `token` (the Test Explorer's) cancels it too.
   */
  async withProgress<T>(
    what: string,
    token: vscode.CancellationToken | undefined,
    body: (progress: RunProgress, token: vscode.CancellationToken) => Promise<T>,
  ): Promise<T> {
    this.statusBar.text = `$(sync~spin) checkspec: running ${what}`;
    this.statusBar.tooltip = undefined;
    this.statusBar.show();
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `checkspec: running ${what}`, cancellable: true },
      async (progress, progressToken) => {
        const cancel = new vscode.CancellationTokenSource();
        const subscriptions = [
          progressToken.onCancellationRequested(() => cancel.cancel()),
          ...(token === undefined ? [] : [token.onCancellationRequested(() => cancel.cancel())]),
        ];
        try {
          return await body(new RunProgress(progress), cancel.token);
        } finally {
          for (const subscription of subscriptions) subscription.dispose();
          cancel.dispose();
        }
      },
    );
  }

  /**
   * One file's run through the server, no UI of its own: `onScenario` sees each result as
   * it comes, `progress` the server's work-done progress. Undefined when it could not start.
   */
  async execute(
    command: string,
    uri: vscode.Uri,
    extra: unknown[],
    token: vscode.CancellationToken,
    onScenario: (summary: ScenarioSummary) => void,
    progress?: RunProgress,
  ): Promise<RunReport | undefined> {
    const client = await this.server.ready();
    if (client === undefined) return undefined;
    const serverUri = client.code2ProtocolConverter.asUri(uri);
    const workDoneToken = `checkspec-run-${process.pid}-${++runCounter}`;
    const subscriptions = [
      client.onProgress(WorkDoneProgress.type, workDoneToken, (value) => {
        if (value.kind !== "end") progress?.server(value.message, value.percentage);
      }),
      onScenarioFinished(client, (params) => {
        const finished = parseScenarioFinished(params);
        if (finished !== undefined && finished.uri === serverUri) onScenario(finished.summary);
      }),
    ];
    try {
      return await execute(client, command, [serverUri, ...extra], token, workDoneToken);
    } finally {
      for (const subscription of subscriptions) subscription.dispose();
    }
  }

  /** One summary for a whole run: the status bar, the output channel, and a toast only
   * when nothing could run (results themselves are in the Test Explorer). */
  summarize(reports: readonly RunReport[]): void {
    if (reports.length === 0) {
      this.statusBar.hide();
      return;
    }
    const report = combine(reports);
    this.statusBar.text = statusBarText(report);
    this.statusBar.tooltip = `${headline(report)}\nClick for the details.`;
    this.statusBar.show();
    for (const line of resultLines(report)) this.output.appendLine(line);
    if (report.error !== undefined && report.scenarios.length === 0) {
      const show = severity(report) === "error" ? vscode.window.showErrorMessage : vscode.window.showWarningMessage;
      void show(headline(report));
    }
  }

  /** The scenario at the cursor of `uri`'s editor, else the user's pick. */
  private async pickScenario(uri: vscode.Uri): Promise<number | undefined> {
    const scenarios = await this.scenarios(uri);
    if (scenarios === undefined) return undefined;
    if (scenarios.length === 0) {
      void vscode.window.showInformationMessage(`checkspec: no scenario in ${label(uri)}.`);
      return undefined;
    }
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
    const here = editor === undefined ? undefined : scenarioAt(scenarios, editor.selection.active);
    if (here !== undefined) return here.index;
    const picked = await vscode.window.showQuickPick(
      scenarios.map((s) => ({ label: s.name, description: s.detail, index: s.index })),
      { placeHolder: "Run which scenario?" },
    );
    return picked?.index;
  }

  /** The document's scenarios, from the server's outline of it. */
  async scenarios(uri: vscode.Uri, token?: vscode.CancellationToken): Promise<ScenarioSymbol[] | undefined> {
    const client = await this.server.ready();
    if (client === undefined) return undefined;
    return scenarioSymbols(client, uri, token);
  }
}

const finishedListeners = new WeakMap<LanguageClient, Set<(params: unknown) => void>>();

/**
 * Listens to checkspec/scenarioFinished. The client keeps one handler per notification
 * method (a second onNotification replaces the first, and disposing either removes it), so
 * runs at the same time share one handler per client that calls each run's listener.
 */
function onScenarioFinished(client: LanguageClient, listener: (params: unknown) => void): vscode.Disposable {
  let listeners = finishedListeners.get(client);
  if (listeners === undefined) {
    const created = new Set<(params: unknown) => void>();
    client.onNotification(SCENARIO_FINISHED, (params: unknown) => {
      for (const each of [...created]) each(params);
    });
    finishedListeners.set(client, created);
    listeners = created;
  }
  const registered = listeners;
  registered.add(listener);
  return new vscode.Disposable(() => registered.delete(listener));
}

export async function scenarioSymbols(
  client: LanguageClient,
  uri: vscode.Uri,
  token?: vscode.CancellationToken,
): Promise<ScenarioSymbol[]> {
  const symbols = await client.sendRequest(
    DocumentSymbolRequest.type,
    { textDocument: { uri: client.code2ProtocolConverter.asUri(uri) } },
    token,
  );
  // The server answers DocumentSymbol[]; a SymbolInformation (no children) has a location instead.
  const list: SymbolLike[] = (symbols ?? []).map((s) => ("range" in s ? s : { name: s.name, range: s.location.range }));
  return scenariosOf(list);
}

async function execute(
  client: LanguageClient,
  command: string,
  args: unknown[],
  token: vscode.CancellationToken,
  workDoneToken: string,
): Promise<RunReport> {
  try {
    const params = { command, arguments: args, workDoneToken };
    return parseRunResult(await client.sendRequest(ExecuteCommandRequest.type, params, token));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { status: "error", scenarios: [], error: `the run failed: ${message}` };
  }
}

/** A URI string (code lens), a Uri (editor title / explorer menus) or nothing (the active editor). */
function uriOf(target: unknown): vscode.Uri | undefined {
  if (typeof target === "string") return vscode.Uri.parse(target);
  if (target instanceof vscode.Uri) return target;
  const document = vscode.window.activeTextEditor?.document;
  if (document === undefined || !isRunnableSpec(document.uri.path)) {
    void vscode.window.showInformationMessage("checkspec: open a *.scenario, *.suite or *.dataset file first.");
    return undefined;
  }
  return document.uri;
}

function label(uri: vscode.Uri): string {
  return vscode.workspace.asRelativePath(uri, false);
}
