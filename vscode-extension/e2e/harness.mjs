// What the code-server e2e scripts (smoke.mjs, bundled.mjs) share: a free port, waiting
// for code-server to answer, installing the .vsix into a throwaway profile, starting
// code-server on a folder, and VS Code's quick open.
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";

export function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

export async function waitForHttp(url, timeout) {
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer in ${timeout} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Installs the .vsix into the profile; the installer's last line, or exits with its output. */
export function installVsix({ codeServer, vsix, extensions, userData }) {
  const install = spawnSync(
    process.execPath,
    [codeServer, "--install-extension", vsix, "--extensions-dir", extensions, "--user-data-dir", userData],
    { encoding: "utf8" },
  );
  if (install.status !== 0) {
    console.error(install.stdout, install.stderr);
    process.exit(1);
  }
  return install.stdout.trim().split("\n").at(-1);
}

/** code-server on `folder` in its own process group (stopped as one); `log()` is its output. */
export function startCodeServer({ codeServer, port, userData, extensions, folder, env }) {
  const server = spawn(
    process.execPath,
    [
      codeServer,
      "--auth", "none",
      "--bind-addr", `127.0.0.1:${port}`,
      "--user-data-dir", userData,
      "--extensions-dir", extensions,
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      folder,
    ],
    { detached: true, stdio: ["ignore", "pipe", "pipe"], ...(env ? { env } : {}) },
  );
  let log = "";
  server.stdout.on("data", (chunk) => (log += chunk));
  server.stderr.on("data", (chunk) => (log += chunk));
  return { server, log: () => log };
}

export async function quickOpen(page, file) {
  await page.keyboard.press("Control+P");
  await page.locator(".quick-input-widget input.input").waitFor();
  await page.keyboard.type(file);
  // Enter would open the top row, which may be another file that matches the typed
  // letters (slow_agent.py for slow.scenario.yaml, seen in CI): click the file's own row.
  const row = page.locator(".quick-input-list .monaco-list-row", { hasText: file }).first();
  await row.waitFor();
  await row.click();
  await page.locator(".tabs-container .tab.active", { hasText: file.split("/").pop() }).first().waitFor({ timeout: 30_000 });
}
