import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bundledPythonProblem, resolveServerCommand, type FileSystem, type ServerCommandInput } from "../src/serverCommand";

function fakeFs(...executables: string[]): FileSystem & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    isExecutable: (path) => {
      asked.push(path);
      return executables.includes(path);
    },
  };
}

const base: ServerCommandInput = {
  configuredPath: "",
  args: ["lsp"],
  workspaceFolders: ["/work/project"],
  envPath: "/usr/local/bin:/usr/bin",
  home: "/home/me",
  platform: "linux",
  trusted: true,
};

describe("resolveServerCommand", () => {
  it("prefers the workspace .venv over PATH", () => {
    const fs = fakeFs("/work/project/.venv/bin/checkspec", "/usr/bin/checkspec");
    assert.deepEqual(resolveServerCommand(base, fs), {
      ok: true,
      command: "/work/project/.venv/bin/checkspec",
      args: ["lsp"],
      source: "workspace",
    });
  });

  it("tries venv/ after .venv/, in each folder in order", () => {
    const fs = fakeFs("/work/other/venv/bin/checkspec");
    const result = resolveServerCommand({ ...base, workspaceFolders: ["/work/project", "/work/other"] }, fs);
    assert.equal(result.ok && result.command, "/work/other/venv/bin/checkspec");
    assert.deepEqual(fs.asked, [
      "/work/project/.venv/bin/checkspec",
      "/work/project/venv/bin/checkspec",
      "/work/other/.venv/bin/checkspec",
      "/work/other/venv/bin/checkspec",
    ]);
  });

  it("falls back to the first checkspec on PATH", () => {
    const fs = fakeFs("/usr/bin/checkspec");
    assert.deepEqual(resolveServerCommand(base, fs), {
      ok: true,
      command: "/usr/bin/checkspec",
      args: ["lsp"],
      source: "path",
    });
  });

  it("never runs a workspace's own .venv in an untrusted workspace", () => {
    const fs = fakeFs("/work/project/.venv/bin/checkspec", "/usr/bin/checkspec");
    const result = resolveServerCommand({ ...base, trusted: false }, fs);
    assert.equal(result.ok && result.command, "/usr/bin/checkspec");
    assert.ok(!fs.asked.some((path) => path.startsWith("/work/project")));
  });

  it("says where it looked when nothing is found", () => {
    const result = resolveServerCommand(base, fakeFs());
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.message.includes("checkspec.server.path"));
    assert.deepEqual(!result.ok && result.tried, [
      "/work/project/.venv/bin/checkspec",
      "/work/project/venv/bin/checkspec",
      "/usr/local/bin/checkspec",
      "/usr/bin/checkspec",
    ]);
  });

  it("uses the setting as given, with its args, and looks nowhere else", () => {
    const fs = fakeFs("/opt/checkspec/bin/checkspec", "/work/project/.venv/bin/checkspec");
    const input = { ...base, configuredPath: " /opt/checkspec/bin/checkspec ", args: ["lsp", "--verbose"] };
    assert.deepEqual(resolveServerCommand(input, fs), {
      ok: true,
      command: "/opt/checkspec/bin/checkspec",
      args: ["lsp", "--verbose"],
      source: "setting",
    });
    assert.deepEqual(fs.asked, ["/opt/checkspec/bin/checkspec"]);
  });

  it("reports a configured path that is not executable instead of guessing", () => {
    const result = resolveServerCommand({ ...base, configuredPath: "/nope/checkspec" }, fakeFs("/usr/bin/checkspec"));
    assert.ok(!result.ok && result.message.includes('"/nope/checkspec"'));
  });

  it("resolves a relative setting against the first workspace folder", () => {
    const fs = fakeFs("/work/project/tools/checkspec");
    const result = resolveServerCommand({ ...base, configuredPath: "./tools/checkspec" }, fs);
    assert.equal(result.ok && result.command, "/work/project/tools/checkspec");
  });

  it("expands ${workspaceFolder}, ${userHome} and ~", () => {
    const fs = fakeFs("/work/project/.venv/bin/checkspec", "/home/me/.local/bin/checkspec");
    const a = resolveServerCommand({ ...base, configuredPath: "${workspaceFolder}/.venv/bin/checkspec" }, fs);
    const b = resolveServerCommand({ ...base, configuredPath: "~/.local/bin/checkspec" }, fs);
    const c = resolveServerCommand({ ...base, configuredPath: "${userHome}/.local/bin/checkspec" }, fs);
    assert.equal(a.ok && a.command, "/work/project/.venv/bin/checkspec");
    assert.equal(b.ok && b.command, "/home/me/.local/bin/checkspec");
    assert.equal(c.ok && c.command, "/home/me/.local/bin/checkspec");
  });

  it("looks a bare command name up on PATH (python -m checkspec.server)", () => {
    const fs = fakeFs("/usr/bin/python3");
    const input = { ...base, configuredPath: "python3", args: ["-m", "checkspec.server"] };
    assert.deepEqual(resolveServerCommand(input, fs), {
      ok: true,
      command: "/usr/bin/python3",
      args: ["-m", "checkspec.server"],
      source: "setting",
    });
    assert.equal(resolveServerCommand({ ...input, configuredPath: "python9" }, fs).ok, false);
  });

  it("keeps an empty args list empty (a wrapper script may take none)", () => {
    const result = resolveServerCommand({ ...base, args: [] }, fakeFs("/usr/bin/checkspec"));
    assert.deepEqual(result.ok && result.args, []);
  });

  it("uses Scripts\\checkspec.exe and PATHEXT on Windows", () => {
    const windows: ServerCommandInput = {
      ...base,
      platform: "win32",
      workspaceFolders: ["C:\\work\\project"],
      envPath: "C:\\Python311\\Scripts;C:\\Windows",
      envPathExt: ".COM;.EXE;.BAT",
    };
    const venv = resolveServerCommand(windows, fakeFs("C:\\work\\project\\.venv\\Scripts\\checkspec.exe"));
    assert.equal(venv.ok && venv.command, "C:\\work\\project\\.venv\\Scripts\\checkspec.exe");
    const fs = fakeFs("C:\\Python311\\Scripts\\checkspec.exe");
    const onPath = resolveServerCommand(windows, fs);
    assert.equal(onPath.ok && onPath.command, "C:\\Python311\\Scripts\\checkspec.exe");
    assert.ok(fs.asked.includes("C:\\Python311\\Scripts\\checkspec.com"));
  });

  it("works with no workspace folder and no PATH", () => {
    const result = resolveServerCommand({ ...base, workspaceFolders: [], envPath: undefined }, fakeFs());
    assert.deepEqual(!result.ok && result.tried, []);
  });
});

