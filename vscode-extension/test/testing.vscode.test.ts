// The Test Explorer (src/testing.ts) against the fake VS Code: discovery of a file's
// scenarios and checks, the requests a run sends, the results recorded per scenario and per
// check as checkspec/scenarioFinished arrives, diffs, cancellation and the run's output.
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it, mock } from "node:test";
import { OTHER, SUITE, eventually, fake, resetAll, runRequests, script, server, settle, suiteSummaries, wire, type Wired } from "./fake/harness";
import { CancellationTokenSource, Position, Range, TestRunRequest, Uri, document, type CancellationToken, type TestEvent, type TestItem, type TestRun } from "./fake/vscode";

let ext: Wired;

beforeEach(() => {
  resetAll();
  ext = wire();
});
afterEach(() => ext.dispose());

const id = (index: number, check?: string): string => `${SUITE.toString()}#${index}${check === undefined ? "" : `/${check}`}`;

/** The item `id` in the controller, however deep. */
function item(itemId: string): TestItem {
  const find = (items: Iterable<[string, TestItem]>): TestItem | undefined => {
    for (const [, candidate] of items) {
      if (candidate.id === itemId) return candidate;
      const inner = find(candidate.children);
      if (inner !== undefined) return inner;
    }
    return undefined;
  };
  const found = find(fake.controller().items);
  assert.ok(found, `no test item ${itemId}`);
  return found;
}

async function resolveSuite(): Promise<TestItem> {
  fake.state.files = [SUITE];
  await fake.controller().resolveHandler?.(undefined);
  const file = item(SUITE.toString());
  await fake.controller().resolveHandler?.(file);
  return file;
}

function lastRun(): TestRun {
  const run = fake.controller().runs.at(-1);
  assert.ok(run, "no test run was created");
  return run;
}

function kinds(run: TestRun, ids: string[]): (string | undefined)[] {
  return ids.map((itemId) => run.state(itemId)?.kind);
}

function messagesOf(event: TestEvent | undefined): { message: string; expectedOutput?: string; actualOutput?: string; line?: number }[] {
  assert.ok(event !== undefined && (event.kind === "failed" || event.kind === "errored"), `not a failure: ${JSON.stringify(event)}`);
  return event.messages.map((m) => ({
    message: m.message,
    ...(m.expectedOutput === undefined ? {} : { expectedOutput: m.expectedOutput }),
    ...(m.actualOutput === undefined ? {} : { actualOutput: m.actualOutput }),
    ...(m.location === undefined ? {} : { line: m.location.range.start.line }),
  }));
}

