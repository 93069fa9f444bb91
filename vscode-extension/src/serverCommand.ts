// Which executable starts the language server. Pure (the file system is passed in) so
// every rule below is unit-tested without VS Code.
//
// Order: the `checkspec.server.path` setting; else `checkspec` in a workspace virtualenv
// (.venv, then venv) — the one that has the project's own dependencies, which a run
// imports; else `checkspec` on PATH; else the server bundled in the extension
// (bundled/libs, made by tools/bundle_server.py for one VS Code target and Python 3.11 to
// 3.13), run by the first Python that fits: the one the Python extension selects, else
// `python3`, `python3.13`... on PATH (chooseBundledPython, once each has said its version).

import * as nodePath from "node:path";

export interface FileSystem {
  /** True for an existing file this process may execute. */
  isExecutable(path: string): boolean;
}

export interface ServerCommandInput {
  /** `checkspec.server.path`; empty means "find it". */
  configuredPath: string;
  /** `checkspec.server.args`, as given (see settings.serverArgs). */
  args: readonly string[];
  /** File-system paths of the workspace folders, in order. */
  workspaceFolders: readonly string[];
  /** The PATH environment variable. */
  envPath: string | undefined;
  /** PATHEXT on Windows (".EXE;.CMD;..."). */
  envPathExt?: string | undefined;
  /** The user's home directory, for a leading `~` in the setting. */
  home?: string | undefined;
  platform: NodeJS.Platform;
  /**
   * Whether the workspace is trusted. An untrusted workspace could ship a `.venv/bin/checkspec`
   * of its own, so it is never looked up there.
   */
  trusted: boolean;
  /** The server bundled in the extension, when the .vsix carries one. */
  bundled?: BundledServer | undefined;
  /** `process.arch` ("x64", "arm64"): with `platform`, the VS Code target this runs on. */
  arch?: string | undefined;
}

/**
 * The server bundled in the .vsix (bundled/bundle.json, written by tools/bundle_server.py):
 * one VS Code target, and per Python minor version the folders to put on its path.
 */
export interface BundledServer {
  /** The bundle's folder (`<extension>/bundled`); the folders in `pythons` are relative to it. */
  folder: string;
  /** The VS Code target it was built for: "linux-x64", "darwin-arm64", "win32-x64"... */
  target: string;
  /** "3.12" -> ["libs/cp312", "libs/common"]: what that Python puts first on its path. */
  pythons: Readonly<Record<string, readonly string[]>>;
  /** The interpreter the Python extension selects, if it is installed and selects one. */
  selectedPython?: string | undefined;
}

export type ServerSource = "setting" | "workspace" | "path" | "bundled";

export type ServerCommandResult =
  | {
      ok: true;
      command: string;
      args: string[];
      source: ServerSource;
      /** The environment the server needs (the bundled server's PYTHONPATH). */
      env?: Record<string, string>;
      /**
       * Set for the bundled server: the bundle, and every Python found, in order (`command`
       * is the first); the caller asks each its version (PYTHON_PROBE) and `chooseBundledPython`
       * picks the first the bundle has a server for.
       */
      bundle?: BundledServer;
      pythons?: string[];
    }
  | { ok: false; message: string; tried: string[] };

/** The oldest Python checkspec runs on. */
export const MIN_PYTHON = "3.11";

export const SERVER_NAME = "checkspec";
const VENV_NAMES = [".venv", "venv"];

