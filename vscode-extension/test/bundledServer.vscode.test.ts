// The bundled server through the ServerManager (src/client.ts) against the fake VS Code: an
// extension folder with bundled/bundle.json, and fake Pythons on PATH (shell scripts that
// answer the version probe): the manager asks each in turn, starts the first the bundle has
// folders for with those folders on PYTHONPATH, and otherwise says why none fits.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { ServerManager } from "../src/client";
import { fake, resetAll, server } from "./fake/harness";
import { OutputChannel, window } from "./fake/vscode";

const here = `${process.platform}-${process.arch}`;
const savedPath = process.env["PATH"];
let output: OutputChannel;
let manager: ServerManager | undefined;

beforeEach(() => {
  resetAll();
  output = window.createOutputChannel("checkspec");
  fake.setting("checkspec.server.path", "");
});
afterEach(() => {
  manager?.dispose();
  process.env["PATH"] = savedPath;
});

/** An extension folder whose bundle is for `target`, with a folder per Python 3.11-3.13. */
function extensionWithBundle(target = here): string {
  const extension = mkdtempSync(join(tmpdir(), "checkspec-ext-"));
  const pythons = Object.fromEntries(
    ["3.11", "3.12", "3.13"].map((v) => [v, [`libs/cp3${v.split(".")[1]}`, "libs/common"]]),
  );
  mkdirSync(join(extension, "bundled"));
  writeFileSync(join(extension, "bundled", "bundle.json"), JSON.stringify({ checkspec: "0.1.0", target, pythons }));
  return extension;
}

/** PATH: a folder of fake Pythons, each printing its answer to the probe. */
function pythonsOnPath(answers: Record<string, string>): string {
  const bin = mkdtempSync(join(tmpdir(), "checkspec-pythons-"));
  for (const [name, answer] of Object.entries(answers)) {
    writeFileSync(join(bin, name), `#!/bin/sh\necho '${answer}'\n`, { mode: 0o755 });
  }
  process.env["PATH"] = bin;
  return bin;
}

describe("the bundled server, started by the manager", { skip: process.platform === "win32" }, () => {
  it("skips a Python that does not fit and runs the first that does, with its folders on PYTHONPATH", async () => {
    const extension = extensionWithBundle();
    const machine = process.arch === "arm64" ? "aarch64" : "x86_64";
    const bin = pythonsOnPath({ python3: `3.10 ${process.platform} ${machine}`, "python3.12": `3.12 ${process.platform} ${machine}` });
    manager = new ServerManager(output as never, extension);
    assert.ok(await manager.ready());
    const options = server.client.serverOptions as { command: string; args: string[]; options: { env?: Record<string, string> } };
    assert.equal(options.command, join(bin, "python3.12"));
    assert.deepEqual(options.args, ["-m", "checkspec.server"]);
    assert.equal(
      options.options.env?.["PYTHONPATH"],
      [join(extension, "bundled", "libs", "cp312"), join(extension, "bundled", "libs", "common")].join(":"),
    );
    assert.equal(manager.info?.source, "bundled");
  });

  it("an interpreter older than 3.11 alone: a clear message naming what would work", async () => {
    pythonsOnPath({ python3: `3.9 ${process.platform} x86_64` });
    manager = new ServerManager(output as never, extensionWithBundle());
    assert.equal(await manager.ready(), undefined);
    assert.equal(manager.state, "failed");
    const message = fake.messages("error")[0]?.message ?? "";
    assert.match(message, /python3 is Python 3\.9, older than 3\.11/);
    assert.match(message, new RegExp(`runs on Python 3\\.11, 3\\.12 or 3\\.13 for ${here}`));
    assert.match(message, /checkspec\.server\.path/);
    assert.equal(server.clients.length, 0);
  });

  it("a package for another platform says which to install", async () => {
    pythonsOnPath({ python3: "3.12 win32 AMD64" });
    const other = here === "win32-x64" ? "linux-x64" : "win32-x64";
    manager = new ServerManager(output as never, extensionWithBundle(other));
    assert.equal(await manager.ready(), undefined);
    assert.match(fake.messages("error")[0]?.message ?? "", new RegExp(`for ${other}, and VS Code runs on ${here}: install the checkspec extension built for ${here}`));
  });
});