describe("Test Explorer: discovery", () => {
  it("lists the workspace's spec files, and drops those gone at the next refresh", async () => {
    fake.state.files = [SUITE, OTHER];
    await fake.controller().resolveHandler?.(undefined);
    const labels = [...fake.controller().items].map(([, file]) => [file.id, file.label, file.canResolveChildren]);
    assert.deepEqual(labels, [
      [SUITE.toString(), "examples/support.suite.yaml", true],
      [OTHER.toString(), "examples/other.scenario.yaml", true],
    ]);
    fake.state.files = [SUITE];
    await fake.controller().refreshHandler?.(undefined as never);
    assert.deepEqual([...fake.controller().items].map(([key]) => key), [SUITE.toString()]);
  });

  it("lists a file's scenarios with their ranges and their checks under them, from the server's outline", async () => {
    const file = await resolveSuite();
    assert.deepEqual(fake.state.opened.map(String), [SUITE.toString()], "the server outlines open documents only");
    assert.deepEqual(server.sent("textDocument/documentSymbol").map((r) => r.params), [{ textDocument: { uri: SUITE.toString() } }]);
    assert.equal(file.canResolveChildren, false);
    assert.equal(file.busy, false);
    const scenarios = [...file.children].map(([, s]) => s);
    assert.deepEqual(
      scenarios.map((s) => [s.id, s.label, s.description, s.sortText, s.error, s.parent?.id]),
      [
        [id(0), "shipping is EU only", "support", "000000", undefined, file.id],
        [id(1), "opening hours", "support", "000001", undefined, file.id],
        [id(2), "follow-up keeps context (intentionally failing)", "support", "000002", undefined, file.id],
      ],
    );
    // The scenario's item sits on its name (the gutter icon's line).
    assert.deepEqual(item(id(0)).range, new Range(5, 10, 5, 29));
    assert.deepEqual(item(id(2)).range, new Range(19, 10, 19, 57));
    const checks = [...item(id(2)).children].map(([, c]) => [c.id, c.label, c.description, c.range]);
    assert.deepEqual(checks, [
      [id(2, "0.0"), "string_matching", "step 1", new Range(25, 18, 25, 33)],
      [id(2, "1.0"), "string_matching", "step 2", new Range(30, 18, 30, 33)],
    ]);
  });

  it("shows the file busy while its outline is asked", async () => {
    let busy: boolean | undefined;
    server.on("textDocument/documentSymbol", () => {
      busy = item(SUITE.toString()).busy;
      return [];
    });
    await resolveSuite();
    assert.equal(busy, true);
    assert.equal(item(SUITE.toString()).busy, false);
  });

  it("reads an outline of SymbolInformation (a location, no children) too", async () => {
    const range = { start: { line: 3, character: 0 }, end: { line: 9, character: 0 } };
    script.symbols.set(SUITE.toString(), [{ name: "only", kind: 5, location: { uri: SUITE.toString(), range } }]);
    await resolveSuite();
    assert.equal(item(id(0)).label, "only");
    assert.deepEqual(item(id(0)).range, new Range(3, 0, 9, 0));
    assert.equal(item(id(0)).children.size, 0);
  });

  it("marks a scenario the server cannot build as not runnable", async () => {
    const symbols = structuredClone(script.symbols.get(SUITE.toString())) as { detail?: string }[];
    symbols[1]!.detail = "not runnable";
    script.symbols.set(SUITE.toString(), symbols);
    await resolveSuite();
    assert.equal(item(id(0)).error, undefined);
    assert.match(item(id(1)).error ?? "", /not runnable/);
  });

  it("keeps a scenario's item across refreshes, and shows why a file could not be read", async () => {
    const file = await resolveSuite();
    const before = item(id(1));
    await fake.controller().resolveHandler?.(file);
    assert.equal(item(id(1)), before, "a run may be recording into it");
    server.on("textDocument/documentSymbol", () => {
      throw new Error("boom");
    });
    await fake.controller().resolveHandler?.(file);
    assert.equal(file.error, "could not read its scenarios: boom");
    assert.equal(file.busy, false);
  });

  it("lists an opened file's scenarios shortly after it opens, and follows the file watcher", async () => {
    mock.timers.enable({ apis: ["setTimeout"] });
    try {
      fake.open(document(SUITE));
      fake.open(document(Uri.file("/ws/checkspec.yaml"))); // not a file with scenarios
      assert.deepEqual([...fake.controller().items].map(([key]) => key), [SUITE.toString()]);
      await Promise.resolve(); // nothing is asked before the delay
      assert.equal(server.sent("textDocument/documentSymbol").length, 0);
      mock.timers.tick(500);
    } finally {
      mock.timers.reset();
    }
    await eventually(() => item(SUITE.toString()).children.size === 3, "the scenarios listed");
    const [watcher] = fake.state.watchers;
    assert.ok(watcher);
    watcher.fireCreate(OTHER);
    assert.ok(fake.controller().items.get(OTHER.toString()));
    watcher.fireDelete(OTHER);
    assert.equal(fake.controller().items.get(OTHER.toString()), undefined);
  });
});

