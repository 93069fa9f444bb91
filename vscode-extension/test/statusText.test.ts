import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { statusText } from "../src/statusText";

describe("the server's language status", () => {
  it("shows the state, the version and which executable runs", () => {
    const info = { command: "/w/.venv/bin/checkspec lsp", source: "workspace", version: "0.1.0" };
    assert.deepEqual(statusText("running", info), {
      text: "$(check) checkspec 0.1.0",
      detail: "/w/.venv/bin/checkspec lsp — from the workspace's virtualenv",
    });
    assert.equal(statusText("starting", { ...info, version: undefined }).text, "$(sync~spin) checkspec starting");
  });

  it("says why it is not running", () => {
    const shown = statusText("failed", { command: "", source: "", version: undefined, problem: "checkspec was not found" });
    assert.deepEqual(shown, { text: "$(error) checkspec not running", detail: "checkspec was not found" });
  });

  it("says how many runs are going in the server", () => {
    const info = { command: "checkspec lsp", source: "path", version: "0.1.0" };
    assert.equal(statusText("running", { ...info, runs: 2 }).text, "$(check) checkspec 0.1.0 · 2 runs");
    assert.equal(statusText("running", { ...info, runs: 1 }).text, "$(check) checkspec 0.1.0 · 1 run");
    assert.equal(statusText("running", { ...info, runs: 0 }).text, "$(check) checkspec 0.1.0");
    assert.equal(statusText("running", { ...info, runs: 2 }).detail, "checkspec lsp — from PATH");
  });
});
