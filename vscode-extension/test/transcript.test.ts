import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { escapeHtml, parseTranscript, transcriptHtml } from "../src/transcript";

const answer = {
  uri: "file:///w/a.suite.yaml",
  scenario: "scores <b>well</b>",
  index: 0,
  status: "fail",
  summary: "scores well: fail — 1 failed of 2 checks",
  duration_ms: 12,
  replayed: true,
  turns: [{ step: 0, inputs: "How good is it?", outputs: '{"answer": "<img src=x onerror=alert(1)>"}', metadata: "" }],
  checks: [
    { step: 0, index: 0, kind: "string_matching", status: "pass", message: "found", duration_ms: 0.2, details: {} },
    {
      step: 0,
      index: 1,
      kind: "llm_judge",
      status: "fail",
      message: "The answer is rude",
      duration_ms: 1400,
      details: { reason: "It says <script>alert(1)</script>", model: "m" },
    },
  ],
  errors: [],
  output: "printed\n",
};

describe("the transcript view", () => {
  const html = transcriptHtml(parseTranscript(answer), "n0nce", "vscode-webview://x");

  it("shows the conversation, each verdict with its reason and duration", () => {
    assert.match(html, /How good is it\?/);
    assert.match(html, /<code>llm_judge<\/code> <span class="status">fail<\/span> <span class="took">1\.4 s<\/span>/);
    assert.match(html, /<strong>reason<\/strong> It says &#60;script&#62;/);
    assert.match(html, /&lt;1 ms|&#60;1 ms/);
    assert.match(html, /Step 1/);
    assert.match(html, /printed/);
  });

  it("escapes everything that came from the run", () => {
    assert.doesNotMatch(html, /<img/);
    assert.doesNotMatch(html, /<script>/);
    assert.doesNotMatch(html, /<b>well/);
    assert.equal(escapeHtml(`<a href="x">'&'</a>`), "&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;");
  });

  it("allows no script and only its own stylesheet", () => {
    const csp = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1] ?? "";
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'none'/);
    assert.match(csp, /style-src vscode-webview:\/\/x 'nonce-n0nce'/);
    assert.match(html, /<style nonce="n0nce">/);
    assert.doesNotMatch(html, /<script/);
  });

  it("says why there is nothing to show", () => {
    const empty = transcriptHtml(parseTranscript({ error: "this scenario has not run since it changed" }), "n", "c");
    assert.match(empty, /has not run since it changed/);
    assert.match(transcriptHtml(parseTranscript("garbage"), "n", "c"), /no transcript/);
  });
});

describe("the transcript view's previous verdict", () => {
  it("says when the verdict differs from the run recorded before", () => {
    const html = transcriptHtml(parseTranscript({ ...answer, previous: { status: "pass", run: "r<1>" } }), "n", "vscode-webview:");
    assert.match(html, /previously ✓ pass \(run r&#60;1&#62;\)/);
  });

  it("says nothing when it is the same", () => {
    const html = transcriptHtml(parseTranscript({ ...answer, previous: { status: "fail", run: "r1" } }), "n", "vscode-webview:");
    assert.doesNotMatch(html, /previously/);
  });
});