describe("Test Explorer: keeping up with edits", () => {
  async function afterDelay(action: () => void): Promise<void> {
    mock.timers.enable({ apis: ["setTimeout"] });
    try {
      action();
      mock.timers.tick(499);
      await Promise.resolve();
      assert.equal(server.sent("textDocument/documentSymbol").length, outlines, "not before the delay");
      mock.timers.tick(1);
    } finally {
      mock.timers.reset();
    }
    await eventually(() => server.sent("textDocument/documentSymbol").length > outlines, "the outline asked again");
    outlines = server.sent("textDocument/documentSymbol").length;
  }
  let outlines = 0;

  it("lists a file's scenarios again after an edit, once typing pauses", async () => {
    await resolveSuite();
    outlines = server.sent("textDocument/documentSymbol").length;
    const symbols = structuredClone(script.symbols.get(SUITE.toString())) as { name: string }[];
    symbols[0]!.name = "shipping is EU only (renamed)";
    script.symbols.set(SUITE.toString(), symbols);
    await afterDelay(() => fake.state.changed$.fire({ document: document(SUITE) }));
    assert.equal(item(id(0)).label, "shipping is EU only (renamed)");
  });

  it("follows a change on disk only for a file whose scenarios are listed", async () => {
    fake.state.files = [SUITE];
    await fake.controller().resolveHandler?.(undefined);
    const [watcher] = fake.state.watchers;
    assert.ok(watcher);
    mock.timers.enable({ apis: ["setTimeout"] });
    try {
      watcher.fireChange(SUITE); // never expanded: nothing to refresh
      watcher.fireChange(OTHER); // not listed at all
      mock.timers.tick(1000);
    } finally {
      mock.timers.reset();
    }
    await settle();
    assert.equal(server.sent("textDocument/documentSymbol").length, 0);
    assert.equal(fake.controller().items.get(OTHER.toString()), undefined);
    await fake.controller().resolveHandler?.(item(SUITE.toString()));
    outlines = server.sent("textDocument/documentSymbol").length;
    await afterDelay(() => watcher.fireChange(SUITE));
  });
});

