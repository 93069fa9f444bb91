// Which executable starts the language server. Pure (the file system is passed in) so
// every rule below is unit-tested without VS Code.
//
// Order: the `checkspec.server.path` setting; else `checkspec` in a workspace virtualenv
// (.venv, then venv) — the one that has the project's own dependencies, which a run
// imports; else `checkspec` on PATH; else the server bundled in the extension
// (bundled/libs, made by tools/bundle_server.py), run by the Python the Python extension
// selects, else the first `python3` on PATH.

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
}

/** The bundled server: its libraries and the Python they were built for (bundle.json). */
export interface BundledServer {
  /** The folder put first on the server's PYTHONPATH. */
  libs: string;
  /** "3.11": the minor version its binary libraries (pydantic-core...) were built for. */
  python: string;
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
      /** Set for the bundled server: the environment it needs, and the Python to check. */
      env?: Record<string, string>;
      requiresPython?: string;
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
    const pythons = [
      ...(bundled.selectedPython ? [bundled.selectedPython] : []),
      ...onPath(input.platform === "win32" ? "python" : "python3", input, path),
    ];
    for (const python of pythons) {
      tried.push(python);
      if (fs.isExecutable(python)) {
        return {
          ok: true,
          command: python,
          args: ["-m", "checkspec.server"],
          source: "bundled",
          env: { PYTHONPATH: bundled.libs },
          requiresPython: bundled.python,
        };
      }
    }
    return notFound(
      `checkspec's bundled language server needs Python ${bundled.python} (>= ${MIN_PYTHON}), and no Python was ` +
        "found: install one (or select it with the Python extension), or install checkspec in the workspace's .venv.",
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

/**
 * Why the bundled server cannot run on a Python of this version ("3.12"), or undefined when
 * it can: Python >= 3.11, and the minor version its binary libraries were built for.
 */
export function bundledPythonProblem(version: string, python: string, required: string): string | undefined {
  const [major, minor] = version.trim().split(".").map(Number);
  if (major === undefined || minor === undefined || Number.isNaN(major) || Number.isNaN(minor)) {
    return `${python} did not say its version (${version.trim() || "no answer"}): checkspec needs Python >= ${MIN_PYTHON}.`;
  }
  const [minMajor, minMinor] = MIN_PYTHON.split(".").map(Number) as [number, number];
  if (major < minMajor || (major === minMajor && minor < minMinor)) {
    return `${python} is Python ${major}.${minor}; checkspec needs Python >= ${MIN_PYTHON}. Install a newer Python (or select one with the Python extension), or set checkspec.server.path.`;
  }
  if (`${major}.${minor}` !== required) {
    return `${python} is Python ${major}.${minor}, but this checkspec extension bundles its server for Python ${required}. Select a Python ${required} (Python extension), or install checkspec in the workspace's .venv (pip install checkspec).`;
  }
  return undefined;
}
