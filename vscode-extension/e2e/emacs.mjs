// End-to-end test in Emacs (Debian's emacs-nox, with elpa-eglot and elpa-yaml-mode), in
// batch mode: e2e/emacs.el loads the docs' Emacs snippet (cut from docs/editors/emacs.md here, so
// the snippet users copy is the one tested), opens a scenario with a typo in a copy of
// examples/, and records what it saw; this checks it. Output (emacs.json) goes to
// $CHECKSPEC_E2E_OUT (default /tmp/checkspec-e2e).
//
// Environment: EMACS (default emacs), CHECKSPEC_SERVER (default ../.venv/bin/checkspec).

import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..");
const env = process.env;
const emacs = env.EMACS ?? "emacs";
const server = env.CHECKSPEC_SERVER ?? join(repo, ".venv/bin/checkspec");
const out = env.CHECKSPEC_E2E_OUT ?? "/tmp/checkspec-e2e";
mkdirSync(out, { recursive: true });
const work = mkdtempSync(join(out, "emacs-workspace-"));
const folder = join(work, "examples");
cpSync(join(repo, "examples"), folder, { recursive: true });

if (spawnSync(emacs, ["--version"]).status !== 0) {
  console.error(`e2e: ${emacs} not found: apt-get install -y emacs-nox elpa-eglot elpa-yaml-mode (or set EMACS)`);
  process.exit(2);
}
if (!existsSync(server)) {
  console.error(`e2e: the checkspec server is not at ${server}: make install (or set CHECKSPEC_SERVER)`);
  process.exit(2);
}

// The docs' snippet, as users copy it.
const page = readFileSync(join(repo, "docs", "editors", "emacs.md"), "utf8");
const snippet = page.match(/```elisp\n([\s\S]*?)```/)?.[1];
if (!snippet) {
  console.error("FAIL docs/editors/emacs.md has no ```elisp block");
  process.exit(1);
}
const snippetPath = join(work, "snippet.el");
writeFileSync(snippetPath, snippet);

const done = spawnSync(emacs, ["--batch", "-l", join(here, "emacs.el")], {
  env: {
    ...env,
    PATH: `${dirname(server)}:${env.PATH}`, // the snippet starts `checkspec lsp` from PATH
    CHECKSPEC_E2E_OUT: out,
    CHECKSPEC_E2E_FOLDER: folder,
    CHECKSPEC_E2E_SNIPPET: snippetPath,
  },
  cwd: folder,
  encoding: "utf8",
  timeout: 300_000,
});
const seenPath = join(out, "emacs.json");
if (!existsSync(seenPath)) {
  console.error(`FAIL emacs wrote nothing (exit ${done.status}, ${done.signal ?? "no signal"}):\n${done.stdout}\n${done.stderr}`);
  process.exit(1);
}
const seen = JSON.parse(readFileSync(seenPath, "utf8"));
const checks = [
  ["eglot connected to the server", () => seen.initialized === "checkspec"],
  ["the typo's diagnostic through flymake, at its line", () => /unknown check 'string_matchin'/.test(seen.diagnostic?.message ?? "") && seen.diagnostic.line > 1],
  ["completion offers the kind", () => (seen.completion ?? []).includes("string_matching")],
  ["a quick fix names the right kind", () => (seen.actions ?? []).some((t) => t.includes("string_matching"))],
  ["the quick fix applied", () => seen.fixed === true],
  ["the run passed", () => seen.run === "pass" && seen.run_scenarios >= 1],
  ["the snippet's checkspec-run-file ran", () => seen.command === true],
];
let failed = seen.failure !== undefined;
if (failed) console.error(`FAIL ${seen.failure}\n${done.stderr.slice(-3000)}`);
for (const [name, ok] of checks) {
  const passed = Boolean(ok());
  failed ||= !passed;
  console.log(`${passed ? "ok  " : "FAIL"} ${name}`);
}
console.log(`     seen: ${seenPath}`);
process.exit(failed ? 1 : 0);