export function resolveServerCommand(input: ServerCommandInput, fs: FileSystem): ServerCommandResult {
  const path = input.platform === "win32" ? nodePath.win32 : nodePath.posix;
  const args = [...input.args];
  const configured = expand(input.configuredPath.trim(), input);

  if (configured !== "") {
    const hasDirectory = configured.includes("/") || (input.platform === "win32" && configured.includes("\\"));
    if (!hasDirectory) {
      // A bare command name ("checkspec", "python") is looked up on PATH like a shell would.
      const tried = onPath(configured, input, path);
      const found = tried.find((candidate) => fs.isExecutable(candidate));
      return found !== undefined
        ? { ok: true, command: found, args, source: "setting" }
        : notFound(`checkspec.server.path "${input.configuredPath}" was not found on PATH.`, tried);
    }
    const base = input.workspaceFolders[0];
    const absolute = path.isAbsolute(configured) || base === undefined ? configured : path.resolve(base, configured);
    return fs.isExecutable(absolute)
      ? { ok: true, command: absolute, args, source: "setting" }
      : notFound(`checkspec.server.path "${input.configuredPath}" is not an executable file.`, [absolute]);
  }

  const tried: string[] = [];
  if (input.trusted) {
    for (const folder of input.workspaceFolders) {
      for (const venv of VENV_NAMES) {
        for (const candidate of inVenv(path.join(folder, venv), input, path)) {
          tried.push(candidate);
          if (fs.isExecutable(candidate)) return { ok: true, command: candidate, args, source: "workspace" };
        }
      }
    }
  }
  for (const candidate of onPath(SERVER_NAME, input, path)) {
    tried.push(candidate);
    if (fs.isExecutable(candidate)) return { ok: true, command: candidate, args, source: "path" };
  }
  const bundled = input.bundled;
  if (bundled !== undefined) {
    const here = `${input.platform}-${input.arch ?? ""}`;
    if (input.arch !== undefined && here !== bundled.target) {
      return notFound(
        `This checkspec extension carries its language server for ${bundled.target}, and VS Code runs on ${here}: ` +
          `install the checkspec extension built for ${here}, or ${SERVER_PATH_HINT}.`,
        tried,
      );
    }
    const names =
      input.platform === "win32"
        ? ["python"]
        : ["python3", ...Object.keys(bundled.pythons).sort().reverse().map((v) => `python${v}`)];
    const candidates = [
      ...(bundled.selectedPython ? [bundled.selectedPython] : []),
      ...names.flatMap((name) => onPath(name, input, path)),
    ];
    const pythons: string[] = [];
    for (const python of candidates) {
      tried.push(python);
      if (fs.isExecutable(python) && !pythons.includes(python)) pythons.push(python);
    }
    const [first] = pythons;
    if (first !== undefined) {
      return { ok: true, command: first, args: ["-m", "checkspec.server"], source: "bundled", bundle: bundled, pythons };
    }
    return notFound(
      `checkspec's bundled language server needs ${pythonList(bundled)}, and no Python was found: install one ` +
        `(or select it with the Python extension), or ${SERVER_PATH_HINT}.`,
      tried,
    );
  }
  return notFound(
    "The checkspec language server was not found. Install checkspec in the workspace's .venv " +
      "(pip install checkspec) or set checkspec.server.path.",
    tried,
  );
}

function notFound(message: string, tried: string[]): ServerCommandResult {
  return { ok: false, message, tried };
}

/** `~` and `${workspaceFolder}` / `${userHome}`, the variables people put in path settings. */
function expand(value: string, input: ServerCommandInput): string {
  let result = value;
  const folder = input.workspaceFolders[0];
  if (folder !== undefined) result = result.split("${workspaceFolder}").join(folder);
  if (input.home !== undefined) {
    result = result.split("${userHome}").join(input.home);
    if (result === "~" || result.startsWith("~/") || result.startsWith("~\\")) result = input.home + result.slice(1);
  }
  return result;
}

function inVenv(venv: string, input: ServerCommandInput, path: nodePath.PlatformPath): string[] {
  return input.platform === "win32"
    ? [path.join(venv, "Scripts", `${SERVER_NAME}.exe`)]
    : [path.join(venv, "bin", SERVER_NAME)];
}

function onPath(name: string, input: ServerCommandInput, path: nodePath.PlatformPath): string[] {
  const directories = (input.envPath ?? "").split(path.delimiter).filter((d) => d !== "");
  // On Windows a command is found with any of PATHEXT's suffixes unless it already has one.
  const suffixes =
    input.platform === "win32" && path.extname(name) === ""
      ? (input.envPathExt ?? ".EXE;.CMD;.BAT").split(";").filter((s) => s !== "").map((s) => s.toLowerCase())
      : [""];
  return directories.flatMap((directory) => suffixes.map((suffix) => path.join(directory, name + suffix)));
}

