// End-to-end test in headless Neovim (Debian's `neovim` package): e2e/neovim.lua drives
// the server as a plain LSP client (open -> diagnostics -> completion -> run -> results in
// place -> transcript hover -> definition); this checks what it saw. Output (neovim.json,
// neovim-screen.txt: the buffer with its inlay hints and the hover) goes to
// $CHECKSPEC_E2E_OUT (default /tmp/checkspec-e2e). Works on a copy of examples/.
//
// Environment: NVIM (default nvim), CHECKSPEC_SERVER (default ../.venv/bin/checkspec).

import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..");
const env = process.env;
const nvim = env.NVIM ?? "nvim";
const server = env.CHECKSPEC_SERVER ?? join(repo, ".venv/bin/checkspec");
const out = env.CHECKSPEC_E2E_OUT ?? "/tmp/checkspec-e2e";
mkdirSync(out, { recursive: true });
const folder = join(mkdtempSync(join(out, "nvim-workspace-")), "examples");
cpSync(join(repo, "examples"), folder, { recursive: true });

if (spawnSync(nvim, ["--version"]).status !== 0) {
  console.error(`e2e: ${nvim} not found: apt-get install -y neovim (or set NVIM)`);
  process.exit(2);
}
if (!existsSync(server)) {
  console.error(`e2e: the checkspec server is not at ${server}: make install (or set CHECKSPEC_SERVER)`);
  process.exit(2);
}

const done = spawnSync(nvim, ["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", `luafile ${join(here, "neovim.lua")}`], {
  env: { ...env, CHECKSPEC_E2E_OUT: out, CHECKSPEC_SERVER: server, CHECKSPEC_E2E_FOLDER: folder },
  encoding: "utf8",
  timeout: 480_000,
});
const seenPath = join(out, "neovim.json");
if (!existsSync(seenPath)) {
  console.error(`FAIL neovim wrote nothing (exit ${done.status}, ${done.signal ?? "no signal"}):\n${done.stdout}\n${done.stderr}`);
  process.exit(1);
}
const seen = JSON.parse(readFileSync(seenPath, "utf8"));
const checks = [
  ["the server initialized", () => seen.initialized === "checkspec"],
  ["the typo's diagnostic", () => seen.diagnostic?.message?.startsWith("unknown check 'string_matchin'")],
  ["completion offers the kind", () => seen.completion?.includes("string_matching")],
  ["the run passed", () => seen.run?.status === "pass"],
  ["a ✓ inlay hint per check", () => (seen.inlay_hints ?? []).filter((h) => h.label.startsWith("✓")).length >= 3],
  ["the transcript on hover", () => /Last run/.test(seen.transcript_hover) && /What is your refund policy\?/.test(seen.transcript_hover)],
  ["go to the target's def", () => seen.definition?.uri?.endsWith("/agent.py") && seen.definition.line > 0],
];
let failed = seen.failure !== undefined;
if (failed) console.error(`FAIL ${seen.failure}`);
for (const [name, ok] of checks) {
  const passed = Boolean(ok());
  failed ||= !passed;
  console.log(`${passed ? "ok  " : "FAIL"} ${name}`);
}
console.log(`     screen: ${join(out, "neovim-screen.txt")}`);
if (failed) {
  console.error(JSON.stringify(seen, null, 2));
  process.exit(1);
}
console.log(`e2e (neovim): ${checks.length} steps passed`);
