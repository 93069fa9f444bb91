// activate/deactivate (src/extension.ts) against the fake VS Code: the commands it
// registers (checked against package.json's contributes.commands), the server it starts
// with the configured command, the restarts settings and trust cause, the run-on-save setting passed on, and
// deactivate stopping the server.
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { activate, deactivate } from "../src/extension";
import { SUITE, configuredServer, eventually, executable, fake, manifest, resetAll, runRequests, script, server, settle } from "./fake/harness";
import { Position, Uri, document, editor } from "./fake/vscode";

let context: { subscriptions: { dispose(): unknown }[] };

async function start(): Promise<void> {
  context = { subscriptions: [] };
  activate(context as never);
  await eventually(() => fake.state.languageStatusItems[0]?.text.includes("0.1.0") === true, "the server is running");
}

beforeEach(() => resetAll());
afterEach(async () => {
  await deactivate();
  for (const subscription of context.subscriptions) subscription.dispose();
});

describe("activate", () => {
  it("registers exactly the commands package.json contributes", async () => {
    await start();
    const contributed = manifest.contributes.commands.map((c) => c.command).sort();
    assert.deepEqual([...fake.state.commands.keys()].sort(), contributed);
  });

  it("starts the server with the configured command, arguments and settings", async () => {
    fake.setting("checkspec.server.args", ["lsp", "--log", "debug"]);
    fake.setting("checkspec.model", " openai/gpt-4o-mini ");
    fake.setting("checkspec.jobs", 2);
    await start();
    assert.equal(server.clients.length, 1);
    const client = server.client;
    assert.equal(client.serverOptions.command, configuredServer());
    assert.deepEqual(client.serverOptions.args, ["lsp", "--log", "debug"]);
    assert.deepEqual(client.clientOptions.initializationOptions, { checkspec: { model: "openai/gpt-4o-mini", jobs: 2 } });
    const [output] = fake.state.outputChannels;
    assert.equal(output?.name, "checkspec");
    assert.ok(output.lines.includes(`checkspec: starting ${configuredServer()} lsp --log debug (from setting)`), output.lines.join("\n"));
    assert.equal(fake.state.languageStatusItems[0]?.text.includes("0.1.0"), true);
  });

  it("runs through the registered commands and lists the runs in the Test Explorer", async () => {
    await start();
    await fake.command("checkspec.runScenario")(SUITE.toString(), 2);
    await fake.command("checkspec.runFile")(SUITE);
    assert.deepEqual(runRequests().map((r) => r.arguments), [[SUITE.toString(), [2]], [SUITE.toString()]]);
    assert.equal(fake.controller().runs.length, 2);
    const statusBar = fake.state.statusBarItems[0];
    assert.equal(statusBar?.command, "checkspec.showOutput");
    assert.match(statusBar.text, /^\$\(error\) checkspec: 3 scenarios/);
  });

  it("shows the output and restarts the server on command", async () => {
    await start();
    await fake.command("checkspec.showOutput")();
    assert.equal(fake.state.outputChannels[0]?.shown, 1);
    const first = server.client;
    await fake.command("checkspec.restartServer")();
    assert.equal(server.clients.length, 2);
    assert.deepEqual(first.stopped, [5000]);
    assert.ok(first.disposed);
  });

  it("shows the last run of a scenario from the server in a panel", async () => {
    await start();
    script.answer = () => ({ scenario: "opening hours", status: "pass", summary: "ok", turns: [], checks: [] });
    await fake.command("checkspec.showLastRun")(SUITE.toString(), 1);
    const [request] = runRequests();
    assert.deepEqual([request?.command, request?.arguments], ["checkspec.showLastRun", [SUITE.toString(), 1]]);
    assert.equal(fake.state.webviews[0]?.title, "Last run: opening hours");
    assert.match(fake.state.webviews[0]?.webview.html ?? "", /opening hours/);
    script.answer = () => ({ scenario: "shipping is EU only", status: "pass", summary: "ok", turns: [], checks: [] });
    await fake.command("checkspec.showLastRun")(SUITE.toString(), 0);
    assert.equal(fake.state.webviews.length, 1, "one panel, reused");
    assert.equal(fake.state.webviews[0]?.title, "Last run: shipping is EU only");
  });

  it("shows the compare of the file's last two recorded runs in a panel, or why not", async () => {
    await start();
    script.answer = () => ({ html: "<!doctype html><html><body>compare page</body></html>", title: "a.suite.yaml: r1 → r2", base: "r1", head: "r2" });
    await fake.command("checkspec.compareWithPrevious")(SUITE.toString());
    const [request] = runRequests();
    assert.deepEqual([request?.command, request?.arguments], ["checkspec.compareWithPrevious", [SUITE.toString()]]);
    assert.equal(fake.state.webviews[0]?.title, "a.suite.yaml: r1 → r2");
    assert.match(fake.state.webviews[0]?.webview.html ?? "", /compare page/);
    script.answer = () => ({ error: "a.suite.yaml has no recorded runs; compare needs two (run it again)" });
    await fake.command("checkspec.compareWithPrevious")(SUITE.toString());
    assert.equal(fake.state.webviews.length, 1, "one panel, reused");
    assert.match(fake.state.webviews[0]?.webview.html ?? "", /compare needs two/);
  });

  it("restarts the server when its command changes, not for other settings", async () => {
    await start();
    fake.changeSettings({ "checkspec.model": "openai/gpt-4o" });
    await settle();
    assert.equal(server.clients.length, 1);
    const other = executable("checkspec-dev");
    fake.changeSettings({ "checkspec.server.path": other });
    await eventually(() => server.clients.length === 2 && server.client.initializeResult !== undefined, "a new server");
    assert.equal(server.client.serverOptions.command, other);
    assert.deepEqual(server.clients[0]?.stopped, [5000]);
    fake.changeSettings({ "checkspec.server.args": ["lsp", "-v"] });
    await eventually(() => server.clients.length === 3, "a new server");
    assert.deepEqual(server.client.serverOptions.args, ["lsp", "-v"]);
  });

  it("restarts the server when the workspace is trusted", async () => {
    fake.untrust();
    await start();
    fake.grantTrust();
    await eventually(() => server.clients.length === 2, "a new server");
  });

  it("disposes what it registered with the extension's context", async () => {
    await start();
    for (const subscription of context.subscriptions) subscription.dispose();
    assert.deepEqual([...fake.state.commands.keys()], []);
    assert.ok(fake.controller().disposed);
    assert.ok(fake.state.outputChannels[0]?.disposed);
    context.subscriptions = [];
  });
});

