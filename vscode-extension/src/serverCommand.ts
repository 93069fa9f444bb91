// Which executable starts the language server. Pure (the file system is passed in) so
// every rule below is unit-tested without VS Code.
//
// Order: the `checkspec.server.path` setting; else `checkspec` in a workspace virtualenv
// (.venv, then venv) — the one that has the project's own dependencies, which a run
// imports; else `checkspec` on PATH.

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
}

export type ServerSource = "setting" | "workspace" | "path";

export type ServerCommandResult =
  | { ok: true; command: string; args: string[]; source: ServerSource }
  | { ok: false; message: string; tried: string[] };

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
