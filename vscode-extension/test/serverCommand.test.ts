import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { spawnSync } from "node:child_process";
import {
  PYTHON_PROBE,
  chooseBundledPython,
  pythonTarget,
  resolveServerCommand,
  type BundledServer,
  type FileSystem,
  type ServerCommandInput,
} from "../src/serverCommand";

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
  const bundled: BundledServer = {
    folder: "/ext/bundled",
    target: "linux-x64",
    pythons: {
      "3.11": ["libs/cp311", "libs/common"],
      "3.12": ["libs/cp312", "libs/common"],
      "3.13": ["libs/cp313", "libs/common"],
    },
  };
  const withBundle: ServerCommandInput = { ...base, arch: "x64", bundled };

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

  it("offers the selected Python, then python3, then python3.13 to 3.11 on PATH, in that order", () => {
    const selected = { ...withBundle, bundled: { ...bundled, selectedPython: "/envs/p311/bin/python" } };
    const fs = fakeFs("/envs/p311/bin/python", "/usr/bin/python3", "/usr/local/bin/python3.12", "/usr/bin/python3.11");
    assert.deepEqual(resolveServerCommand(selected, fs), {
      ok: true,
      command: "/envs/p311/bin/python",
      args: ["-m", "checkspec.server"],
      source: "bundled",
      bundle: selected.bundled,
      pythons: ["/envs/p311/bin/python", "/usr/bin/python3", "/usr/local/bin/python3.12", "/usr/bin/python3.11"],
    });
    const found = resolveServerCommand(selected, fakeFs("/usr/bin/python3.13"));
    assert.equal(found.ok && found.command, "/usr/bin/python3.13");
  });

  it("on Windows looks for python.exe", () => {
    const windows = {
      ...withBundle,
      platform: "win32" as const,
      envPath: "C:\\Python313",
      bundled: { ...bundled, target: "win32-x64", folder: "C:\\ext\\bundled" },
    };
    const found = resolveServerCommand(windows, fakeFs("C:\\Python313\\python.exe"));
    assert.equal(found.ok && found.command, "C:\\Python313\\python.exe");
  });

  it("says so clearly when there is no Python at all", () => {
    const found = resolveServerCommand(withBundle, fakeFs());
    assert.equal(found.ok, false);
    assert.match(
      !found.ok ? found.message : "",
      /needs Python 3\.11, 3\.12 or 3\.13 for linux-x64, and no Python was found.*checkspec\.server\.path/,
    );
    assert.ok(!found.ok && found.tried.includes("/usr/bin/python3"));
  });

  it("refuses a package built for another platform, naming the one to install", () => {
    const found = resolveServerCommand({ ...withBundle, platform: "darwin", arch: "arm64" }, fakeFs("/usr/bin/python3"));
    assert.equal(found.ok, false);
    assert.match(
      !found.ok ? found.message : "",
      /carries its language server for linux-x64, and VS Code runs on darwin-arm64: install the checkspec extension built for darwin-arm64, or .*checkspec\.server\.path/,
    );
  });

  it("without a bundle, PATH is the last place looked", () => {
    const found = resolveServerCommand(base, fakeFs("/usr/bin/python3"));
    assert.equal(found.ok, false);
    assert.match(!found.ok ? found.message : "", /was not found/);
  });
});

