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
