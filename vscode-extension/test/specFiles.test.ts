import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isRunnableSpec, isSpecFile } from "../src/specFiles";

describe("specFiles", () => {
  it("knows spec files by name, as the engine does", () => {
    for (const name of ["a.scenario.yaml", "a.scenario.yml", "a.scenario.json", "x/b.suite.yaml", "c.dataset.jsonl", "C:\\w\\d.dataset.json"]) {
      assert.ok(isRunnableSpec(name), name);
      assert.ok(isSpecFile(name), name);
    }
    for (const name of ["scenario.yaml", "a.scenario.jsonl", "a.suite.jsonl", "a.yaml", "a.scenario.yaml.bak"]) {
      assert.ok(!isSpecFile(name), name);
    }
  });

  it("counts checkspec.yaml as a spec file without scenarios", () => {
    assert.ok(isSpecFile("/w/checkspec.yaml"));
    assert.ok(isSpecFile("/w/checkspec.yml"));
    assert.ok(!isRunnableSpec("/w/checkspec.yaml"));
    assert.ok(!isSpecFile("/w/my-checkspec.yaml"));
  });
});

describe("specFiles from the catalog", () => {
  it("follows the catalog's patterns, not a list of its own", async () => {
    const { CATALOG } = await import("../src/catalog");
    const config = CATALOG.fileKinds.find((kind) => kind.kind === "config");
    assert.deepEqual(config?.patterns, ["checkspec.yaml", "checkspec.yml"]);
    for (const kind of CATALOG.fileKinds) {
      for (const pattern of kind.patterns) {
        const name = pattern.replace("*", "x");
        assert.equal(isRunnableSpec(name), kind.runnable, name);
        assert.ok(isSpecFile(name), name);
      }
    }
  });
});
