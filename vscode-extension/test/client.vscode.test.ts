// The language client and its manager (src/client.ts) against the fake VS Code and client:
// which executable starts the server (trust included), the options the client gets from the
// settings, the settings pushed and pulled later, and the start, failure and restart paths.
import assert from "node:assert/strict";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { CLIENT_ID, ServerManager, findServer, type ServerState } from "../src/client";
import { SPEC_PATTERNS } from "../src/specFiles";
import { configuredServer, eventually, executable, fake, resetAll, server, settle } from "./fake/harness";
import { State } from "./fake/languageclient";
import { OutputChannel, Uri, window } from "./fake/vscode";

let output: OutputChannel;
let manager: ServerManager;
let states: ServerState[];
const savedPath = process.env["PATH"];

beforeEach(() => {
  resetAll();
  output = window.createOutputChannel("checkspec");
  manager = new ServerManager(output as never);
  states = [];
  manager.onDidChangeState((state) => states.push(state));
});
afterEach(() => {
  manager.dispose();
  process.env["PATH"] = savedPath;
});

/** A workspace folder holding `.venv/bin/checkspec`. */
function workspaceWithVenv(): { folder: string; venvServer: string } {
  const folder = mkdtempSync(join(tmpdir(), "checkspec-ws-"));
  mkdirSync(join(folder, ".venv", "bin"), { recursive: true });
  const target = join(folder, ".venv", "bin", "checkspec");
  copyFileSync(executable(), target);
  chmodSync(target, 0o755);
  fake.state.workspaceFolders = [{ uri: Uri.file(folder), name: "ws", index: 0 }];
  return { folder, venvServer: target };
}

describe("which server starts", () => {
  it("uses the workspace's .venv only in a trusted workspace", async () => {
    const { venvServer } = workspaceWithVenv();
    fake.setting("checkspec.server.path", "");
    process.env["PATH"] = mkdtempSync(join(tmpdir(), "checkspec-empty-path-"));
    assert.deepEqual(await findServer(), { ok: true, command: venvServer, args: ["lsp"], source: "workspace" });
    fake.untrust();
    const found = await findServer();
    assert.equal(found.ok, false);
    assert.ok(!found.ok && !found.tried.includes(venvServer), "an untrusted workspace's .venv is not even looked at");
  });

  it("takes a relative checkspec.server.path from the first workspace folder", async () => {
    const { folder, venvServer } = workspaceWithVenv();
    fake.setting("checkspec.server.path", ".venv/bin/checkspec");
    fake.setting("checkspec.server.args", ["lsp", 3, "--x"]);
    assert.deepEqual(await findServer(), { ok: true, command: venvServer, args: ["lsp", "--x"], source: "setting" });
    assert.ok(venvServer.startsWith(folder));
  });
});

describe("the language client", () => {
  it("starts the configured command on stdio in the first folder, for spec files, with the settings", async () => {
    fake.setting("checkspec.model", "openai/gpt-4o-mini");
    fake.setting("checkspec.target", "  ");
    fake.setting("checkspec.concurrency", 0);
    fake.setting("checkspec.scenarioTimeout", 30);
    const client = await manager.ready();
    assert.ok(client);
    const fakeClient = server.client;
    assert.equal(fakeClient.id, CLIENT_ID);
    assert.equal(CLIENT_ID, "checkspec", "the client reads checkspec.trace.server by its id");
    assert.deepEqual(fakeClient.serverOptions, { command: configuredServer(), args: ["lsp"], options: { cwd: "/ws", shell: false } });
    const options = fakeClient.clientOptions;
    assert.deepEqual(options.documentSelector, SPEC_PATTERNS.map((pattern) => ({ scheme: "file", pattern })));
    assert.equal(options.outputChannel, output);
    assert.equal(options.revealOutputChannelOn, 4, "Never");
    assert.deepEqual(options.synchronize, { configurationSection: "checkspec" });
    assert.deepEqual(options.initializationOptions, { checkspec: { model: "openai/gpt-4o-mini", scenarioTimeout: 30 } });
  });

  it("runs a .cmd or .bat server through a shell", async () => {
    fake.setting("checkspec.server.path", executable("checkspec.cmd"));
    await manager.ready();
    assert.equal(server.client.serverOptions.options?.shell, true);
  });

  it("leaves out the stock executeCommand feature, keeping the others", async () => {
    await manager.ready();
    const registered = server.client.registered;
    assert.ok(!registered.includes("workspace/executeCommand"), "the extension registers the run commands itself");
    assert.ok(registered.includes("textDocument/documentSymbol"));
    assert.ok(registered.includes("workspace/didChangeConfiguration"));
  });

  it("pushes changed settings in the shape of initializationOptions", async () => {
    await manager.ready();
    fake.setting("checkspec.apiBase", "http://localhost:4000");
    fake.setting("checkspec.concurrency", 0); // out of the catalog's bounds: not sent
    let next = 0;
    await server.client.clientOptions.middleware.workspace.didChangeConfiguration(["checkspec"], async () => void next++);
    assert.deepEqual(server.notifications, [
      { method: "workspace/didChangeConfiguration", params: { settings: { checkspec: { apiBase: "http://localhost:4000" } } } },
    ]);
    assert.equal(next, 0, "instead of the raw section");
  });

  it("answers the server's configuration request for checkspec normalised, other sections as they are", async () => {
    await manager.ready();
    const configuration = server.client.clientOptions.middleware.workspace.configuration;
    const params = { items: [{ section: "checkspec" }, { section: "python" }] };
    const raw = [{ model: " m ", concurrency: 0, jobs: 3, server: { path: "/x" } }, { defaultInterpreterPath: "py" }];
    assert.deepEqual(await configuration(params, undefined, async () => raw), [{ model: "m", jobs: 3 }, { defaultInterpreterPath: "py" }]);
    const failure = new Error("no");
    assert.equal(await configuration(params, undefined, async () => failure), failure);
  });
});

