// VS Code settings -> the `checkspec` object the server reads (initializationOptions,
// workspace/didChangeConfiguration, workspace/configuration). Pure: it takes a reader.
//
// Only the keys the server knows are sent, and unset ones are left out rather than sent
// as "" or null, so the server falls back to the environment and checkspec.yaml exactly as
// the CLI does.

import { CATALOG, type SettingEntry } from "./catalog";

export const SECTION = "checkspec";

/** What the server's `EditorSettings.from_client` reads (server/lsp/settings.py): the
 * catalog's editor settings, by their camelCase key. */
export type CheckspecOptions = Record<string, string | number>;

export interface InitializationOptions {
  checkspec: CheckspecOptions;
}

/** Reads a key under the `checkspec` section, e.g. `read("model")`. */
export type SettingReader = (key: string) => unknown;

/** Keys whose change needs a new server process rather than a notification. */
export const RESTART_KEYS = ["server.path", "server.args"] as const;

/** Editor-only settings that start runs: left out in an untrusted workspace (runs import
 * the workspace's code), so the server keeps their default, off. */
const RUNS_NEED_TRUST = new Set(["runOnSave"]);

export function serverOptions(read: SettingReader, trusted = true): CheckspecOptions {
  const options: CheckspecOptions = {};
  // Editor-only settings (issue 28 item 2): a value among the catalog's choices, left out
  // when it is the default (as VS Code returns for an unset key).
  for (const choice of CATALOG.editorChoices) {
    const value = read(choice.key);
    if (!trusted && RUNS_NEED_TRUST.has(choice.key)) continue;
    if (typeof value === "string" && value !== choice.default && choice.enum.includes(value)) options[choice.key] = value;
  }
  for (const setting of CATALOG.settings) {
    const value = read(setting.key);
    if (setting.enum !== undefined) {
      // A choice (diagnostics.scope): VS Code reads its default when unset, which stays unsent.
      if (typeof value === "string" && setting.enum.includes(value) && value !== setting.default)
        options[setting.key] = value;
    } else if (setting.type === "string") {
      if (typeof value === "string" && value.trim() !== "") options[setting.key] = value.trim();
    } else if (setting.type !== "boolean" && typeof value === "number" && within(setting, value)) {
      options[setting.key] = value;
    }
  }
  return options;
}

/** A finite number of the setting's type within its bounds (as the server checks). */
function within(setting: SettingEntry, value: number): boolean {
  if (!Number.isFinite(value)) return false;
  if (setting.type === "integer" && !Number.isInteger(value)) return false;
  if (setting.minimum !== undefined && value < setting.minimum) return false;
  if (setting.maximum !== undefined && value > setting.maximum) return false;
  return setting.exclusiveMinimum === undefined || value > setting.exclusiveMinimum;
}

export function initializationOptions(read: SettingReader, trusted = true): InitializationOptions {
  return { [SECTION]: serverOptions(read, trusted) };
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
