// End-to-end test of the HTML run report and `checkspec view` in a real Chromium
// (playwright-core, Debian's /usr/bin/chromium headless). Run by `npm run e2e`.
//
// On a copy of examples/: runs the suite three times (the second time with one check changed,
// so a scenario newly fails, the third time as at first), writes the report with
// `checkspec run --format html`, opens it from file:// and uses the status filter, the tag
// filter and the search; then starts `checkspec view --port 0`, lists the runs, opens a
// run and the compare of the two. Screenshots: report.png, viewer.png, compare.png in
// $CHECKSPEC_E2E_DOCS, else $CHECKSPEC_E2E_OUT (default /tmp/checkspec-e2e): an e2e run
// leaves the tree clean; `make screenshots` sets CHECKSPEC_E2E_DOCS=docs to refresh the
// README's pictures.
//
// Environment: CHROMIUM (default /usr/bin/chromium), CHECKSPEC (default ../.venv/bin/checkspec).

import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
const browserPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const checkspec = process.env.CHECKSPEC ?? join(repo, ".venv/bin/checkspec");
const docs = process.env.CHECKSPEC_E2E_DOCS ?? process.env.CHECKSPEC_E2E_OUT ?? "/tmp/checkspec-e2e";
mkdirSync(docs, { recursive: true });
for (const [what, path] of [["chromium", browserPath], ["checkspec", checkspec]]) {
  if (!existsSync(path)) {
    console.error(`report e2e: ${what} not found at ${path}`);
    process.exit(2);
  }
}

const folder = join(mkdtempSync(join(tmpdir(), "checkspec-report-")), "examples");
// Not examples/.checkspec: the history this test lists is the one it makes.
cpSync(join(repo, "examples"), folder, { recursive: true, filter: (path) => !path.includes(".checkspec") });
const env = { ...process.env, NO_COLOR: "1", CHECKSPEC_MODEL: "" };

function cli(args, okCodes = [0, 1]) {
  const done = spawnSync(checkspec, args, { cwd: folder, env, encoding: "utf-8", timeout: 180_000 });
  if (!okCodes.includes(done.status)) {
    throw new Error(`checkspec ${args.join(" ")}: exit ${done.status}\n${done.stdout}\n${done.stderr}`);
  }
  return done;
}
function check(condition, message) {
  if (!condition) throw new Error(`report e2e: ${message}`);
  console.log(`ok - ${message}`);
}

const browser = await chromium.launch({ executablePath: browserPath, args: ["--no-sandbox"] });
const errors = [];
let viewer = null;
try {
  // --- the report from file:// ---
  const first = join(folder, "first.html");
  cli(["run", ".", "--format", "html", "-o", first]);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("request", (r) => {
    if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) errors.push(`request to ${r.url()}`);
  });
  await page.goto(pathToFileURL(first).href);
  await page.waitForSelector("body[data-ready] details.row");
  const rows = () => page.locator("#rows details.row");
  const total = await rows().count();
  check(total === 9, `the report lists the 9 scenarios (${total})`);
  const order = await rows().evaluateAll((nodes) => nodes.map((n) => n.dataset.status));
  check(order[0] !== "pass" && order.indexOf("pass") > order.lastIndexOf("fail"), `failures first (${order.join(" ")})`);
  await page.click('button[data-status="fail"]');
  check((await rows().count()) === 1, "the status filter 'fail' keeps the one failure");
  await page.click('button[data-status="failing"]');
  check((await rows().count()) === 2, "'fail + error' keeps the failure and the error");
  await page.click('button[data-status="all"]');
  await page.fill("#search", "polite");
  await page.waitForFunction(() => document.querySelectorAll("#rows details.row").length === 1);
  check((await rows().first().locator(".name").textContent()).includes("polite"), "the search finds the polite scenario");
  await page.fill("#search", "");
  await page.waitForFunction(() => document.querySelectorAll("#rows details.row").length === 9);
  await page.selectOption("#filter-tag", "support");
  const tagged = await rows().count();
  check(tagged > 0 && tagged < 9, `the tag filter keeps the support scenarios (${tagged})`);
  await page.selectOption("#filter-tag", "");
  await page.click('button[data-status="fail"]');
  await rows().first().locator("summary").click();
  await page.waitForSelector("#rows details.row[open] .diff");
  const diff = await page.locator("#rows .diff").first().textContent();
  check(diff.includes("business days"), "the failure shows expected (the keyword) against the actual answer");
  check((await page.locator("#rows .turn.user").count()) >= 2, "the conversation is shown by role");
  await page.click('button[data-status="all"]');
  await rows().nth(1).locator("summary").click();
  await page.screenshot({ path: join(docs, "report.png") });
  check(!errors.length, `no script error and no request off file:// (${errors.join("; ")})`);

  // --- a second run where one more scenario fails, then the viewer ---
  const spec = join(folder, "refund.scenario.yaml");
  const text = readFileSync(spec, "utf-8");
  const changed = text.replace("keyword: refund\n", "keyword: refund within 90 days\n");
  check(changed !== text, "the second run asks the refund scenario for what it does not say");
  writeFileSync(spec, changed);
  cli(["run", "."]);
  writeFileSync(spec, text); // and a third run, fixed again: the trend goes down and up
  cli(["run", "."]);
  viewer = spawn(checkspec, ["view", "--port", "0"], { cwd: folder, env, stdio: ["ignore", "pipe", "pipe"] });
  const url = await new Promise((ok, fail) => {
    let seen = "";
    const timer = setTimeout(() => fail(new Error(`no URL printed: ${seen}`)), 60_000);
    viewer.stdout.on("data", (chunk) => {
      seen += chunk;
      const found = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(seen); // the token: cookie from then on
      if (found) { clearTimeout(timer); ok(found[1]); }
    });
    viewer.on("exit", (code) => fail(new Error(`checkspec view exited ${code}: ${seen}`)));
  });
  check(true, `checkspec view prints its URL (${url})`);
  const app = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  app.on("pageerror", (e) => errors.push(e.message));
  await app.goto(url);
  await app.waitForSelector("#runs tr[data-id]");
  const listed = await app.locator("#runs tr[data-id]").count();
  check(listed === 3, `the viewer lists the three runs (${listed})`);
  check((await app.locator("#trend svg circle").count()) === 3, "the trend chart has a point per run");
  // The second and third newest: the run that broke the refund scenario against the one before.
  await app.locator("#runs tr[data-id] input").nth(1).check();
  await app.locator("#runs tr[data-id] input").nth(2).check();
  await app.screenshot({ path: join(docs, "viewer.png") });
  await Promise.all([app.waitForURL(/compare\?/), app.click("#compare")]);
  await app.waitForSelector("body[data-ready]");
  const newly = await app.locator('#rows details.row[data-status]').evaluateAll((nodes) => nodes.map((n) => n.textContent));
  check(newly.some((t) => /newly failing/i.test(t)), "the compare shows a newly failing scenario");
  await app.locator("#rows details.row").first().locator("summary").click();
  await app.screenshot({ path: join(docs, "compare.png") });
  check(!errors.length, `no script error in the viewer (${errors.join("; ")})`);

  // Ctrl-C stops it cleanly.
  const stopped = new Promise((ok) => viewer.on("exit", (code, signal) => ok([code, signal])));
  viewer.kill("SIGINT");
  const [code] = await stopped;
  viewer = null;
  check(code === 0, `SIGINT stops checkspec view with exit 0 (${code})`);
} finally {
  if (viewer) viewer.kill("SIGKILL");
  await browser.close();
}
console.log("report e2e: passed");