describe("the server manager", () => {
  it("starts one server, says which and its version, and reuses it", async () => {
    const [a, b] = await Promise.all([manager.ready(), manager.ready()]);
    assert.equal(a, b);
    assert.equal(await manager.ready(), a);
    assert.equal(server.clients.length, 1);
    assert.deepEqual(states, ["starting", "running"]);
    assert.deepEqual(manager.info, { command: `${configuredServer()} lsp`, source: "setting", version: "0.1.0" });
  });

  it("waits for the client's own restart of a crashed server rather than starting another", async () => {
    const client = await manager.ready();
    server.client.setState(State.Starting);
    assert.deepEqual(states.at(-1), "stopped");
    const again = manager.ready();
    await settle();
    server.client.setState(State.Running);
    assert.equal(await again, client);
    assert.equal(server.clients.length, 1);
    assert.equal(manager.state, "running");
  });

  it("says where it looked when no server is found, with a way to the settings", async () => {
    fake.setting("checkspec.server.path", "/nowhere/checkspec");
    fake.state.answers.push("Open Settings");
    assert.equal(await manager.ready(), undefined);
    assert.equal(manager.state, "failed");
    const problem = 'checkspec.server.path "/nowhere/checkspec" is not an executable file.';
    assert.equal(manager.info?.problem, problem);
    assert.deepEqual(output.lines, [`checkspec: ${problem}`, "  looked for: /nowhere/checkspec"]);
    assert.deepEqual(fake.messages().map((m) => [m.severity, m.message, m.items]), [["error", problem, ["Open Settings", "Show Output"]]]);
    await eventually(() => fake.state.executed.length > 0, "the settings opened");
    assert.deepEqual(fake.state.executed, [{ command: "workbench.action.openSettings", args: ["checkspec.server"] }]);
    assert.equal(server.clients.length, 0);
  });

  it("reports a server that does not start, with a way to its output", async () => {
    server.startError = new Error("spawn EACCES");
    fake.state.answers.push("Show Output");
    assert.equal(await manager.ready(), undefined);
    assert.deepEqual(states, ["starting", "failed"]);
    assert.equal(manager.info?.problem, "spawn EACCES");
    assert.ok(server.client.disposed);
    assert.equal(fake.messages("error")[0]?.message, `The checkspec language server did not start (${configuredServer()}): spawn EACCES`);
    await eventually(() => output.shown === 1, "the output shown");
    // Fixed: the next ready() tries again.
    server.startError = undefined;
    assert.ok(await manager.ready());
    assert.equal(manager.state, "running");
  });

  it("restarts: the old server is stopped before the new one starts", async () => {
    const first = await manager.ready();
    const old = server.client;
    const second = await manager.restart();
    assert.notEqual(first, second);
    assert.deepEqual(old.stopped, [5000]);
    assert.ok(old.disposed);
    assert.deepEqual(states, ["starting", "running", "stopped", "starting", "running"]);
  });

  it("logs a server that fails to stop and still lets it go", async () => {
    await manager.ready();
    const client = server.client;
    client.stop = async () => {
      throw new Error("timed out");
    };
    await manager.stop();
    assert.ok(output.lines.includes("checkspec: stopping the server: Error: timed out"));
    assert.ok(client.disposed);
    assert.equal(manager.state, "stopped");
  });
});