describe("the bundled server (last in the order)", () => {
  const bundled = { libs: "/ext/bundled/libs", python: "3.11" };
  const withBundle: ServerCommandInput = { ...base, bundled };

  it("comes after the setting, the workspace .venv and PATH", () => {
    const all = ["/x/checkspec", "/work/project/.venv/bin/checkspec", "/usr/bin/checkspec", "/usr/bin/python3"];
    const source = (fs: FileSystem, input: ServerCommandInput = withBundle) => {
      const found = resolveServerCommand(input, fs);
      return found.ok ? found.source : found.message;
    };
    assert.equal(source(fakeFs(...all), { ...withBundle, configuredPath: "/x/checkspec" }), "setting");
    assert.equal(source(fakeFs(...all)), "workspace");
    assert.equal(source(fakeFs(...all.slice(2))), "path");
    assert.equal(source(fakeFs(...all.slice(3))), "bundled");
  });

  it("runs the bundled libraries with the Python the Python extension selects, else python3 on PATH", () => {
    const selected = { ...withBundle, bundled: { ...bundled, selectedPython: "/envs/p311/bin/python" } };
    assert.deepEqual(resolveServerCommand(selected, fakeFs("/envs/p311/bin/python", "/usr/bin/python3")), {
      ok: true,
      command: "/envs/p311/bin/python",
      args: ["-m", "checkspec.server"],
      source: "bundled",
      env: { PYTHONPATH: "/ext/bundled/libs" },
      requiresPython: "3.11",
    });
    const found = resolveServerCommand(selected, fakeFs("/usr/bin/python3"));
    assert.equal(found.ok && found.command, "/usr/bin/python3");
  });

  it("says so clearly when there is no Python at all", () => {
    const found = resolveServerCommand(withBundle, fakeFs());
    assert.equal(found.ok, false);
    assert.match(!found.ok ? found.message : "", /needs Python 3\.11 \(>= 3\.11\), and no Python was found/);
    assert.ok(!found.ok && found.tried.includes("/usr/bin/python3"));
  });

  it("without a bundle, PATH is the last place looked", () => {
    const found = resolveServerCommand(base, fakeFs("/usr/bin/python3"));
    assert.equal(found.ok, false);
    assert.match(!found.ok ? found.message : "", /was not found/);
  });

  it("checks the Python's version: >= 3.11 and the bundle's own", () => {
    assert.equal(bundledPythonProblem("3.11\n", "/usr/bin/python3", "3.11"), undefined);
    assert.match(bundledPythonProblem("3.9", "/usr/bin/python3", "3.11") ?? "", /is Python 3\.9; checkspec needs Python >= 3\.11/);
    assert.match(bundledPythonProblem("3.12", "/usr/bin/python3", "3.11") ?? "", /bundles its server for Python 3\.11/);
    assert.match(bundledPythonProblem("", "/usr/bin/python3", "3.11") ?? "", /did not say its version/);
  });
});
