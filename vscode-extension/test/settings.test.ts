import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { initializationOptions, readerOf, serverArgs, serverOptions, serverPath } from "../src/settings";

describe("settings", () => {
  it("sends only the keys the server reads, camelCase, under `checkspec`", () => {
    const section = {
      model: "openai/gpt-4o-mini",
      embeddingModel: "openai/text-embedding-3-small",
      apiBase: "http://localhost:11434",
      embeddingApiBase: "http://localhost:8081",
      target: "python:agent:answer",
      concurrency: 8,
      maxFileSize: 2_000_000,
      server: { path: "/x/checkspec", args: ["lsp"] },
      trace: { server: "verbose" },
    };
    assert.deepEqual(initializationOptions(readerOf(section)), {
      checkspec: {
        model: "openai/gpt-4o-mini",
        embeddingModel: "openai/text-embedding-3-small",
        apiBase: "http://localhost:11434",
        embeddingApiBase: "http://localhost:8081",
        target: "python:agent:answer",
        concurrency: 8,
        maxFileSize: 2_000_000,
      },
    });
  });

  it("leaves unset values out so checkspec.yaml and the environment still apply", () => {
    // What VS Code returns for the contributed defaults.
    const defaults = { model: "", embeddingModel: "", apiBase: "", embeddingApiBase: "", target: "", concurrency: null, maxFileSize: null };
    assert.deepEqual(serverOptions(readerOf(defaults)), {});
    assert.deepEqual(serverOptions(readerOf(undefined)), {});
  });

  it("sends a choice (diagnostics.scope) only when one of its values other than the default", () => {
    assert.deepEqual(serverOptions(readerOf({ diagnostics: { scope: "workspace" } })), {
      "diagnostics.scope": "workspace",
    });
    assert.deepEqual(serverOptions(readerOf({ diagnostics: { scope: "openFiles" } })), {});
    assert.deepEqual(serverOptions(readerOf({ diagnostics: { scope: "everything" } })), {});
  });

  it("trims text and drops values of the wrong type", () => {
    const section = { model: "  gpt  ", target: 42, concurrency: 0, maxFileSize: 1.5, apiBase: "   " };
    assert.deepEqual(serverOptions(readerOf(section)), { model: "gpt" });
    assert.deepEqual(serverOptions(readerOf({ concurrency: "4" })), {});
  });

  it("sends the run settings: worker count, timeouts in seconds and the worker interpreter", () => {
    const section = { jobs: 4, targetTimeout: 2.5, scenarioTimeout: 120, python: " .venv/bin/python " };
    assert.deepEqual(serverOptions(readerOf(section)), {
      jobs: 4,
      targetTimeout: 2.5,
      scenarioTimeout: 120,
      python: ".venv/bin/python",
    });
    const wrong = { jobs: 1.5, targetTimeout: -1, scenarioTimeout: Number.POSITIVE_INFINITY, python: 3 };
    assert.deepEqual(serverOptions(readerOf(wrong)), {});
  });

  it("checks numbers against the catalog's bounds: 0 jobs is one per CPU, 0 concurrency is not", () => {
    assert.deepEqual(serverOptions(readerOf({ jobs: 0, concurrency: 0 })), { jobs: 0 });
    assert.deepEqual(serverOptions(readerOf({ concurrency: 257, maxPromptSize: 5000 })), { maxPromptSize: 5000 });
  });

  it("reads the server command settings", () => {
    const read = readerOf({ server: { path: "/x/checkspec", args: ["lsp", 3, "--flag"] } });
    assert.equal(serverPath(read), "/x/checkspec");
    assert.deepEqual(serverArgs(read), ["lsp", "--flag"]);
    assert.deepEqual(serverArgs(readerOf({})), ["lsp"]);
    assert.deepEqual(serverArgs(readerOf({ server: { args: [] } })), []);
    assert.equal(serverPath(readerOf({ server: { path: null } })), "");
  });

  it("passes checkspec.runOnSave to the server (which runs on save), anything unknown left out", () => {
    assert.deepEqual(serverOptions(readerOf({ runOnSave: "file" })), { runOnSave: "file" });
    assert.deepEqual(serverOptions(readerOf({ runOnSave: "scenario" })), { runOnSave: "scenario" });
    assert.deepEqual(serverOptions(readerOf({ runOnSave: "off" })), {}, "the default: left out");
    assert.deepEqual(serverOptions(readerOf({ runOnSave: "always" })), {});
    assert.deepEqual(serverOptions(readerOf({})), {});
  });

  it("leaves checkspec.runOnSave out in an untrusted workspace (runs import its code)", () => {
    assert.deepEqual(serverOptions(readerOf({ runOnSave: "file" }), false), {});
    assert.deepEqual(initializationOptions(readerOf({ model: "m", runOnSave: "file" }), false), { checkspec: { model: "m" } });
  });
});
