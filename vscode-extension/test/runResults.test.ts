import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  checkLine,
  combine,
  messageWithAnswer,
  headline,
  parseRunResult,
  parseScenarioFinished,
  problems,
  resultLines,
  severity,
  statusBarText,
  worst,
} from "../src/runResults";
import { fixture } from "./helpers";

// Fixtures are real answers of `checkspec lsp` on examples/ (see test/fixtures/README.md).

describe("a run's live results, diffs and cancellation", () => {
  const finished = {
    uri: "file:///w/a.suite.yaml",
    scenario: "refund",
    index: 2,
    line: 7,
    status: "fail",
    summary: "refund: fail — 1 failed of 1 check",
    output: "hello from the agent\n",
    checks: [
      { step: 0, index: 0, kind: "equals", line: 12, status: "fail", message: "Expected value equal to 'ok'", expected: "ok", actual: "error" },
    ],
    errors: [],
  };

  it("reads a checkspec/scenarioFinished notification", () => {
    const parsed = parseScenarioFinished(finished);
    assert.equal(parsed?.uri, "file:///w/a.suite.yaml");
    assert.equal(parsed?.summary.index, 2);
    assert.equal(parsed?.summary.output, "hello from the agent\n");
    assert.equal(parseScenarioFinished({ scenario: "no uri" }), undefined);
    assert.equal(parseScenarioFinished("garbage"), undefined);
  });

  it("keeps expected and actual values for a diff, only when both are text", () => {
    const [problem] = problems(parseScenarioFinished(finished)!.summary);
    assert.deepEqual(problem, { line: 12, message: "equals failed: Expected value equal to 'ok'", expected: "ok", actual: "error" });
    const half = { ...finished, checks: [{ ...finished.checks[0], expected: "ok", actual: 3 }] };
    assert.equal(problems(parseScenarioFinished(half)!.summary)[0]?.expected, undefined);
  });

  it("reads a cancelled run: finished scenarios keep their status, the rest say cancelled", () => {
    const report = parseRunResult({
      status: "cancelled",
      cancelled: true,
      scenarios: [
        { ...finished, status: "pass", checks: [] },
        { ...finished, index: 3, status: "cancelled", summary: "refund: cancelled", checks: [] },
      ],
    });
    assert.equal(report.cancelled, true);
    assert.deepEqual(report.scenarios.map((s) => s.status), ["pass", "cancelled"]);
    assert.equal(report.status, "cancelled");
    assert.equal(severity(report), "info");
  });
});

describe("parseRunResult", () => {
  it("reads a file run: every scenario with its checks", () => {
    const report = parseRunResult(fixture("runFile.suite.json"));
    assert.equal(report.status, "fail");
    assert.equal(report.error, undefined);
    assert.deepEqual(
      report.scenarios.map((s) => [s.index, s.status, s.line]),
      [
        [0, "pass", 5],
        [1, "pass", 12],
        [2, "fail", 19],
      ],
    );
    const failed = report.scenarios[2]?.checks[1];
    assert.deepEqual(failed, {
      step: 1,
      index: 0,
      kind: "string_matching",
      line: 30,
      status: "fail",
      message: "The answer does not contain the keyword 'business days'",
      expected: "business days",
      actual: "Sorry, I can only help with refunds, shipping and opening hours.",
      durationMs: 0,
    });
  });

  it("reads a one-scenario run as a report of one", () => {
    const report = parseRunResult(fixture("runScenario.fail.json"));
    assert.equal(report.status, "fail");
    assert.equal(report.scenarios.length, 1);
    assert.equal(report.scenarios[0]?.scenario, "follow-up keeps context (intentionally failing)");
    assert.equal(typeof report.scenarios[0]?.durationMs, "number");
  });

  it("turns a refusal into an error report", () => {
    for (const name of ["runScenario.noSuch.json", "runScenario.badArgs.json"]) {
      const report = parseRunResult(fixture(name));
      assert.equal(report.status, "error", name);
      assert.deepEqual(report.scenarios, []);
      assert.ok(report.error);
    }
    assert.equal(parseRunResult(null).status, "error"); // the request failed: handled as no result
    assert.match(parseRunResult(undefined).error ?? "", /no result/);
  });

  it("keeps an invalid scenario (no checks run) as invalid", () => {
    const report = parseRunResult(fixture("runScenario.invalid.json"));
    assert.equal(report.status, "invalid");
    assert.equal(report.scenarios[0]?.replayed, false);
    assert.equal(report.scenarios[0]?.durationMs, undefined);
  });

  it("survives malformed JSON field by field", () => {
    const report = parseRunResult({
      scenarios: [{ scenario: "x", status: "weird", checks: [{ line: -1, status: "pass" }, 7], errors: "no" }, "junk"],
    });
    assert.equal(report.scenarios.length, 1);
    const [x] = report.scenarios;
    assert.equal(x?.status, "error");
    assert.equal(x?.summary, "x: error");
    assert.deepEqual(x?.checks, [{ step: 0, index: 0, kind: "", line: 0, status: "pass", message: "" }]);
    assert.deepEqual(x?.errors, []);
  });
});

