import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { scenarioAt, scenariosOf, type SymbolLike } from "../src/scenarios";
import { fixture } from "./helpers";

// The server's outline of examples/support.suite.yaml: three scenarios at lines 5, 12, 19.
const suite = scenariosOf(fixture("symbols.suite.json") as SymbolLike[]);

describe("scenarios", () => {
  it("lists the top-level symbols as scenarios, in index order", () => {
    assert.deepEqual(
      suite.map((s) => [s.index, s.name, s.runnable]),
      [
        [0, "shipping is EU only", true],
        [1, "opening hours", true],
        [2, "follow-up keeps context (intentionally failing)", true],
      ],
    );
    assert.deepEqual(suite[1]?.head, { start: { line: 12, character: 10 }, end: { line: 12, character: 23 } });
  });

  it("finds the scenario at the cursor", () => {
    assert.equal(scenarioAt(suite, { line: 8, character: 4 })?.index, 0);
    assert.equal(scenarioAt(suite, { line: 25, character: 0 })?.index, 2);
  });

  it("gives a shared line to the scenario that starts on it", () => {
    // Scenario 0 ends at 12:2, scenario 1 starts at 12:4 (`  - name: opening hours`).
    assert.equal(scenarioAt(suite, { line: 12, character: 0 })?.index, 1);
  });

  it("is undefined above the first of several (the caller asks)", () => {
    assert.equal(scenarioAt(suite, { line: 0, character: 0 }), undefined);
  });

  it("takes the only scenario of a file wherever the cursor is", () => {
    const [only] = suite;
    assert.ok(only);
    assert.equal(scenarioAt([only], { line: 40, character: 0 })?.index, 0);
  });

  it("marks scenarios the server could not build", () => {
    const [bad] = scenariosOf([{ name: "scenario 1", detail: "not runnable", range: suite[0]!.range }]);
    assert.equal(bad?.runnable, false);
    assert.deepEqual(bad?.head, suite[0]!.range);
  });

  it("lists each scenario's checks with their step and index, as results number them", () => {
    const followUp = suite[2]!;
    assert.deepEqual(
      followUp.checks.map((c) => [c.step, c.index, c.kind]),
      [
        [0, 0, "string_matching"],
        [1, 0, "string_matching"],
      ],
    );
    assert.deepEqual(suite[0]!.checks[0]?.head, { start: { line: 10, character: 18 }, end: { line: 10, character: 33 } });
  });
});
