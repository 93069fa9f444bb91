import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { errorHtml, parseCompareAnswer } from "../src/compareRequest";

describe("the compare view's answer", () => {
  it("takes the server's page and names the two runs", () => {
    const answer = parseCompareAnswer({ html: "<!doctype html><html></html>", base: "r1", head: "r2" });
    assert.deepEqual(answer, { html: "<!doctype html><html></html>", title: "Compare r1 → r2" });
  });

  it("turns anything else into an error, escaped in its page", () => {
    assert.deepEqual(parseCompareAnswer({ error: "fewer than two runs" }), { error: "fewer than two runs" });
    assert.deepEqual(parseCompareAnswer({ html: "<script>alert(1)</script>" }), { error: "the server gave no comparison" });
    assert.deepEqual(parseCompareAnswer(null), { error: "the server gave no comparison" });
    const page = errorHtml("<img src=x onerror=alert(1)>");
    assert.ok(!page.includes("<img"));
    assert.ok(page.includes("img src=x"));
    assert.ok(!page.includes("<script"));
  });
});
