import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { curateTarget, fileItems, parseCurateAnswer, recordedMessage, staleDocuments, tagItems, typed } from "../src/curateRequest";

describe("the curation pickers", () => {
  it("offer the workspace's tags, the most used first, then a new one", () => {
    assert.deepEqual(tagItems({ fr: 1, billing: 3, "needs review": 1, bad: "x" }), [
      { label: "billing", description: "3 scenarios", value: "billing" },
      { label: "fr", description: "1 scenario", value: "fr" },
      { label: "needs review", description: "1 scenario", value: "needs review" },
      { label: "$(add) New tag…" },
    ]);
    assert.deepEqual(tagItems(null), [{ label: "$(add) New tag…" }]);
  });

  it("offer the suites and datasets other than the scenarios' own file", () => {
    const items = fileItems(["/w/b.suite.yaml", "/w/a.dataset.jsonl", "/w/x.scenario.yaml", "/w/b.suite.yaml.bak", "/w/c.suite.yaml"], "/w/c.suite.yaml");
    assert.deepEqual(items.map((i) => i.value), ["/w/a.dataset.jsonl", "/w/b.suite.yaml", undefined]);
  });

  it("read the server's answer and the code action's arguments", () => {
    assert.deepEqual(parseCurateAnswer({ error: "no such scenario" }), { ok: false, message: "no such scenario" });
    assert.deepEqual(parseCurateAnswer({ changes: {} }), { ok: true, edit: { changes: {} } });
    assert.equal(parseCurateAnswer({}).ok, false);
    assert.equal(parseCurateAnswer(undefined).ok, false);
    assert.deepEqual(curateTarget("file:///a", [0, 2]), { uri: "file:///a", indexes: [0, 2] });
    assert.equal(curateTarget("file:///a", [-1]), undefined);
    assert.equal(curateTarget(1, [0]), undefined);
    assert.equal(typed("  "), undefined);
    assert.equal(typed(" a "), "a");
  });

  it("find the open documents a versioned edit no longer fits", () => {
    const edit = {
      documentChanges: [
        { kind: "create", uri: "file:///new" },
        { textDocument: { uri: "file:///typed", version: 3 }, edits: [] },
        { textDocument: { uri: "file:///same", version: 5 }, edits: [] },
        { textDocument: { uri: "file:///closed", version: null }, edits: [] },
      ],
    };
    const open: Record<string, number> = { "file:///typed": 4, "file:///same": 5 };
    assert.deepEqual(staleDocuments(edit, (uri) => open[uri]), ["file:///typed"]);
    assert.deepEqual(staleDocuments({ changes: {} }, () => 1), []);
    assert.deepEqual(staleDocuments(null, () => 1), []);
  });

  it("tell what a recording did", () => {
    assert.deepEqual(recordedMessage({ error: "no target" }), { ok: false, message: "no target" });
    assert.deepEqual(recordedMessage({ recorded: 1, drifts: [], skipped: [], applied: true }), {
      ok: true,
      message: "recorded the outputs of 1 scenario",
    });
    assert.deepEqual(recordedMessage({ recorded: 2, drifts: [{}], skipped: ["x: did not finish"] }), {
      ok: true,
      message: "recorded the outputs of 2 scenarios; 1 drifted from the recorded ones; not recorded: x: did not finish",
    });
    assert.equal(recordedMessage(null).ok, false);
  });
});
