// `npm run bundle-server`: tools/bundle_server.py with the repository's .venv when there
// is one, else the first Python 3.11+ on PATH (a fresh clone has no .venv; the script
// needs only pip, which builds checkspec's wheel in an isolated environment of its own).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const windows = process.platform === "win32";
const venv = join(root, ".venv", windows ? "Scripts/python.exe" : "bin/python");
const candidates = [
  ...(existsSync(venv) ? [venv] : []),
  ...(windows ? ["py", "python"] : ["python3", "python3.13", "python3.12", "python3.11"]),
];

function minor(python) {
  const found = spawnSync(python, ["-c", "import sys; print(sys.version_info[1])"], {
    encoding: "utf8",
  });
  const major3minor = found.status === 0 ? Number(found.stdout.trim()) : NaN;
  return Number.isFinite(major3minor) ? major3minor : -1;
}

const python = candidates.find((candidate) => minor(candidate) >= 11);
if (!python) {
  console.error(
    `bundle-server: no Python 3.11 or newer found (tried ${candidates.join(", ")}); ` +
      "install one, or run `make install` at the repository's root for its .venv.",
  );
  process.exit(2);
}
console.log(`bundle-server: ${python}`);
const run = spawnSync(python, [join(root, "tools", "bundle_server.py"), ...process.argv.slice(2)], {
  stdio: "inherit",
});
process.exit(run.status ?? 1);
