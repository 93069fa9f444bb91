// The pure parts of "Generate Scenarios…": the request from the picks, the count box, the
// answers read defensively, a free output name.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { countProblem, freeOutput, generateRequest, namedItems, parseGenerateAnswer } from "../src/generateRequest";

describe("generate requests", () => {
  it("makes one request per kind of source", () => {
    assert.deepEqual(generateRequest({ kind: "preset", name: "impatient_customer" }, "/ws/a.dataset.yaml", 10), {
      output: "/ws/a.dataset.yaml",
      count: 10,
      preset: "impatient_customer",
    });
    assert.deepEqual(generateRequest({ kind: "docs", paths: ["/ws/kb"], topics: [] }, "/ws/kb.dataset.yaml", 3), {
      output: "/ws/kb.dataset.yaml",
      count: 3,
      docs: ["/ws/kb"],
    });
    assert.deepEqual(generateRequest({ kind: "docs", paths: ["/ws/kb"], topics: ["shipping"] }, "/o.dataset.yaml", 3).topics, ["shipping"]);
    assert.deepEqual(generateRequest({ kind: "like", path: "/ws/faq.dataset.yaml" }, "/ws/faq.dataset.yaml", 5, true), {
      output: "/ws/faq.dataset.yaml",
      count: 5,
      append: true,
      like: "/ws/faq.dataset.yaml",
    });
    assert.equal(generateRequest({ kind: "persona", text: "A pirate" }, "/p.dataset.yaml", 1).persona, "A pirate");
  });

  it("takes counts from 1 to 500 only", () => {
    assert.equal(countProblem("10"), undefined);
    assert.equal(countProblem(" 500 "), undefined);
    assert.equal(countProblem("0"), "between 1 and 500");
    assert.equal(countProblem("501"), "between 1 and 500");
    assert.equal(countProblem("2.5"), "a whole number of scenarios");
    assert.equal(countProblem("ten"), "a whole number of scenarios");
  });

  it("reads the server's answers defensively", () => {
    assert.deepEqual(parseGenerateAnswer({ status: "written", output: "file:///ws/a.dataset.yaml", count: 3, summary: "3 of 3" }), {
      status: "written",
      output: "file:///ws/a.dataset.yaml",
      count: 3,
      summary: "3 of 3",
    });
    assert.deepEqual(parseGenerateAnswer({ status: "cancelled" }), { status: "cancelled" });
    assert.deepEqual(parseGenerateAnswer(null), { status: "error", error: "the server gave no answer" });
    assert.deepEqual(parseGenerateAnswer({ status: "weird" }), { status: "error", error: "the generation failed" });
    assert.deepEqual(namedItems({ topics: [{ name: "shipping", chunks: 4 }, { nope: 1 }] }, "topics"), [{ name: "shipping", detail: "4 chunks" }]);
    assert.equal(namedItems({ error: "no such folder" }, "topics"), "no such folder");
    assert.equal(namedItems(42, "presets"), "the server gave no answer");
  });

  it("finds an output name not taken yet", () => {
    const taken = new Set(["/ws/kb.dataset.yaml", "/ws/kb-2.dataset.yaml"]);
    assert.equal(freeOutput("/ws", "kb", (p) => taken.has(p)), "/ws/kb-3.dataset.yaml");
    assert.equal(freeOutput("/ws", "my docs!", () => false), "/ws/my-docs.dataset.yaml");
    assert.equal(freeOutput("/ws", "***", () => false), "/ws/generated.dataset.yaml");
  });
});
