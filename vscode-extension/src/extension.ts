// Entry point: wires the output channel, the server, the commands and the Test Explorer.
// Everything with logic lives in the modules it imports.

import * as vscode from "vscode";
import { ServerManager } from "./client";
import { RUN_FILE, RUN_SCENARIO, Runner } from "./run";
import { RESTART_KEYS, SECTION } from "./settings";
import { ScenarioTests } from "./testing";

let server: ServerManager | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel("checkspec");
  const statusBar = vscode.window.createStatusBarItem("checkspec.run", vscode.StatusBarAlignment.Left, 0);
  statusBar.name = "checkspec run";
  statusBar.command = "checkspec.showOutput";
  server = new ServerManager(output);
  const manager = server;
  const runner = new Runner(manager, statusBar, output);
  const tests = new ScenarioTests(manager, runner);
  runner.explorer = tests; // lens and palette runs are listed in the Test Explorer too

  context.subscriptions.push(
    output,
    statusBar,
    manager,
    tests,
    vscode.commands.registerCommand(RUN_SCENARIO, (uri?: unknown, index?: unknown) => runner.runScenario(uri, index)),
    vscode.commands.registerCommand(RUN_FILE, (uri?: unknown) => runner.runFile(uri)),
    vscode.commands.registerCommand("checkspec.restartServer", () => manager.restart()),
    vscode.commands.registerCommand("checkspec.showOutput", () => output.show(true)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      // Other settings reach the running server as didChangeConfiguration (client.ts).
      if (RESTART_KEYS.some((key) => event.affectsConfiguration(`${SECTION}.${key}`))) void manager.restart();
    }),
    // Trusted now: the workspace's own .venv may hold the server to use.
    vscode.workspace.onDidGrantWorkspaceTrust(() => void manager.restart()),
  );
  void manager.ready();
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
