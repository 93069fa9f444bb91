// End-to-end smoke test in a real VS Code (code-server in headless Chromium). Not part of
// `make test`: it needs code-server and chromium, set up once as README.md says.
//
//   npm run e2e            (packages checkspec.vsix first)
//
// It installs the .vsix into a fresh profile, adds a tag to a scenario through the
// curation code action's quick pick and undoes it, records a scenario's outputs from its
// target with the "Record outputs from the target" code action and undoes it, opens examples/refund.scenario.yaml, checks
// the code lens, makes a typo and waits for the diagnostic (squiggle + Problems panel),
// hovers it, undoes it, runs the scenario from its lens and lists it in the Test Explorer,
// shows the results in place (inlay hints, the outcome lens), the transcript on hover and
// in the Show Last Run view, the compare page of the file's last two recorded runs (made
// before the editor starts) in the Compare with Previous Run view, runs the suite from the Test Explorer (scenarios expand into
// checks; the failure's peek shows expected/actual), and
// cancels a run that hangs from its progress notification. It works on a copy of the
// folder, with one more scenario whose target never answers.
// Screenshots go to $CHECKSPEC_E2E_OUT (default /tmp/checkspec-e2e). The spec file is edited
// in the editor only and never saved; the script checks that it is unchanged on disk.
//
// Environment: CODE_SERVER_DIR (default /tmp/cs), CHROMIUM (default /usr/bin/chromium),
// CHECKSPEC_SERVER (default ../.venv/bin/checkspec), CHECKSPEC_E2E_FOLDER (default ../examples).

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

import { freePort, installVsix, quickOpen, startCodeServer, waitForHttp } from "./harness.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const extension = resolve(here, "..");
const repo = resolve(extension, "..");
const env = process.env;
const codeServer = join(env.CODE_SERVER_DIR ?? "/tmp/cs", "node_modules/code-server/out/node/entry.js");
const browserPath = env.CHROMIUM ?? "/usr/bin/chromium";
const serverPath = env.CHECKSPEC_SERVER ?? join(repo, ".venv/bin/checkspec");
const source = env.CHECKSPEC_E2E_FOLDER ?? join(repo, "examples");
const out = env.CHECKSPEC_E2E_OUT ?? "/tmp/checkspec-e2e";
const vsix = join(extension, "checkspec.vsix");
mkdirSync(out, { recursive: true });
const folder = join(mkdtempSync(join(out, "workspace-")), "examples");
cpSync(source, folder, { recursive: true });
writeFileSync(join(folder, "slow_agent.py"), "import time\n\ndef answer(question):\n    time.sleep(3600)\n");
writeFileSync(
  join(folder, "slow.scenario.yaml"),
  "name: never answers\ntarget: python:slow_agent:answer\nsteps:\n  - interacts:\n      - inputs: hello?\n    checks:\n      - {kind: string_matching, keyword: hello}\n",
);
writeFileSync(
  join(folder, "curate.suite.yaml"),
  "name: curation\nscenarios:\n  - name: reviewed already\n    tags: [reviewed]\n    steps: []\n  - name: tag me\n    steps: []\n",
);
writeFileSync(
  join(folder, "record.suite.yaml"),
  "name: recording\ntarget: python:agent:answer\nscenarios:\n  - name: hours asked\n    steps:\n      - interacts:\n          - inputs: When are you open?\n        checks: [{kind: string_matching, keyword: open}]\n",
);
const recordFile = join(folder, "record.suite.yaml");
const specFile = join(folder, "refund.scenario.yaml");
const curateFile = join(folder, "curate.suite.yaml");
// CHECKSPEC_E2E_ONLY=curation: only the curation step (after the workbench loads).
const onlyCuration = env.CHECKSPEC_E2E_ONLY === "curation";
class Done extends Error {}

for (const [what, path, hint] of [
  ["code-server", codeServer, "run /work/shared/tools/code-server-setup.sh /tmp/cs (or set CODE_SERVER_DIR)"],
  ["chromium", browserPath, "apt-get install -y chromium (or set CHROMIUM)"],
  ["the checkspec server", serverPath, "make install at the repository root (or set CHECKSPEC_SERVER)"],
  ["checkspec.vsix", vsix, "npm run package"],
  ["the spec file", specFile, "set CHECKSPEC_E2E_FOLDER to a copy of examples/"],
]) {
  if (!existsSync(path)) {
    console.error(`e2e: ${what} not found at ${path}: ${hint}`);
    process.exit(2);
  }
}

