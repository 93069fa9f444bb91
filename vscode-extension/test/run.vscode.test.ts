// The run commands (src/run.ts) against the fake VS Code: the workspace-trust gate, the
// cancellable progress notification fed by the server's work-done progress, the summary,
// and how the scenario to run is chosen.
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { OTHER, SUITE, fake, resetAll, runRequests, script, server, settle, wire, type Wired } from "./fake/harness";
import { CancellationTokenSource, Position, TestRunRequest, Uri, editor } from "./fake/vscode";

let ext: Wired;

beforeEach(() => resetAll());
afterEach(() => ext.dispose());

const TRUST_WARNING = "checkspec runs scenarios only in a trusted workspace: a run imports the workspace's code.";

describe("runs and workspace trust", () => {
  for (const explorer of [false, true]) {
    const where = explorer ? "through the Test Explorer" : "without the Test Explorer";
    it(`refuses to run in an untrusted workspace, sending nothing, and runs once trusted (${where})`, async () => {
      ext = wire(explorer);
      fake.untrust();
      fake.state.answers.push("Manage Workspace Trust");
      assert.equal(await ext.runner.runScenario(SUITE.toString(), 0), undefined);
      assert.equal(await ext.runner.runFile(SUITE), undefined);
      assert.deepEqual(runRequests(), [], "nothing was sent to the server");
      assert.deepEqual(fake.state.progress, []);
      assert.deepEqual(
        fake.messages().map((m) => [m.severity, m.message, m.items]),
        [
          ["warning", TRUST_WARNING, ["Manage Workspace Trust"]],
          ["warning", TRUST_WARNING, ["Manage Workspace Trust"]],
        ],
      );
      await settle();
      assert.deepEqual(fake.state.executed, [{ command: "workbench.trust.manage", args: [] }], "the button opens the trust editor");
      if (explorer) assert.deepEqual(fake.controller().runs, [], "no test run was even listed");

      fake.grantTrust();
      const report = await ext.runner.runScenario(SUITE.toString(), 2);
      assert.equal(report?.status, "fail");
      assert.equal(runRequests().length, 1);
    });
  }

  it("refuses a Test Explorer run in an untrusted workspace and ends it", async () => {
    ext = wire();
    fake.untrust();
    fake.state.files = [SUITE];
    await fake.controller().resolveHandler?.(undefined);
    await fake.controller().profiles[0]?.runHandler(new TestRunRequest(), new CancellationTokenSource().token);
    assert.deepEqual(runRequests(), []);
    assert.equal(fake.messages("warning")[0]?.message, TRUST_WARNING);
    assert.equal(fake.controller().runs.length, 1);
    assert.ok(fake.controller().runs[0]?.ended);
    assert.deepEqual(fake.controller().runs[0]?.events, []);
  });
});

describe("runs without the Test Explorer", () => {
  beforeEach(() => {
    ext = wire(false);
  });

  it("sends checkspec.runScenario [uri, index] and checkspec.runFile [uri]", async () => {
    await ext.runner.runScenario(SUITE.toString(), 1);
    await ext.runner.runFile(SUITE);
    assert.deepEqual(
      runRequests().map((r) => [r.command, r.arguments]),
      [
        ["checkspec.runScenario", [SUITE.toString(), 1]],
        ["checkspec.runFile", [SUITE.toString()]],
      ],
    );
  });

  it("shows one cancellable progress notification whose Cancel cancels the request", async () => {
    let seen: { cancelled: boolean | undefined; title: string | undefined; cancellable: boolean | undefined } | undefined;
    script.during = async (request) => {
      const progress = fake.state.progress[0];
      progress?.source.cancel(); // the notification's Cancel button
      await settle();
      seen = { cancelled: request.token?.isCancellationRequested, title: progress?.options.title, cancellable: progress?.options.cancellable };
    };
    script.answer = () => ({ uri: SUITE.toString(), status: "cancelled", cancelled: true, scenarios: [] });
    const report = await ext.runner.runFile(SUITE);
    assert.deepEqual(seen, { cancelled: true, title: "checkspec: running examples/support.suite.yaml", cancellable: true });
    assert.equal(fake.state.progress[0]?.options.location, 15, "a notification");
    assert.equal(report?.cancelled, true);
  });

  it("feeds the notification from the server's work-done progress under the run's own token", async () => {
    let during: { token: unknown; listening: boolean } | undefined;
    script.during = (request) => {
      const { workDoneToken } = request.params as { workDoneToken: string };
      request.client.progress(workDoneToken, { kind: "begin", title: "run", message: "0/3", percentage: 0 });
      request.client.progress(workDoneToken, { kind: "report", message: "2/3, 1 failed", percentage: 66 });
      request.client.progress(workDoneToken, { kind: "report", message: "3/3, 1 failed", percentage: 100 });
      request.client.progress("someone-else", { kind: "report", message: "not ours", percentage: 99 });
      request.client.progress(workDoneToken, { kind: "end", message: "done" });
      during = { token: workDoneToken, listening: request.client.progressHandlers.has(workDoneToken) };
    };
    await ext.runner.runFile(SUITE);
    assert.ok(during);
    assert.equal(typeof during.token, "string");
    assert.equal(during.listening, true);
    assert.deepEqual(fake.state.progress[0]?.reports, [
      { message: "0/3", increment: 0 },
      { message: "2/3, 1 failed", increment: 66 },
      { message: "3/3, 1 failed", increment: 34 }, // increments, not percentages
    ]);
    const client = server.client;
    assert.equal(client.progressHandlers.has(during.token as string), false, "no longer listened to after the run");
    await ext.runner.runFile(SUITE);
    const tokens = runRequests().map((r) => r.workDoneToken);
    assert.notEqual(tokens[0], tokens[1], "each run has its own token");
  });

  it("summarizes in the status bar and the output, and says so when nothing could run", async () => {
    await ext.runner.runScenario(SUITE.toString(), 2);
    assert.equal(ext.statusBar.text, "$(error) follow-up keeps context (intentionally failing): fail — 1 failed of 2 checks");
    assert.ok(ext.statusBar.visible);
    assert.match(ext.statusBar.tooltip ?? "", /Click for the details/);
    assert.ok(ext.output.lines.includes("    ✗ step 2 · string_matching (line 31): The answer does not contain the keyword 'business days'"));
    assert.deepEqual(fake.messages(), [], "results alone raise no toast");

    await ext.runner.runScenario(SUITE.toString(), 7);
    assert.deepEqual(fake.messages().map((m) => [m.severity, m.message]), [["error", "checkspec: no such scenario in this document"]]);
  });

  it("reports a failed request as the run's error", async () => {
    server.on("workspace/executeCommand", () => {
      throw new Error("connection got disposed");
    });
    const report = await ext.runner.runFile(SUITE);
    assert.equal(report?.error, "the run failed: connection got disposed");
    assert.equal(fake.messages("error")[0]?.message, "checkspec: the run failed: connection got disposed");
  });

  it("runs nothing when the server cannot start", async () => {
    fake.setting("checkspec.server.path", "/nonexistent/checkspec");
    assert.equal(await ext.runner.runFile(SUITE), undefined);
    assert.deepEqual(server.requests, []);
    assert.equal(ext.statusBar.visible, false, "no run is left spinning");
  });
});