describe("the server's language status", () => {
  it("follows the server: starting, running with its version and command, failed with the reason", async () => {
    await start();
    const [status, logs] = fake.state.languageStatusItems;
    assert.equal(status?.id, "checkspec.server");
    assert.deepEqual([status.text, status.detail, status.severity, status.busy], [
      "$(check) checkspec 0.1.0",
      `${configuredServer()} lsp — from checkspec.server.path`,
      0,
      false,
    ]);
    assert.deepEqual(status.command, { title: "Restart", command: "checkspec.restartServer" });
    assert.deepEqual(logs?.command, { title: "Show Output", command: "checkspec.showOutput" });
    fake.setting("checkspec.server.path", "/nowhere/checkspec");
    await fake.command("checkspec.restartServer")();
    assert.deepEqual([status.text, status.detail, status.severity], [
      "$(error) checkspec not running",
      'checkspec.server.path "/nowhere/checkspec" is not an executable file.',
      2,
    ]);
  });
});

describe("show last run from the palette", () => {
  it("shows the scenario at the cursor, and says so outside a spec file", async () => {
    await start();
    script.answer = () => ({ error: "not run since it changed" });
    fake.state.activeTextEditor = editor(SUITE, new Position(13, 0));
    fake.state.visibleTextEditors = [fake.state.activeTextEditor];
    await fake.command("checkspec.showLastRun")();
    assert.deepEqual(runRequests()[0]?.arguments, [SUITE.toString(), 1]);
    assert.match(fake.state.webviews[0]?.webview.html ?? "", /not run since it changed/);
    fake.state.activeTextEditor = editor(Uri.file("/ws/README.md"), new Position(0, 0));
    await fake.command("checkspec.showLastRun")();
    assert.equal(runRequests().length, 1);
    assert.deepEqual(fake.messages().map((m) => m.message), ["checkspec: open a *.scenario, *.suite or *.dataset file first."]);
  });
});

describe("deactivate", () => {
  it("stops the server", async () => {
    await start();
    const client = server.client;
    await deactivate();
    assert.deepEqual(client.stopped, [5000]);
    assert.ok(client.disposed);
    await deactivate(); // twice is harmless
    assert.deepEqual(client.stopped, [5000]);
  });
});

describe("run on save", () => {
  // The server runs on didSave (checkspec.runOnSave, for every editor): the extension only
  // passes the setting (not in an untrusted workspace) and never runs on save itself.
  const saved = document(SUITE);

  it("passes checkspec.runOnSave to the server and runs nothing itself on save", async () => {
    fake.setting("checkspec.runOnSave", "file");
    await start();
    assert.deepEqual(server.client.clientOptions.initializationOptions, { checkspec: { runOnSave: "file" } });
    fake.save(saved);
    for (let i = 0; i < 20; i++) await settle();
    assert.deepEqual(runRequests(), []);
  });

  it("leaves runOnSave out (the server's default: off) in an untrusted workspace", async () => {
    fake.setting("checkspec.runOnSave", "scenario");
    fake.untrust();
    await start();
    assert.deepEqual(server.client.clientOptions.initializationOptions, { checkspec: {} });
  });
});