const SERVER_PATH_HINT =
  "install checkspec (pip install checkspec, e.g. in the workspace's .venv) and set checkspec.server.path to its `checkspec` executable";

/**
 * What the bundled server asks each Python: "3.12 linux x86_64" (version, sys.platform,
 * machine). Written so a Python 2 answers too, and is then told it is too old.
 */
export const PYTHON_PROBE =
  "import sys, platform; sys.stdout.write('%d.%d %s %s\\n' % (sys.version_info[0], sys.version_info[1], sys.platform, platform.machine()))";

/** A Python and its answer to PYTHON_PROBE ("" when it gave none). */
export interface PythonProbe {
  python: string;
  answer: string;
}

/** "Python 3.11, 3.12 or 3.13 for linux-x64". */
function pythonList(bundle: BundledServer): string {
  const versions = Object.keys(bundle.pythons).sort((a, b) => Number(a.split(".")[1]) - Number(b.split(".")[1]));
  const list = versions.length <= 1 ? versions.join("") : `${versions.slice(0, -1).join(", ")} or ${versions.at(-1)}`;
  return `Python ${list} for ${bundle.target}`;
}

/** The VS Code target of a Python's `sys.platform` and `platform.machine()`: "darwin-arm64". */
export function pythonTarget(sysPlatform: string, machine: string): string {
  const arch = ({ x86_64: "x64", amd64: "x64", aarch64: "arm64", arm64: "arm64" } as Record<string, string>)[
    machine.toLowerCase()
  ];
  return `${sysPlatform}-${arch ?? machine}`;
}

/**
 * The first Python the bundle has a server for (its minor version and platform), with the
 * PYTHONPATH it runs with; else why none fits, naming the Pythons that would and how to
 * point checkspec.server.path at a server instead.
 */
export function chooseBundledPython(
  bundle: BundledServer,
  probes: readonly PythonProbe[],
  platform: NodeJS.Platform,
): { ok: true; python: string; env: Record<string, string> } | { ok: false; message: string } {
  const path = platform === "win32" ? nodePath.win32 : nodePath.posix;
  const [minMajor, minMinor] = MIN_PYTHON.split(".").map(Number) as [number, number];
  const reasons: string[] = [];
  let tooOld = false;
  for (const { python, answer } of probes) {
    const [version = "", sysPlatform = "", machine = ""] = answer.trim().split(/\s+/);
    const [major, minor] = version.split(".").map(Number);
    if (major === undefined || minor === undefined || Number.isNaN(major) || Number.isNaN(minor)) {
      reasons.push(`${python} did not say its version (${answer.trim() || "no answer"})`);
      continue;
    }
    if (major < minMajor || (major === minMajor && minor < minMinor)) {
      tooOld = true;
      reasons.push(`${python} is Python ${major}.${minor}, older than ${MIN_PYTHON}, the oldest checkspec runs on`);
      continue;
    }
    const target = pythonTarget(sysPlatform, machine);
    if (sysPlatform !== "" && target !== bundle.target) {
      reasons.push(`${python} is a Python for ${target}`);
      continue;
    }
    const folders = bundle.pythons[`${major}.${minor}`];
    if (folders === undefined) {
      reasons.push(`${python} is Python ${major}.${minor}, which this extension carries no server for`);
      continue;
    }
    const pythonPath = folders.map((folder) => path.join(bundle.folder, folder)).join(path.delimiter);
    return { ok: true, python, env: { PYTHONPATH: pythonPath } };
  }
  const older = tooOld ? ` checkspec needs Python ${MIN_PYTHON} or newer.` : "";
  return {
    ok: false,
    message:
      `checkspec's bundled language server runs on ${pythonList(bundle)}: ${reasons.join("; ") || "no Python was found"}.${older} ` +
      `Install or select (Python extension) one of those, or ${SERVER_PATH_HINT}.`,
  };
}