describe("choosing what to run", () => {
  beforeEach(() => {
    ext = wire(false);
  });

  it("runs the scenario at the cursor when the palette gives no index", async () => {
    fake.state.activeTextEditor = editor(SUITE, new Position(14, 3));
    fake.state.visibleTextEditors = [fake.state.activeTextEditor];
    await ext.runner.runScenario();
    assert.deepEqual(runRequests().map((r) => r.arguments), [[SUITE.toString(), 1]]);
  });

  it("runs the scenario at the cursor K times, asking for K, and shows the runs' tally", async () => {
    fake.state.activeTextEditor = editor(SUITE, new Position(14, 3));
    fake.state.visibleTextEditors = [fake.state.activeTextEditor];
    fake.state.inputs.push("1");
    assert.equal(await ext.runner.runScenarioRepeated(), undefined);
    assert.equal(fake.state.inputBoxes[0]?.problem, "a whole number from 2 to 100");
    assert.deepEqual(runRequests(), [], "nothing runs on a refused count");

    const summary = "opening hours: fail — 1 failed of 1 check; 2/3 runs passed (67%), flaky";
    script.answer = () => ({
      uri: SUITE.toString(),
      status: "fail",
      cancelled: false,
      scenarios: [{ scenario: "opening hours", index: 1, line: 12, status: "fail", summary, checks: [], errors: [] }],
    });
    fake.state.inputs.push("3");
    const report = await ext.runner.runScenarioRepeated();
    assert.deepEqual(runRequests().map((r) => [r.command, r.arguments]), [
      ["checkspec.runFile", [SUITE.toString(), [1], { repeat: 3 }]],
    ]);
    assert.equal(report?.status, "fail");
    assert.equal(ext.statusBar.text, `$(error) ${summary}`);
    await ext.runner.runScenarioRepeated(SUITE.toString(), 2, 4); // a lens gives K: not asked
    assert.deepEqual(runRequests()[1]?.arguments, [SUITE.toString(), [2], { repeat: 4 }]);
    assert.equal(fake.state.inputBoxes.length, 2);
  });

  it("asks which scenario when the cursor is in none", async () => {
    fake.state.activeTextEditor = editor(SUITE, new Position(0, 0));
    fake.state.visibleTextEditors = [fake.state.activeTextEditor];
    fake.state.pick = (items) => items[2];
    await ext.runner.runScenario(SUITE);
    assert.deepEqual(
      (fake.state.quickPicks[0]?.items as { label: string }[]).map((i) => i.label),
      ["shipping is EU only", "opening hours", "follow-up keeps context (intentionally failing)"],
    );
    assert.deepEqual(runRequests().map((r) => r.arguments), [[SUITE.toString(), 2]]);
    fake.state.pick = () => undefined; // dismissed
    await ext.runner.runScenario(SUITE);
    assert.equal(runRequests().length, 1);
  });

  it("says so when no spec file is open or the file has no scenario", async () => {
    await ext.runner.runFile();
    fake.state.activeTextEditor = editor(Uri.file("/ws/notes.md"), new Position(0, 0));
    await ext.runner.runScenario();
    await ext.runner.runScenario(OTHER); // the server outlines no scenario in it
    assert.deepEqual(fake.messages().map((m) => m.message), [
      "checkspec: open a *.scenario, *.suite or *.dataset file first.",
      "checkspec: open a *.scenario, *.suite or *.dataset file first.",
      "checkspec: no scenario in examples/other.scenario.yaml.",
    ]);
    assert.deepEqual(runRequests(), []);
  });
});
