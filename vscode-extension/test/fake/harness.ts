// What the VS Code-facing tests share: a clean fake VS Code and server before each test, an
// executable to configure as the server, and a scripted `checkspec lsp` answering from the
// recorded fixtures (test/fixtures) the way server/lsp/commands.py does.

import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ServerManager } from "../../src/client";
import { Runner } from "../../src/run";
import { ScenarioTests } from "../../src/testing";
import { ROOT, fixture } from "../helpers";
import { server, type SentRequest } from "./languageclient";
import { Uri, fake, window, type OutputChannel, type StatusBarItem } from "./vscode";

export { fake, server };

/** An executable file to use as `checkspec.server.path` (the fake client never runs it). */
export function executable(name = "checkspec"): string {
  const dir = mkdtempSync(join(tmpdir(), "checkspec-ext-test-"));
  const path = join(dir, name);
  writeFileSync(path, "#!/bin/sh\nexit 0\n");
  chmodSync(path, 0o755);
  return path;
}

let serverPath: string | undefined;

export interface Manifest {
  contributes: {
    commands: { command: string }[];
    configuration: { properties: Record<string, { default?: unknown }> };
  };
}

export const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Manifest;

/** A clean fake VS Code (trusted, one folder /ws, the server configured) and server. */
export function resetAll(): void {
  fake.reset();
  server.reset();
  for (const [key, property] of Object.entries(manifest.contributes.configuration.properties)) {
    fake.state.defaults.set(key, property.default);
  }
  serverPath ??= executable();
  fake.setting("checkspec.server.path", serverPath);
  serverUp();
}

export function configuredServer(): string {
  serverPath ??= executable();
  return serverPath;
}

export const SUITE = Uri.file("/ws/examples/support.suite.yaml");
export const OTHER = Uri.file("/ws/examples/other.scenario.yaml");

type Summary = Record<string, unknown> & { index: number; scenario: string };

/** The recorded outline of support.suite.yaml (three scenarios). */
export function suiteSymbols(): unknown[] {
  return fixture("symbols.suite.json") as unknown[];
}

/** The recorded run of the whole support.suite.yaml, as summaries. */
export function suiteSummaries(): Summary[] {
  return (fixture("runFile.suite.json") as { scenarios: Summary[] }).scenarios;
}

export interface ServerScript {
  /** The outline of each document (by URI string). */
  symbols: Map<string, unknown[]>;
  /** Each document's scenario summaries, by index. */
  results: Map<string, Summary[]>;
  /** Send checkspec/scenarioFinished for each scenario before answering (as the server does). */
  notify: boolean;
  /** Called while the run request is pending, before the answer (cancel, inspect...). */
  during: ((request: SentRequest) => void | Promise<void>) | undefined;
  /** Replaces the whole answer of a run. */
  answer: ((request: SentRequest) => unknown) | undefined;
}

export let script: ServerScript;

/** A server knowing support.suite.yaml, answering runs from the recorded fixtures. */
export function serverUp(): void {
  script = {
    symbols: new Map([[SUITE.toString(), suiteSymbols()]]),
    results: new Map([[SUITE.toString(), suiteSummaries()]]),
    notify: true,
    during: undefined,
    answer: undefined,
  };
  server.on("textDocument/documentSymbol", (params: { textDocument: { uri: string } }) => {
    return script.symbols.get(params.textDocument.uri) ?? [];
  });
  server.on("workspace/executeCommand", async (params: { command: string; arguments: unknown[] }, request) => {
    const [uri, selection] = params.arguments as [string, unknown];
    const all = script.results.get(uri) ?? [];
    const chosen =
      params.command === "checkspec.runScenario"
        ? all.filter((s) => s.index === selection)
        : Array.isArray(selection)
          ? all.filter((s) => selection.includes(s.index))
          : all;
    if (script.notify) for (const summary of chosen) request.client.notify("checkspec/scenarioFinished", { uri, ...summary });
    await script.during?.(request);
    if (script.answer !== undefined) return script.answer(request);
    if (params.command === "checkspec.runScenario") return chosen[0] ?? { error: "no such scenario in this document" };
    const statuses = chosen.map((s) => s.status);
    return { uri, status: statuses.includes("fail") ? "fail" : "pass", scenarios: chosen };
  });
}

/** The run requests the server got: [command, arguments]. */
export function runRequests(): { command: string; arguments: unknown[]; workDoneToken?: string | number }[] {
  return server
    .sent("workspace/executeCommand")
    .map((request) => request.params as { command: string; arguments: unknown[]; workDoneToken?: string });
}

/** Waits (letting promises and zero-delay timers run) until `check` holds; fails after a while. */
export async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await settle();
  }
  assert.fail(`never happened: ${what}`);
}

/** Lets queued promise callbacks and zero-delay timers run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

// ---------------------------------------------------------------- the extension's parts


export interface Wired {
  output: OutputChannel;
  statusBar: StatusBarItem;
  manager: ServerManager;
  runner: Runner;
  tests: ScenarioTests | undefined;
  dispose(): void;
}

/** The server manager, runner and (unless `explorer` is false) Test Explorer, as activate wires them. */
export function wire(explorer = true): Wired {
  const output = window.createOutputChannel("checkspec");
  const statusBar = window.createStatusBarItem("checkspec.run");
  // The fakes stand for the real types src/ is written against.
  const manager = new ServerManager(output as never);
  const runner = new Runner(manager, statusBar as never, output as never);
  const tests = explorer ? new ScenarioTests(manager, runner) : undefined;
  runner.explorer = tests;
  return {
    output,
    statusBar,
    manager,
    runner,
    tests,
    dispose() {
      tests?.dispose();
      manager.dispose();
    },
  };
}
