// "checkspec: Generate Scenarios…" against the fake VS Code: the picks become the server's
// checkspec.generate request, its work-done progress feeds the notification, Cancel
// cancels the request, and the new file opens.
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { Generation } from "../src/generate";
import { fake, resetAll, server, wire, type Wired } from "./fake/harness";
import { Uri } from "./fake/vscode";

let ext: Wired;

beforeEach(() => resetAll());
afterEach(() => ext.dispose());

type Command = { command: string; arguments: unknown[]; workDoneToken?: string };

function answerGenerate(answer: (params: Command) => unknown | Promise<unknown>): Command[] {
  const seen: Command[] = [];
  server.on("workspace/executeCommand", async (params: Command) => {
    seen.push(params);
    if (params.command === "checkspec.listPresets") return { presets: [{ name: "impatient_customer", description: "An impatient customer" }] };
    if (params.command === "checkspec.listTopics") return { topics: [{ name: "shipping", chunks: 4 }, { name: "returns", chunks: 2 }] };
    return answer(params);
  });
  return seen;
}

describe("generate scenarios", () => {
  it("asks for a preset and a count, sends the request, reports progress and opens the file", async () => {
    ext = wire();
    const seen = answerGenerate((params) => {
      server.client.progress(params.workDoneToken ?? "", { kind: "report", message: "2/4 scenarios", percentage: 50 });
      return { status: "written", output: "file:///ws/impatient_customer.dataset.yaml", count: 4, summary: "4 of 4 scenario(s) generated" };
    });
    const picks = ["From a persona preset", "impatient_customer"];
    fake.state.pick = (items) => items.find((item) => item.label === picks[0]) && items.find((item) => item.label === picks.shift());
    fake.state.inputs.push("4");
    const answer = await new Generation(ext.manager).run();
    assert.equal(answer?.status, "written");
    const generate = seen.find((c) => c.command === "checkspec.generate");
    assert.deepEqual(generate?.arguments, [{ output: "/ws/impatient_customer.dataset.yaml", count: 4, preset: "impatient_customer" }]);
    assert.deepEqual(fake.state.progress[0]?.reports, [{ message: "2/4 scenarios", increment: 50 }]);
    assert.deepEqual(fake.state.shown.map(String), ["file:///ws/impatient_customer.dataset.yaml"]);
    assert.equal(fake.messages("information")[0]?.message, "checkspec: 4 of 4 scenario(s) generated");
  });

  it("takes a knowledge base and some of its topics", async () => {
    ext = wire();
    const seen = answerGenerate(() => ({ status: "written", output: "file:///ws/kb.dataset.yaml", count: 2, summary: "2 of 2" }));
    fake.state.openDialog = [Uri.file("/ws/kb")];
    fake.state.pick = (items) => {
      const source = items.find((item) => item.label === "From a knowledge base (documents)");
      return source ?? items.find((item) => item.label === "No persona") ?? [items.find((item) => item.label === "returns")];
    };
    fake.state.inputs.push("0"); // refused by the box: the user gives up
    await new Generation(ext.manager).run();
    assert.equal(fake.state.inputBoxes[0]?.problem, "between 1 and 500");
    assert.equal(seen.find((c) => c.command === "checkspec.generate"), undefined, "nothing sent");
    fake.state.inputs.push("2");
    await new Generation(ext.manager).run();
    const generate = seen.find((c) => c.command === "checkspec.generate");
    assert.deepEqual(generate?.arguments, [{ output: "/ws/kb.dataset.yaml", count: 2, docs: ["/ws/kb"], topics: ["returns"] }]);
    assert.deepEqual(seen.filter((c) => c.command === "checkspec.listTopics")[0]?.arguments, [{ docs: ["/ws/kb"] }]);
    assert.deepEqual(fake.state.shown.map(String), ["file:///ws/kb.dataset.yaml"]);
  });

  it("asks the knowledge base's questions in a preset's voice or a persona in words", async () => {
    ext = wire();
    const seen = answerGenerate(() => ({ status: "written", output: "file:///ws/kb.dataset.yaml", count: 3, summary: "3 of 3" }));
    fake.state.openDialog = [Uri.file("/ws/kb")];
    let voice = "impatient_customer";
    fake.state.pick = (items) =>
      items.find((item) => item.label === "From a knowledge base (documents)") ??
      items.find((item) => item.label === voice) ??
      (items.some((item) => item.label === "returns") ? [] : undefined);
    fake.state.inputs.push("3");
    await new Generation(ext.manager).run();
    const sent = () => seen.filter((c) => c.command === "checkspec.generate").map((c) => c.arguments[0]);
    assert.deepEqual(sent(), [{ output: "/ws/kb.dataset.yaml", count: 3, docs: ["/ws/kb"], preset: "impatient_customer" }]);
    const offered = fake.state.quickPicks.find((p) => (p.items as { label: string }[]).some((i) => i.label === "No persona"));
    assert.deepEqual(
      (offered?.items as { label: string }[]).map((i) => i.label),
      ["No persona", "impatient_customer", "A persona, in words…"],
    );
    voice = "A persona, in words…";
    fake.state.inputs.push("A retired teacher who types slowly", "3");
    await new Generation(ext.manager).run();
    assert.deepEqual(sent()[1], { output: "/ws/kb.dataset.yaml", count: 3, docs: ["/ws/kb"], persona: "A retired teacher who types slowly" });
  });

  it("sends a code action's request as it is, and Cancel cancels it", async () => {
    ext = wire();
    const seen = answerGenerate(async () => {
      fake.state.progress[0]?.source.cancel();
      return { status: "cancelled", summary: "cancelled: nothing was written" };
    });
    const request = { like: "/ws/faq.dataset.yaml", output: "/ws/faq.dataset.yaml", append: true, count: 5 };
    const answer = await new Generation(ext.manager).run(request);
    assert.equal(answer?.status, "cancelled");
    assert.deepEqual(seen.map((c) => c.arguments), [[request]]);
    assert.equal(fake.state.quickPicks.length, 0, "no picks for a code action's request");
    const sent = server.sent("workspace/executeCommand")[0];
    assert.equal(sent?.token?.isCancellationRequested, true);
    assert.deepEqual(fake.state.shown, []);
  });

  it("shows the server's error and refuses an untrusted workspace", async () => {
    ext = wire();
    answerGenerate(() => ({ status: "error", error: "unknown preset 'x'" }));
    await new Generation(ext.manager).run({ preset: "x", output: "/ws/x.dataset.yaml", count: 1 });
    assert.equal(fake.messages("error")[0]?.message, "checkspec: unknown preset 'x'");
    fake.untrust();
    assert.equal(await new Generation(ext.manager).run({ preset: "x", output: "/ws/x.dataset.yaml", count: 1 }), undefined);
  });
});