const steps = [];
function step(name, detail = "") {
  steps.push(`ok   ${name}${detail ? `: ${detail}` : ""}`);
  console.log(steps.at(-1));
}

mkdirSync(out, { recursive: true });
const scratch = mkdtempSync(join(out, "profile-"));
const userData = join(scratch, "user-data");
const extensions = join(scratch, "extensions");
mkdirSync(join(userData, "User"), { recursive: true });
writeFileSync(
  join(userData, "User", "settings.json"),
  JSON.stringify(
    {
      "checkspec.server.path": serverPath,
      "checkspec.trace.server": "messages",
      "security.workspace.trust.enabled": false,
      "workbench.startupEditor": "none",
      "workbench.tips.enabled": false,
      "workbench.enableExperiments": false,
      "extensions.ignoreRecommendations": true,
      "telemetry.telemetryLevel": "off",
      "files.autoSave": "off",
      "git.openRepositoryInParentFolders": "never",
      "editor.hover.delay": 100,
      "editor.minimap.enabled": false,
      "testing.automaticallyOpenPeekView": "failureAnywhere",
      "checkspec.runOnSave": "file",
    },
    null,
    2,
  ),
);

step("installed the .vsix", installVsix({ codeServer, vsix, extensions, userData }));

// Two recorded runs of the refund scenario for "Compare with Previous Run": it passes, then
// fails (its keyword changed); the file is put back as it was before the editor opens it.
{
  const original = readFileSync(specFile, "utf8");
  for (const text of [original, original.replace("keyword: refund\n", "keyword: refund within 90 days\n")]) {
    writeFileSync(specFile, text);
    const ran = spawnSync(serverPath, ["run", "refund.scenario.yaml"], { cwd: folder, encoding: "utf8", env: { ...process.env, CHECKSPEC_MODEL: "" } });
    if (ran.status !== 0 && ran.status !== 1) throw new Error(`checkspec run: ${ran.status} ${ran.stderr}`);
  }
  writeFileSync(specFile, original);
  step("two recorded runs of refund.scenario.yaml for the compare view");
}
const before = digest(specFile);
const curateBefore = digest(curateFile);
const recordBefore = digest(recordFile);
const port = await freePort();
const { server, log: serverLog } = startCodeServer({ codeServer, port, userData, extensions, folder });

