// `npm run package` (make package): checkspec.vsix for this machine's VS Code target, with
// the server bundled for Python 3.11, 3.12 and 3.13 of that platform.
// `npm run package-all` (make package-all): one package per target, checkspec-<target>.vsix.
//
//   node scripts/package.mjs [--all | --target T ...] [--out-dir DIR] [--python-versions 3.11,3.13]
//
// Each target: tools/bundle_server.py --target T (through bundle-server.mjs, which finds a
// Python 3.11+; wheels cached in ../build/wheelhouse), then `vsce package --target T`.
// With --all the machine's own target goes last, so bundled/ ends as `npm run package` leaves it.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const TARGETS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64"];

const extension = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const here = `${process.platform}-${process.arch}`;

const argv = process.argv.slice(2);
let all = false;
let outDir;
const targets = [];
const bundleArgs = [];
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i];
  if (arg === "--all") all = true;
  else if (arg === "--target") targets.push(argv[++i]);
  else if (arg === "--out-dir") outDir = resolve(argv[++i]);
  else if (arg === "--python-versions") bundleArgs.push("--pythons", argv[++i]);
  else {
    console.error(`package: unknown argument ${arg}`);
    process.exit(2);
  }
}
if (all) targets.push(...TARGETS.filter((t) => t !== here), ...TARGETS.filter((t) => t === here));
if (targets.length === 0) targets.push(here);
for (const target of targets) {
  if (!TARGETS.includes(target)) {
    console.error(`package: no package for ${target}; the targets are ${TARGETS.join(", ")}`);
    process.exit(2);
  }
}

function run(command, args) {
  const done = spawnSync(command, args, { cwd: extension, stdio: "inherit" });
  if (done.status !== 0) process.exit(done.status ?? 1);
}

const vsce = join(extension, "node_modules", "@vscode", "vsce", "vsce");
const made = [];
for (const target of targets) {
  const name = all || outDir !== undefined ? `checkspec-${target}.vsix` : "checkspec.vsix";
  const file = join(outDir ?? extension, name);
  console.log(`package: ${target} -> ${file}`);
  run(process.execPath, [join(extension, "scripts", "bundle-server.mjs"), "--target", target, ...bundleArgs]);
  // vsce's secret scan reads every packed file: minutes over the bundle's 5,000 files of
  // third-party libraries (pip's, from PyPI). It is skipped there: bundle_server.py scans
  // every file of bundled/ itself (keys' own shapes; a hit fails the bundle), and vsce's
  // rules run below on our own files, checkspec's bundled package among them.
  run(process.execPath, [
    vsce,
    "package",
    "--no-dependencies",
    "--target",
    target,
    "--allow-package-all-secrets",
    "--allow-package-env-file",
    "-o",
    file,
  ]);
  await scanOwnFiles(file);
  made.push(`${target}: ${file} (${(statSync(file).size / 1e6).toFixed(1)} MB)`);
}
console.log(`package: built\n  ${made.join("\n  ")}`);

/** Every file under `folder` (relative to the extension's folder). */
function filesUnder(folder) {
  return readdirSync(join(extension, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name).slice(extension.length + 1));
}

/** vsce's secret scan (secretlint) over what the package carries but the third-party
 * libraries of the bundle: checkspec's own package in it is scanned (bundled/libs/X/checkspec). */
async function scanOwnFiles(file) {
  const { lintFiles, prettyPrintLintResult } = createRequire(import.meta.url)(
    join(extension, "node_modules", "@vscode", "vsce", "out", "secretLint.js"),
  );
  const own = ["package.json", "README.md", "CHANGELOG.md", "LICENSE", "dist/extension.js", "bundled/bundle.json"];
  const schemas = readdirSync(join(extension, "schemas")).map((name) => `schemas/${name}`);
  const checkspec = readdirSync(join(extension, "bundled", "libs"))
    .filter((libs) => existsSync(join(extension, "bundled", "libs", libs, "checkspec")))
    .flatMap((libs) => filesUnder(join("bundled", "libs", libs, "checkspec")));
  if (checkspec.length === 0) {
    console.error("package: no checkspec package in bundled/libs to scan");
    process.exit(1);
  }
  const result = await lintFiles([...own, ...schemas, ...checkspec].map((path) => join(extension, path)), true, true);
  if (!result.ok) {
    for (const found of result.results) console.error(prettyPrintLintResult(found));
    rmSync(file, { force: true });
    console.error(`package: secrets found in the extension's files; ${file} removed`);
    process.exit(1);
  }
}