describe("texts", () => {
  it("shows one scenario's own summary", () => {
    const report = parseRunResult(fixture("runScenario.fail.json"));
    assert.equal(
      statusBarText(report),
      "$(error) follow-up keeps context (intentionally failing): fail — 1 failed of 2 checks",
    );
    assert.equal(severity(report), "warning");
  });

  it("counts the scenarios of a file run", () => {
    const report = parseRunResult(fixture("runFile.suite.json"));
    assert.equal(headline(report), "checkspec: 3 scenarios — 1 fail, 2 pass");
    assert.equal(statusBarText(report).startsWith("$(error) "), true);
  });

  it("says why nothing ran", () => {
    const report = parseRunResult(fixture("runScenario.noSuch.json"));
    assert.equal(headline(report), "checkspec: no such scenario in this document");
    assert.equal(severity(report), "error");
  });

  it("lists every check, 1-based lines, marks by status", () => {
    const lines = resultLines(parseRunResult(fixture("runScenario.fail.json")));
    assert.equal(lines.length, 3);
    assert.match(lines[0] ?? "", /^✗ follow-up keeps context \(intentionally failing\): fail — 1 failed of 2 checks \(\d+ ms\)$/);
    assert.equal(lines[1], "    ✓ step 1 · string_matching (line 26): The answer contains the keyword 'EU'.");
    assert.equal(
      lines[2],
      "    ✗ step 2 · string_matching (line 31): The answer does not contain the keyword 'business days'",
    );
  });

  it("tells an LLM check without a model as an error with its message", () => {
    const report = parseRunResult(fixture("runScenario.errorNoModel.json"));
    assert.equal(report.status, "error");
    assert.equal(severity(report), "error");
    const [problem] = problems(report.scenarios[0]!);
    assert.equal(problem?.line, 10);
    assert.match(problem?.message ?? "", /^conformity errored: No LLM model configured/);
  });

  it("keeps a check line to the first line of a long message", () => {
    const line = checkLine({ step: 0, index: 0, kind: "fn", line: 3, status: "error", message: "Traceback\n  File x" });
    assert.equal(line, "! step 1 · fn (line 4): Traceback");
  });

  it("puts failures and step errors at their lines", () => {
    const [scenario] = parseRunResult({
      scenario: "s",
      status: "error",
      checks: [
        { step: 0, index: 0, kind: "equals", line: 4, status: "fail", message: "" },
        { step: 0, index: 1, kind: "equals", line: 6, status: "pass", message: "ok" },
      ],
      errors: [{ step: 1, line: 9, message: "ConnectionError: refused" }],
    }).scenarios;
    assert.deepEqual(problems(scenario!), [
      { line: 4, message: "equals failed: no message" },
      { line: 9, message: "step 2 errored: ConnectionError: refused" },
    ]);
  });

  it("orders statuses worst first, as the server does", () => {
    assert.equal(worst(["pass", "skip"]), "skip");
    assert.equal(worst(["pass", "invalid", "fail"]), "fail");
    assert.equal(worst(["fail", "error"]), "error");
    assert.equal(worst([]), "pass");
  });
});

describe("one summary per run", () => {
  const file = (status: "pass" | "fail", n: number) =>
    parseRunResult({ status, scenarios: Array.from({ length: n }, (_, i) => ({ scenario: `s${i}`, index: i, status, summary: `s${i}: ${status}` })) });

  it("combines the reports of several files", () => {
    const report = combine([file("pass", 2), file("fail", 1)]);
    assert.equal(report.status, "fail");
    assert.equal(headline(report), "checkspec: 3 scenarios — 1 fail, 2 pass");
  });

  it("adds the agent's answer to a failure message, shortened", () => {
    assert.equal(messageWithAnswer("equals failed", "hello"), "equals failed\n\nThe agent answered:\nhello");
    assert.equal(messageWithAnswer("equals failed", undefined), "equals failed");
    assert.equal(messageWithAnswer("x", "a".repeat(50), 10).endsWith("aaaaaaaaa…"), true);
    const parsed = parseScenarioFinished({ uri: "u", scenario: "s", answer: "hi", checks: [{ kind: "equals", status: "pass", duration_ms: 2.5 }] });
    assert.equal(parsed?.summary.answer, "hi");
    assert.equal(parsed?.summary.checks[0]?.durationMs, 2.5);
  });
});
