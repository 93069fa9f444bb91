// Entry point: wires the output channel, the server, the commands and the Test Explorer.
// Everything with logic lives in the modules it imports.

import * as vscode from "vscode";
import { ServerManager } from "./client";
import { COMPARE_WITH_PREVIOUS, CompareView } from "./compareView";
import { GENERATE, Generation } from "./generate";
import { Curation } from "./curate";
import { ASK_COMMENT, PICK_FILE, PICK_TAG, RECORD_OUTPUTS } from "./curateRequest";
import { LastRunView, SHOW_LAST_RUN } from "./lastRunView";
import { RUN_FILE, RUN_REPEATED, RUN_SCENARIO, Runner } from "./run";
import { serverStatus } from "./serverStatus";
import { RESTART_KEYS, SECTION } from "./settings";
import { ScenarioTests } from "./testing";

let server: ServerManager | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel("checkspec");
  const statusBar = vscode.window.createStatusBarItem("checkspec.run", vscode.StatusBarAlignment.Left, 0);
  statusBar.name = "checkspec run";
  statusBar.command = "checkspec.showOutput";
  server = new ServerManager(output, context.extensionPath);
  const manager = server;
  const runner = new Runner(manager, statusBar, output);
  const tests = new ScenarioTests(manager, runner);
  runner.explorer = tests; // lens and palette runs are listed in the Test Explorer too
  const lastRun = new LastRunView(manager, runner);
  const curation = new Curation(manager);
  const compare = new CompareView(manager);

  context.subscriptions.push(
    output,
    statusBar,
    manager,
    tests,
    lastRun,
    compare,
    serverStatus(manager),
    vscode.commands.registerCommand(RUN_SCENARIO, (uri?: unknown, index?: unknown) => runner.runScenario(uri, index)),
    vscode.commands.registerCommand(RUN_FILE, (uri?: unknown) => runner.runFile(uri)),
    vscode.commands.registerCommand(RUN_REPEATED, (uri?: unknown, index?: unknown, times?: unknown) =>
      runner.runScenarioRepeated(uri, index, times),
    ),
    vscode.commands.registerCommand(SHOW_LAST_RUN, (uri?: unknown, index?: unknown) => lastRun.show(uri, index)),
    vscode.commands.registerCommand(COMPARE_WITH_PREVIOUS, (uri?: unknown) => compare.show(uri)),
    vscode.commands.registerCommand(GENERATE, (request?: unknown) => new Generation(manager).run(request)),
    vscode.commands.registerCommand(PICK_TAG, (uri?: unknown, indexes?: unknown) => curation.pickTag(uri, indexes)),
    vscode.commands.registerCommand(PICK_FILE, (uri?: unknown, indexes?: unknown) => curation.pickFile(uri, indexes)),
    vscode.commands.registerCommand(ASK_COMMENT, (uri?: unknown, indexes?: unknown) => curation.askComment(uri, indexes)),
    vscode.commands.registerCommand(RECORD_OUTPUTS, (uri?: unknown, indexes?: unknown) => curation.recordOutputs(uri, indexes)),
    vscode.commands.registerCommand("checkspec.restartServer", () => manager.restart()),
    vscode.commands.registerCommand("checkspec.showOutput", () => output.show(true)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      // Other settings reach the running server as didChangeConfiguration (client.ts).
      if (RESTART_KEYS.some((key) => event.affectsConfiguration(`${SECTION}.${key}`))) void manager.restart();
    }),
    // Trusted now: the workspace's own .venv may hold the server to use, and
    // checkspec.runOnSave (run by the server on didSave) may now be sent.
    vscode.workspace.onDidGrantWorkspaceTrust(() => void manager.restart()),
  );
  void manager.ready();
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
