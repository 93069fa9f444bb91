// VS Code settings -> the `checkspec` object the server reads (initializationOptions,
// workspace/didChangeConfiguration, workspace/configuration). Pure: it takes a reader.
//
// Only the keys the server knows are sent, and unset ones are left out rather than sent
// as "" or null, so the server falls back to the environment and checkspec.yaml exactly as
// the CLI does.

export const SECTION = "checkspec";

/** What the server's `EditorSettings.from_client` reads (server/lsp/settings.py). */
export interface CheckspecOptions {
  model?: string;
  embeddingModel?: string;
  apiBase?: string;
  embeddingApiBase?: string;
  target?: string;
  concurrency?: number;
  maxFileSize?: number;
  jobs?: number;
  targetTimeout?: number;
  scenarioTimeout?: number;
  python?: string;
}

export interface InitializationOptions {
  checkspec: CheckspecOptions;
}

/** Reads a key under the `checkspec` section, e.g. `read("model")`. */
export type SettingReader = (key: string) => unknown;

const TEXT_KEYS = ["model", "embeddingModel", "apiBase", "embeddingApiBase", "target", "python"] as const;
const COUNT_KEYS = ["concurrency", "maxFileSize", "jobs"] as const;
const SECONDS_KEYS = ["targetTimeout", "scenarioTimeout"] as const;

/** Keys whose change needs a new server process rather than a notification. */
export const RESTART_KEYS = ["server.path", "server.args"] as const;

export function serverOptions(read: SettingReader): CheckspecOptions {
  const options: CheckspecOptions = {};
  for (const key of TEXT_KEYS) {
    const value = read(key);
    if (typeof value === "string" && value.trim() !== "") options[key] = value.trim();
  }
  for (const key of COUNT_KEYS) {
    const value = read(key);
    if (typeof value === "number" && Number.isInteger(value) && value > 0) options[key] = value;
  }
  for (const key of SECONDS_KEYS) {
    const value = read(key);
    if (typeof value === "number" && Number.isFinite(value) && value > 0) options[key] = value;
  }
  return options;
}

export function initializationOptions(read: SettingReader): InitializationOptions {
  return { [SECTION]: serverOptions(read) };
}

/** Reads from a plain object shaped like the `checkspec` section (`{model, server: {path}}`). */
export function readerOf(section: unknown): SettingReader {
  return (key) => {
    let value: unknown = section;
    for (const part of key.split(".")) {
      if (typeof value !== "object" || value === null) return undefined;
      value = (value as Record<string, unknown>)[part];
    }
    return value;
  };
}

/**
 * `checkspec.server.args`, keeping only strings (a hand-edited settings.json may hold
 * anything); `["lsp"]` when unset. An empty list stays empty: a wrapper script may want none.
 */
export function serverArgs(read: SettingReader): string[] {
  const value = read("server.args");
  return Array.isArray(value) ? value.filter((arg): arg is string => typeof arg === "string") : ["lsp"];
}

export function serverPath(read: SettingReader): string {
  const value = read("server.path");
  return typeof value === "string" ? value : "";
}

export type RunOnSave = "off" | "scenario" | "file";

/** `checkspec.runOnSave`: what a save runs (anything unknown is `off`). */
export function runOnSave(read: SettingReader): RunOnSave {
  const value = read("runOnSave");
  return value === "scenario" || value === "file" ? value : "off";
}