let browser;
let page;
let failed = false;
try {
  await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000);
  step("code-server is up", `port ${port}`);
  browser = await chromium.launch({
    executablePath: browserPath,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`);
  await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
  step("workbench loaded");

  // Curation through its quick pick: on the scenario "tag me", the code action "Add tag…"
  // lists the workspace's tags with their counts; picking one edits the open document (not
  // the disk), and one undo takes the edit back.
  await page.locator(".monaco-workbench").click({ position: { x: 700, y: 400 } });
  await quickOpen(page, "curate.suite.yaml");
  const curateEditor = page.locator(".editor-instance .monaco-editor").first();
  await curateEditor.locator(".view-lines").getByText("tag me").first().waitFor({ timeout: 30_000 });
  await curateEditor.locator(".codelens-decoration a", { hasText: "Run scenario" }).first().waitFor({ timeout: 60_000 });
  await page.keyboard.press("Control+G");
  await page.keyboard.type("6");
  await page.keyboard.press("Enter");
  await command("Refactor...");
  const addTag = page.locator(".action-widget .monaco-list-row", { hasText: "Add tag…" }).first();
  await addTag.waitFor({ timeout: 30_000 });
  const offered = (await page.locator(".action-widget").first().innerText()).replace(/\s+/g, " ").trim();
  await shot("00a-curation-actions");
  await page.keyboard.press("Enter"); // the first action, "Add tag…", is focused
  const tagRow = page.locator(".quick-input-list .monaco-list-row", { hasText: "reviewed" }).first();
  await tagRow.waitFor({ timeout: 30_000 });
  const picked = (await tagRow.innerText()).replace(/\s+/g, " ").trim();
  await shot("00b-tag-quick-pick");
  await tagRow.hover();
  await tagRow.click({ force: true });
  await curateEditor.locator(".view-lines").getByText("tags: [reviewed]").nth(1).waitFor({ timeout: 30_000 });
  await shot("00c-tag-added");
  if (digest(curateFile) !== curateBefore) throw new Error("the curation edit was written to disk, not to the editor");
  step("curation: Add tag… quick pick", `${offered.slice(0, 160)}; picked "${picked}"; the editor's text changed, the disk's did not`);
  await curateEditor.click({ position: { x: 400, y: 60 } });
  await page.keyboard.press("Control+Z");
  await curateEditor.locator(".view-lines").getByText("tags: [reviewed]").nth(1).waitFor({ state: "detached", timeout: 30_000 });
  if ((await curateEditor.locator(".view-lines").getByText("tags: [reviewed]").count()) !== 1) {
    throw new Error("undo did not take the tag back");
  }
  await shot("00d-tag-undone");
  step("curation: one undo takes the edit back");
  await command("View: Close All Editors");

  // "Record outputs from the target": the scenario runs in the server's workers and the
  // answer is written after its inputs in the open document; one undo takes it back.
  await quickOpen(page, "record.suite.yaml");
  const recordEditor = page.locator(".editor-instance .monaco-editor").first();
  await recordEditor.locator(".view-lines").getByText("hours asked").first().waitFor({ timeout: 30_000 });
  await recordEditor.locator(".codelens-decoration a", { hasText: "Run scenario" }).first().waitFor({ timeout: 60_000 });
  await page.keyboard.press("Control+G");
  await page.keyboard.type("4");
  await page.keyboard.press("Enter");
  await command("Refactor...");
  await page.locator(".action-widget .monaco-list-row", { hasText: "Record outputs from the target" }).first().waitFor({ timeout: 30_000 });
  await shot("00e-record-action");
  await page.keyboard.press("ArrowUp"); // from the first action to the last: this one
  await page.waitForTimeout(300);
  await shot("00e2-record-focused");
  await page.keyboard.press("Enter");
  const recorded = recordEditor.locator(".view-lines").getByText("Support is open Monday", { exact: false }).first();
  await recorded.waitFor({ timeout: 60_000 });
  await shot("00f-recorded");
  if (digest(recordFile) !== recordBefore) throw new Error("the recorded outputs were written to disk, not to the editor");
  step("Record outputs from the target", (await recorded.innerText()).replace(/\s+/g, " ").trim());
  await recordEditor.click({ position: { x: 400, y: 60 } });
  await page.keyboard.press("Control+Z");
  await recorded.waitFor({ state: "detached", timeout: 30_000 });
  step("recording: one undo takes it back");
  await command("View: Close All Editors");
  if (onlyCuration) throw new Done();

  // Open the scenario with Quick Open.
  await page.locator(".monaco-workbench").click({ position: { x: 700, y: 400 } });
  await quickOpen(page, "refund.scenario.yaml");
  const editor = page.locator(".editor-instance .monaco-editor").first();
  await editor.locator(".view-lines").getByText("refund policy is stated").waitFor({ timeout: 30_000 });
  step("opened refund.scenario.yaml");

  const lens = editor.locator(".codelens-decoration a", { hasText: "Run scenario" }).first();
  await lens.waitFor({ timeout: 60_000 });
  step("code lens shown", await lens.innerText());
  await shot("01-opened");

  // The typo: line 9 is `      - kind: string_matching`; drop its last letter.
  await page.keyboard.press("Control+G");
  await page.keyboard.type("9");
  await page.keyboard.press("Enter");
  await page.keyboard.press("End");
  await page.keyboard.press("Backspace");
  await editor.locator(".view-lines").getByText("string_matchin", { exact: false }).first().waitFor();
  await editor.locator(".squiggly-error").first().waitFor({ timeout: 30_000 });
  step("typo string_matchin underlined");

  await page.keyboard.press("Control+Shift+M"); // Problems panel
  const problem = page.locator(".markers-panel .monaco-list-row", { hasText: "string_matchin" }).first();
  await problem.waitFor({ timeout: 20_000 });
  step("Problems panel", (await problem.innerText()).replace(/\s+/g, " ").trim());
  await shot("02-diagnostic");

  // Hover the underlined kind: the diagnostic, its quick fix and the server's hover text.
  await hoverOver(editor.locator(".view-lines span", { hasText: /^string_matchin$/ }).first());
  const hover = page.locator(".monaco-hover:not(.hidden)").first();
  await hover.waitFor({ timeout: 15_000 });
  await page.waitForTimeout(500); // the hover fills in as providers answer
  step("hover on the typo", (await hover.innerText()).replace(/\s+/g, " ").trim().slice(0, 300));
  await shot("03-hover-typo");

  // Undo, then hover a valid check kind for the server's documentation.
  await page.keyboard.press("Escape");
  await editor.click({ position: { x: 400, y: 100 } });
  await page.keyboard.press("Control+Z");
  await editor.locator(".squiggly-error").first().waitFor({ state: "detached", timeout: 30_000 });
  step("undo clears the diagnostic");
  await hoverOver(editor.locator(".view-lines span", { hasText: /^string_matching$/ }).first());
  const docs = page.locator(".monaco-hover:not(.hidden)").first();
  await docs.waitFor({ timeout: 15_000 });
  await page.waitForTimeout(500);
  step("hover on string_matching", (await docs.innerText()).replace(/\s+/g, " ").trim().slice(0, 300));
  await shot("04-hover-docs");
  await page.keyboard.press("Escape");

  // Run the scenario from its lens: a progress notification while it runs (workers start:
  // the first run is the slow one), then the result in our status bar item.
  await lens.click();
  const progress = page.locator(".notifications-toasts .notification-toast", { hasText: "checkspec: running" }).first();
  // Optional and short-lived: it may close between being seen and being read.
  if (await progress.waitFor({ timeout: 5_000 }).then(() => true, () => false)) {
    const text = await progress.innerText({ timeout: 1_000 }).catch(() => undefined);
    if (text !== undefined) step("progress notification", text.replace(/\s+/g, " ").trim());
  }
  const status = page.locator(".statusbar-item", { hasText: "refund policy is stated: pass" }).first();
  await status.waitFor({ timeout: 60_000 });
  await shot("05-run");
  step("status bar", (await status.innerText()).trim());

  // Results in place: each check's outcome after its kind (inlay hints), the run's outcome
  // as a lens, the transcript on hover of the scenario's name and in the Show Last Run view.
  const outcomeLens = editor.locator(".codelens-decoration a", { hasText: "show last run" }).first();
  await outcomeLens.waitFor({ timeout: 30_000 });
  const hints = await inlayHints(editor);
  if (!hints.some((hint) => hint.startsWith("✓"))) throw new Error(`no ✓ inlay hint after the run: ${hints.join(" | ")}`);
  step("results in place", `${hints.join(" | ")}; lens: ${await outcomeLens.innerText()}`);
  await shot("05b-results-in-place");
  await hoverOver(editor.locator(".view-lines").getByText("refund policy is stated", { exact: true }).first());
  const transcriptHover = page.locator(".monaco-hover:not(.hidden)", { hasText: "Last run" }).first();
  await transcriptHover.waitFor({ timeout: 15_000 });
  await page.waitForTimeout(300);
  step("transcript on hover", (await transcriptHover.innerText()).replace(/\s+/g, " ").trim().slice(0, 200));
  await shot("05c-transcript-hover");
  await page.keyboard.press("Escape");
  await outcomeLens.click();
  const view = page.frameLocator("iframe.webview.ready").frameLocator("iframe#active-frame");
  await view.locator("text=What is your refund policy?").first().waitFor({ timeout: 30_000 });
  const checksShown = await view.locator("li.card").count();
  step("Show Last Run view", `${checksShown} checks, the conversation and the verdicts`);
  await shot("05d-last-run-view");
  await command("View: Close All Editors");

  // Compare with Previous Run: the compare page of the file's last two recorded runs.
  await quickOpen(page, "refund.scenario.yaml");
  await command("checkspec: Compare with Previous Run");
  const compared = page.frameLocator("iframe.webview.ready").frameLocator("iframe#active-frame");
  await compared.locator("body[data-ready] h1", { hasText: "Compare" }).waitFor({ timeout: 30_000 });
  await compared.locator("details.row", { hasText: "refund policy is stated" }).first().waitFor({ timeout: 10_000 });
  step("Compare with Previous Run", (await compared.locator("#summary").innerText()).replace(/\s+/g, " ").trim());
  await shot("05e-compare-view");
  await command("View: Close All Editors");

  // The Test Explorer lists the workspace's spec files and, expanded, their scenarios.
  await command("Testing: Focus on Test Explorer View");
  const testFile = page.locator(".test-explorer .monaco-list-row", { hasText: "support.suite.yaml" }).first();
  await testFile.waitFor({ timeout: 30_000 });
  await testFile.locator(".monaco-tl-twistie").click();
  await page.locator(".test-explorer .monaco-list-row", { hasText: "opening hours" }).first().waitFor({ timeout: 30_000 });
  step("Test Explorer lists the suite's scenarios");
  await page.locator(".test-explorer .monaco-list-row", { hasText: "support.suite.yaml" }).first().hover();
  await page.locator(".test-explorer .monaco-list-row", { hasText: "support.suite.yaml" }).first()
    .locator(".action-label[aria-label^='Run Test']").click();
  const failedTest = page.locator(".test-explorer .monaco-list-row", { hasText: "follow-up keeps context" }).first();
  await failedTest.locator(".codicon-testing-failed-icon").waitFor({ timeout: 60_000 });
  await page.locator(".test-explorer .monaco-list-row", { hasText: "opening hours" }).first()
    .locator(".codicon-testing-passed-icon").waitFor({ timeout: 10_000 });
  step("Test Explorer run: 'follow-up keeps context' failed, 'opening hours' passed");
  // Scenarios expand into their checks, each with its own result.
  const failedCheck = page.locator(".test-explorer .monaco-list-row", { hasText: "step 2" }).first();
  await page.waitForTimeout(500); // a failure may expand its scenario by itself
  if (!(await failedCheck.isVisible())) await failedTest.locator(".monaco-tl-twistie").click();
  await failedCheck.locator(".codicon-testing-failed-icon").waitFor({ timeout: 10_000 });
  step("the failed scenario expands into its checks: step 2's string_matching failed");
  await shot("06-test-explorer");
  // The failure opens in a peek at the failing check, expected and actual side by side.
  const peek = page.locator(".test-output-peek, .peekview-widget").first();
  await peek.waitFor({ timeout: 30_000 });
  await page.waitForTimeout(1500);
  step("failure peek", (await peek.innerText()).replace(/\s+/g, " ").trim().slice(0, 200));
  await shot("06b-failure-peek");
  await page.keyboard.press("Escape");

  // The palette command runs the scenario under the cursor: line 16 is inside "opening hours".
  await quickOpen(page, "support.suite.yaml");
  await page.waitForTimeout(300);
  await page.keyboard.press("Control+Home"); // the failure peek left it scrolled down
  const suiteEditor = page.locator(".editor-instance .monaco-editor").first();
  await suiteEditor.locator(".view-lines").getByText("opening hours").first().waitFor();
  const runAll = suiteEditor.locator(".codelens-decoration a", { hasText: "Run all" }).first();
  await runAll.waitFor({ timeout: 30_000 });
  const lensCount = await suiteEditor.locator(".codelens-decoration a", { hasText: "Run scenario" }).count();
  step("suite lenses", `${await runAll.innerText()} and ${lensCount} × ▶ Run scenario visible`);
  await shot("07-suite-lenses");
  await page.keyboard.press("Control+G");
  await page.keyboard.type("16");
  await page.keyboard.press("Enter");
  await command("checkspec: Run Scenario at Cursor");
  const cursorRun = page.locator(".statusbar-item", { hasText: "opening hours: pass" }).first();
  await cursorRun.waitFor({ timeout: 60_000 });
  step("Run Scenario at Cursor", (await cursorRun.innerText()).replace(/\s+/g, " ").trim());
  await shot("08-run-at-cursor");
  // The same scenario three times, its runs folded into one verdict (as run --repeat).
  await command("checkspec: Run Scenario at Cursor Several Times");
  await page.locator(".quick-input-widget input.input").waitFor();
  await page.keyboard.press("Control+A");
  await page.keyboard.type("3");
  await page.keyboard.press("Enter");
  const repeated = page.locator(".statusbar-item", { hasText: "3/3 runs passed" }).first();
  await repeated.waitFor({ timeout: 60_000 });
  step("Run Scenario at Cursor Several Times", (await repeated.innerText()).replace(/\s+/g, " ").trim());
  await shot("08b-run-repeated");

  // A run whose target never answers: its progress notification's Cancel stops it at once.
  await quickOpen(page, "slow.scenario.yaml");
  const slowEditor = page.locator(".editor-instance .monaco-editor").first();
  await slowEditor.locator(".view-lines").getByText("never answers").first().waitFor();
  const slowLens = slowEditor.locator(".codelens-decoration a", { hasText: "Run scenario" }).first();
  await slowLens.waitFor({ timeout: 30_000 });
  await slowLens.click();
  const running = page.locator(".notifications-toasts .notification-toast", { hasText: "checkspec: running never answers" }).first();
  await running.waitFor({ timeout: 30_000 });
  await page.waitForTimeout(1500); // it is running: the target sleeps
  await shot("09-running");
  await running.hover();
  await running.getByRole("button", { name: "Cancel" }).click();
  const cancelledAt = Date.now();
  const cancelled = page.locator(".statusbar-item", { hasText: "never answers: cancelled" }).first();
  await cancelled.waitFor({ timeout: 10_000 });
  step("cancelled from the progress notification", `${Date.now() - cancelledAt} ms to the answer`);
  await shot("10-cancelled");

  // The server's language status: state, version and executable, with Restart.
  await page.locator('[id="status.languageStatus"]').first().click();
  const languageStatus = page.locator(".monaco-hover:not(.hidden), .context-view", { hasText: "checkspec" }).first();
  await languageStatus.waitFor({ timeout: 10_000 });
  step("language status", (await languageStatus.innerText()).replace(/\s+/g, " ").trim().slice(0, 160));
  await shot("11-language-status");
  await page.keyboard.press("Escape");

  // checkspec.runOnSave = file: saving a dataset (in the copy) runs it, in the server
  // (the extension only passes the setting): its outcome lenses appear.
  await quickOpen(page, "faq.dataset.yaml");
  const datasetEditor = page.locator(".editor-instance .monaco-editor").first();
  await datasetEditor.locator(".view-lines").first().waitFor();
  await datasetEditor.click({ position: { x: 300, y: 60 } });
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\n# saved from the e2e run\n");
  await page.keyboard.press("Control+S");
  const saved = datasetEditor.locator(".codelens-decoration a:visible", { hasText: "show last run" }).first();
  await saved.waitFor({ timeout: 60_000 });
  step("run on save", (await saved.innerText()).replace(/\s+/g, " ").trim());
  await shot("12-run-on-save");
} catch (error) {
  if (!(error instanceof Done)) failed = true;
  if (failed) console.error(`FAIL ${error instanceof Error ? error.message : error}`);
  if (failed && page) {
    await shot("failure").catch(() => undefined);
    await showOutput().catch((e) => console.error(`(no output view: ${e.message.split("\n")[0]})`));
  }
} finally {
  await browser?.close().catch(() => undefined);
  try {
    process.kill(-server.pid, "SIGTERM");
  } catch {
    // already gone
  }
}

for (const [path, digestBefore] of [[specFile, before], [curateFile, curateBefore], [recordFile, recordBefore]]) {
  if (digest(path) !== digestBefore) {
    failed = true;
    console.error(`FAIL ${path} changed on disk`);
  }
}
if (failed) {
  writeFileSync(join(out, "code-server.log"), serverLog());
  console.error(`e2e: failed; screenshots and code-server.log in ${out}`);
} else {
  rmSync(scratch, { recursive: true, force: true });
  console.log(`e2e: ${steps.length} steps passed; screenshots in ${out}`);
}
process.exit(failed ? 1 : 0);

async function shot(name) {
  const path = join(out, `${name}.png`);
  await page.screenshot({ path });
  console.log(`     screenshot ${path}`);
}

/** The inlay hints shown in an editor: Monaco renders them as text inside the view lines. */
async function inlayHints(editor) {
  const text = await editor.locator(".view-lines").innerText();
  return text
    .split("\n")
    .map((line) => /[✓✗⚠○] .*$/u.exec(line.replace(/\u00a0/g, " "))?.[0]?.trim())
    .filter(Boolean);
}


async function command(title) {
  await page.keyboard.press("Control+Shift+P");
  await page.locator(".quick-input-widget input.input").waitFor();
  await page.keyboard.type(title);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor();
  await page.keyboard.press("Enter");
}

/** Moves the mouse onto an element (Monaco's layers fail Playwright's own hover checks). */
async function hoverOver(locator) {
  const box = await locator.boundingBox();
  if (box === null) throw new Error("nothing to hover");
  await page.mouse.move(box.x + box.width / 2 - 5, box.y + box.height / 2);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 3 });
}

/** The `checkspec` output channel, as text and as a screenshot (its log file is not kept). */
async function showOutput() {
  await page.keyboard.press("Escape");
  await command("checkspec: Show Output");
  await page.waitForTimeout(1500);
  await shot("failure-output");
  const view = page.locator(".part.panel .view-lines").first();
  console.error(`--- checkspec output (visible part) ---\n${await view.innerText({ timeout: 5000 })}`);
}

function digest(path) {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}