describe("Test Explorer: runs", () => {
  it("runs the scenario of a code lens as [uri, [index]], and records its result and its checks'", async () => {
    const report = await ext.runner.runScenario(SUITE.toString(), 2);
    assert.deepEqual(
      runRequests().map((r) => [r.command, r.arguments]),
      [["checkspec.runFile", [SUITE.toString(), [2]]]],
    );
    assert.equal(report?.status, "fail");
    const run = lastRun();
    assert.deepEqual(run.request.include?.map((i) => i.id), [id(2)]);
    assert.deepEqual(kinds(run, [id(2), id(2, "0.0"), id(2, "1.0")]), ["failed", "passed", "failed"]);
    assert.equal(run.state(id(0)), undefined, "other scenarios are left alone");
    assert.ok(run.ended);
    assert.deepEqual(run.afterEnd, []);
  });

  it("runs a whole file as [uri] and records every scenario", async () => {
    const summaries = suiteSummaries();
    summaries[0]!["duration_ms"] = 7;
    script.results.set(SUITE.toString(), summaries);
    await ext.runner.runFile(SUITE);
    assert.deepEqual(runRequests().map((r) => r.arguments), [[SUITE.toString()]]);
    const run = lastRun();
    assert.deepEqual(run.request.include?.map((i) => i.id), [SUITE.toString()]);
    assert.deepEqual(kinds(run, [id(0), id(1), id(2)]), ["passed", "passed", "failed"]);
    assert.deepEqual(kinds(run, [id(0, "0.0"), id(1, "0.0")]), ["passed", "passed"]);
    const passed = run.state(id(0));
    assert.equal(passed?.kind === "passed" ? passed.duration : "?", 7, "the scenario's duration");
  });

  it("runs what the Test Explorer asks: a check runs with its scenario, exclusions are left out", async () => {
    const file = await resolveSuite();
    const [profile] = fake.controller().profiles;
    assert.ok(profile?.isDefault);
    await profile.runHandler(new TestRunRequest([item(id(0, "0.0")), item(id(2))]), newToken());
    assert.deepEqual(runRequests().map((r) => r.arguments), [[SUITE.toString(), [0, 2]]]);
    await profile.runHandler(new TestRunRequest([file], [item(id(1))]), newToken());
    assert.deepEqual(runRequests()[1]?.arguments, [SUITE.toString(), [0, 2]]);
    const run = lastRun();
    assert.equal(run.state(id(1)), undefined, "excluded");
    assert.deepEqual(kinds(run, [id(0), id(2)]), ["passed", "failed"]);
    // Nothing chosen (the "run all" button): every file.
    await profile.runHandler(new TestRunRequest(), newToken());
    assert.deepEqual(runRequests()[2]?.arguments, [SUITE.toString()]);
  });

  it("leaves out a whole file the run excludes", async () => {
    script.symbols.set(OTHER.toString(), script.symbols.get(SUITE.toString()) ?? []);
    fake.state.files = [SUITE, OTHER];
    await fake.controller().resolveHandler?.(undefined);
    await fake.controller().profiles[0]?.runHandler(new TestRunRequest(undefined, [item(OTHER.toString())]), newToken());
    assert.deepEqual(runRequests().map((r) => r.arguments), [[SUITE.toString()]]);
  });

  it("gives each check its duration, from a millisecond up", async () => {
    const summaries = suiteSummaries() as unknown as { checks: Record<string, unknown>[] }[];
    summaries[2]!.checks[0]!["duration_ms"] = 12;
    summaries[2]!.checks[1]!["duration_ms"] = 0.4; // "0.0ms" would say nothing
    script.results.set(SUITE.toString(), summaries as never);
    await ext.runner.runScenario(SUITE.toString(), 2);
    const duration = (event: TestEvent | undefined): unknown => (event !== undefined && "duration" in event ? event.duration : "none");
    assert.equal(duration(lastRun().state(id(2, "0.0"))), 12);
    assert.equal(duration(lastRun().state(id(2, "1.0"))), undefined);
  });

  it("errors a scenario that failed outside its checks with its summary, at its line", async () => {
    const summaries = suiteSummaries();
    summaries[1] = { ...withoutAnswer(summaries[1]!), status: "error", summary: "opening hours: error — the scenario timed out", checks: [], errors: [] };
    script.results.set(SUITE.toString(), summaries);
    await ext.runner.runScenario(SUITE.toString(), 1);
    assert.deepEqual(messagesOf(lastRun().state(id(1))), [{ message: "opening hours: error — the scenario timed out", line: 12 }]);
  });

  it("records each scenario as its checkspec/scenarioFinished notification arrives", async () => {
    const seen: (string | undefined)[][] = [];
    script.notify = false;
    script.during = async (request) => {
      const notify = (params: unknown): void => request.client.notify("checkspec/scenarioFinished", params);
      // Another file's result, and a malformed one, are not this run's.
      notify({ ...suiteSummaries()[1], uri: OTHER.toString(), status: "error" });
      notify({ uri: SUITE.toString(), index: 1 });
      seen.push(kinds(lastRun(), [id(0), id(1), id(2)]));
      for (const summary of suiteSummaries()) {
        notify({ uri: SUITE.toString(), ...summary });
        seen.push(kinds(lastRun(), [id(0), id(1), id(2)]));
      }
    };
    // The final answer holds no scenario: every state below came from the notifications.
    script.answer = () => ({ uri: SUITE.toString(), status: "fail", scenarios: [] });
    await ext.runner.runFile(SUITE);
    assert.deepEqual(seen, [
      ["started", "started", "started"],
      ["passed", "started", "started"],
      ["passed", "passed", "started"],
      ["passed", "passed", "failed"],
    ]);
    // A result arriving after the run ended is not recorded into it.
    server.client.notify("checkspec/scenarioFinished", { uri: SUITE.toString(), ...suiteSummaries()[2], status: "pass" });
    assert.deepEqual(lastRun().afterEnd, []);
    assert.equal(lastRun().state(id(2))?.kind, "failed");
  });

  it("records live results of two runs at once, each in its own run", async () => {
    script.symbols.set(OTHER.toString(), script.symbols.get(SUITE.toString()) ?? []);
    script.results.set(OTHER.toString(), suiteSummaries());
    script.notify = false;
    let release: () => void = () => undefined;
    const otherDone = new Promise<void>((resolve) => (release = resolve));
    const live: Record<string, (string | undefined)[]> = {};
    script.during = async (request) => {
      const uri = (request.params as { arguments: string[] }).arguments[0] ?? "";
      if (uri === SUITE.toString()) await otherDone; // the other run starts and ends meanwhile
      const run = fake.controller().runs.find((r) => r.request.include?.[0]?.uri?.toString() === uri);
      for (const summary of suiteSummaries()) request.client.notify("checkspec/scenarioFinished", { uri, ...summary });
      live[uri] = run === undefined ? [] : [0, 1, 2].map((index) => run.state(`${uri}#${index}`)?.kind);
    };
    // Both answers hold no scenario: what is recorded came live.
    script.answer = (request) => ({ uri: (request.params as { arguments: string[] }).arguments[0], status: "pass", scenarios: [] });
    const first = ext.runner.runFile(SUITE);
    await eventually(() => runRequests().length === 1, "the first run sent");
    await ext.runner.runFile(OTHER);
    release();
    await first;
    assert.deepEqual(live, {
      [OTHER.toString()]: ["passed", "passed", "failed"],
      [SUITE.toString()]: ["passed", "passed", "failed"],
    });
  });

  it("maps each status: pass, fail, error, skip and cancelled", async () => {
    const [a, b, c] = suiteSummaries();
    const erroredCheck = { step: 0, index: 0, kind: "regex_matching", line: 17, status: "error", message: "bad pattern" };
    const results = [
      { ...a, status: "skip", summary: "skipped", checks: (a!["checks"] as object[]).map((check) => ({ ...check, status: "skip" })) },
      {
        ...withoutAnswer(b!),
        status: "error",
        summary: "opening hours: error",
        checks: [erroredCheck],
        errors: [{ step: 0, line: 14, message: "the target raised" }],
      },
      // A cancelled scenario's finished checks are not shown as passed.
      { ...c, status: "cancelled", summary: "cancelled" },
    ];
    script.results.set(SUITE.toString(), results as never);
    await ext.runner.runFile(SUITE);
    const run = lastRun();
    assert.deepEqual(kinds(run, [id(0), id(1), id(2)]), ["skipped", "errored", "skipped"]);
    assert.deepEqual(messagesOf(run.state(id(1))), [
      { message: "regex_matching errored: bad pattern", line: 17 },
      { message: "step 1 errored: the target raised", line: 14 },
    ]);
    assert.deepEqual(kinds(run, [id(1, "0.0")]), ["errored"]);
    assert.deepEqual(messagesOf(run.state(id(1, "0.0"))), [{ message: "regex_matching errored: bad pattern", line: 17 }]);
    // The checks of scenarios that did not run them.
    assert.deepEqual(kinds(run, [id(0, "0.0"), id(2, "0.0"), id(2, "1.0")]), ["skipped", "skipped", "skipped"]);
  });

  it("shows a failed comparison as a diff of expected and actual at the check's line, with the agent's answer", async () => {
    const summaries = suiteSummaries();
    const failing = summaries[2] as unknown as { checks: Record<string, unknown>[]; answer?: string };
    failing.checks[1] = { ...failing.checks[1], kind: "equals", message: "not equal", expected: "5 business days", actual: "3 days" };
    failing.answer = "It takes 3 days.";
    script.results.set(SUITE.toString(), summaries);
    await ext.runner.runScenario(SUITE.toString(), 2);
    const run = lastRun();
    const expected = {
      message: "equals failed: not equal\n\nThe agent answered:\nIt takes 3 days.",
      expectedOutput: "5 business days",
      actualOutput: "3 days",
      line: 30,
    };
    assert.deepEqual(messagesOf(run.state(id(2))), [expected], "on the scenario");
    assert.deepEqual(messagesOf(run.state(id(2, "1.0"))), [expected], "on the check itself");
    const event = run.state(id(2, "1.0"));
    assert.equal(event?.kind === "failed" ? event.messages[0]?.location?.uri.toString() : "", SUITE.toString());
  });

  it("fails a scenario without a diff when the check compared nothing, at the check's line", async () => {
    const summaries = suiteSummaries();
    const failing = withoutAnswer(summaries[2]!) as typeof summaries[2] & { checks: Record<string, unknown>[] };
    failing.checks = failing.checks.map(({ expected: _e, actual: _a, ...check }) => check);
    summaries[2] = failing;
    script.results.set(SUITE.toString(), summaries);
    await ext.runner.runScenario(SUITE.toString(), 2);
    assert.deepEqual(messagesOf(lastRun().state(id(2))), [
      { message: "string_matching failed: The answer does not contain the keyword 'business days'", line: 30 },
    ]);
  });

  it("errors every chosen scenario when nothing could run, with the server's reason", async () => {
    script.notify = false;
    script.answer = () => ({ uri: SUITE.toString(), error: "no such scenario in this document", scenarios: [] });
    await ext.runner.runFile(SUITE);
    const run = lastRun();
    assert.deepEqual(kinds(run, [id(0), id(1), id(2)]), ["errored", "errored", "errored"]);
    assert.deepEqual(messagesOf(run.state(id(0))), [{ message: "no such scenario in this document" }]);
  });

  it("skips the scenarios the server did not answer for", async () => {
    script.notify = false;
    script.answer = () => ({ uri: SUITE.toString(), status: "pass", scenarios: [suiteSummaries()[0]] });
    await ext.runner.runFile(SUITE);
    const run = lastRun();
    assert.deepEqual(kinds(run, [id(0), id(1), id(2), id(2, "1.0")]), ["passed", "skipped", "skipped", "skipped"]);
  });

  it("appends the results and what the scenario printed to the run's output", async () => {
    const summaries = suiteSummaries();
    summaries[0]!["output"] = "debug: hello\nbye\n";
    summaries[0]!["duration_ms"] = 5;
    script.results.set(SUITE.toString(), summaries);
    await ext.runner.runFile(SUITE);
    const output = lastRun().output;
    const printed = output.find((o) => o.text.includes("hello"));
    assert.ok(printed, "the scenario's own output");
    assert.equal(printed.text, "debug: hello\r\nbye\r\n");
    assert.equal(printed.test?.id, id(0));
    assert.deepEqual(printed.location?.range.start, new Position(5, 0));
    const summary = output.at(-1)?.text ?? "";
    assert.ok(summary.startsWith("── examples/support.suite.yaml ──\r\n"), summary);
    assert.match(summary, /✓ shipping is EU only: pass — 1 check passed \(5 ms\)\r\n/);
    assert.match(summary, /✗ step 2 · string_matching \(line 31\): The answer does not contain the keyword 'business days'/);
  });

  it("cancels the server request when the run is stopped in the Test Explorer", async () => {
    let cancelled: boolean | undefined;
    script.during = async (request) => {
      lastRun().source.cancel(); // the Test Explorer's stop button
      await settle();
      cancelled = request.token?.isCancellationRequested;
    };
    script.answer = (request) => ({ uri: (request.params as { arguments: string[] }).arguments[0], status: "cancelled", cancelled: true, scenarios: [] });
    script.notify = false;
    await ext.runner.runFile(SUITE);
    assert.equal(cancelled, true);
    assert.deepEqual(kinds(lastRun(), [id(0), id(1)]), ["skipped", "skipped"]);
  });

  it("cancels through the run profile's token, and runs no further file once cancelled", async () => {
    const symbols = script.symbols.get(SUITE.toString()) ?? [];
    script.symbols.set(OTHER.toString(), symbols);
    script.results.set(OTHER.toString(), suiteSummaries());
    fake.state.files = [SUITE, OTHER];
    await fake.controller().resolveHandler?.(undefined);
    const token = newSource();
    script.during = async () => {
      token.cancel();
      await settle();
    };
    await fake.controller().profiles[0]?.runHandler(new TestRunRequest(), token.token);
    const [request] = server.sent("workspace/executeCommand");
    assert.equal(request?.token?.isCancellationRequested, true);
    assert.equal(runRequests().length, 1, "the second file was not run");
    assert.ok(lastRun().ended);
  });

  it("runs several files under one progress notification, counting the files", async () => {
    script.symbols.set(OTHER.toString(), script.symbols.get(SUITE.toString()) ?? []);
    script.results.set(OTHER.toString(), suiteSummaries());
    fake.state.files = [SUITE, OTHER];
    await fake.controller().resolveHandler?.(undefined);
    script.during = (request) => {
      const { workDoneToken } = request.params as { workDoneToken: string };
      request.client.progress(workDoneToken, { kind: "report", message: "1/3", percentage: 33 });
    };
    await fake.controller().profiles[0]?.runHandler(new TestRunRequest(), newToken());
    assert.deepEqual(runRequests().map((r) => r.arguments), [[SUITE.toString()], [OTHER.toString()]]);
    assert.equal(fake.state.progress.length, 1);
    assert.equal(fake.state.progress[0]?.options.title, "checkspec: running 2 files");
    // The bar moves per file; the server's own percentage of one file does not move it.
    assert.deepEqual(fake.state.progress[0]?.reports, [
      { increment: 0, message: "file 1/2" },
      { message: "file 1/2: 1/3" },
      { increment: 50, message: "file 2/2" },
      { message: "file 2/2: 1/3" },
    ]);
    assert.equal(ext.statusBar.text, "$(error) checkspec: 6 scenarios — 2 fail, 4 pass");
  });
});

function newSource(): CancellationTokenSource {
  return new CancellationTokenSource();
}

function newToken(): CancellationToken {
  return newSource().token;
}

/** A summary without the agent's answer (test messages would quote it). */
function withoutAnswer<T extends Record<string, unknown>>(summary: T): T {
  const { answer: _answer, ...rest } = summary;
  return rest as T;
}