describe("chooseBundledPython: the folders matching the Python found", () => {
  const bundled: BundledServer = {
    folder: "/ext/bundled",
    target: "darwin-arm64",
    pythons: {
      "3.11": ["libs/cp311", "libs/common"],
      "3.12": ["libs/cp312", "libs/common"],
      "3.13": ["libs/cp313", "libs/common"],
    },
  };

  it("puts that minor version's folder, then the shared one, on PYTHONPATH", () => {
    for (const minor of ["11", "12", "13"]) {
      assert.deepEqual(chooseBundledPython(bundled, [{ python: "/p", answer: `3.${minor} darwin arm64\n` }], "darwin"), {
        ok: true,
        python: "/p",
        env: { PYTHONPATH: `/ext/bundled/libs/cp3${minor}:/ext/bundled/libs/common` },
      });
    }
  });

  it("joins the folders with ; on Windows", () => {
    const windows = { ...bundled, target: "win32-x64", folder: "C:\\ext\\bundled" };
    const chosen = chooseBundledPython(windows, [{ python: "py", answer: "3.12 win32 AMD64" }], "win32");
    assert.deepEqual(chosen.ok && chosen.env, { PYTHONPATH: "C:\\ext\\bundled\\libs\\cp312;C:\\ext\\bundled\\libs\\common" });
  });

  it("takes the first Python that fits, skipping those that do not", () => {
    const chosen = chooseBundledPython(
      bundled,
      [
        { python: "/old", answer: "3.9 darwin arm64" },
        { python: "/new", answer: "3.14 darwin arm64" },
        { python: "/ok", answer: "3.12 darwin arm64" },
      ],
      "darwin",
    );
    assert.equal(chosen.ok && chosen.python, "/ok");
  });

  it("an interpreter older than 3.11 gets a clear message", () => {
    const chosen = chooseBundledPython(bundled, [{ python: "/usr/bin/python3", answer: "3.9 darwin arm64" }], "darwin");
    assert.equal(chosen.ok, false);
    const message = !chosen.ok ? chosen.message : "";
    assert.match(message, /\/usr\/bin\/python3 is Python 3\.9, older than 3\.11, the oldest checkspec runs on/);
    assert.match(message, /checkspec needs Python 3\.11 or newer/);
    assert.match(message, /runs on Python 3\.11, 3\.12 or 3\.13 for darwin-arm64/);
    assert.match(message, /set checkspec\.server\.path to its `checkspec` executable/);
  });

  it("the probe is answered by any Python, 2.7 included, in the shape the choice reads", () => {
    const python = spawnSync("python3", ["-c", PYTHON_PROBE], { encoding: "utf8" });
    assert.match(python.stdout, /^3\.\d+ \w+ \w+\n$/);
    const old = chooseBundledPython(bundled, [{ python: "/usr/bin/python", answer: "2.7 darwin arm64\n" }], "darwin");
    assert.match(!old.ok ? old.message : "", /\/usr\/bin\/python is Python 2\.7, older than 3\.11/);
  });

  it("a version with no folder says which Pythons would work and how to set checkspec.server.path", () => {
    const chosen = chooseBundledPython(bundled, [{ python: "/opt/py314/bin/python3", answer: "3.14 darwin arm64" }], "darwin");
    assert.equal(chosen.ok, false);
    const message = !chosen.ok ? chosen.message : "";
    assert.match(message, /\/opt\/py314\/bin\/python3 is Python 3\.14, which this extension carries no server for/);
    assert.match(message, /runs on Python 3\.11, 3\.12 or 3\.13 for darwin-arm64/);
    assert.match(message, /pip install checkspec.*checkspec\.server\.path/);
    assert.doesNotMatch(message, /or newer/);
  });

  it("a Python of another platform (an Intel Python on Apple silicon) does not fit", () => {
    const chosen = chooseBundledPython(bundled, [{ python: "/usr/local/bin/python3", answer: "3.12 darwin x86_64" }], "darwin");
    assert.match(!chosen.ok ? chosen.message : "", /\/usr\/local\/bin\/python3 is a Python for darwin-x64/);
  });

  it("a Python that does not answer is named with what it said", () => {
    const chosen = chooseBundledPython(bundled, [{ python: "/broken", answer: "" }], "darwin");
    assert.match(!chosen.ok ? chosen.message : "", /\/broken did not say its version \(no answer\)/);
  });

  it("maps Python's platform names to VS Code's targets", () => {
    assert.equal(pythonTarget("linux", "x86_64"), "linux-x64");
    assert.equal(pythonTarget("linux", "aarch64"), "linux-arm64");
    assert.equal(pythonTarget("darwin", "arm64"), "darwin-arm64");
    assert.equal(pythonTarget("win32", "AMD64"), "win32-x64");
  });
});
