// The LanguageClient: how the server is started (stdio), which documents it gets, and the
// settings it is sent. ServerManager owns the one client and its restarts.

import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as nodePath from "node:path";
import * as vscode from "vscode";
import { PROMPTS_CAPABILITY } from "./curateRequest";
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  RevealOutputChannelOn,
  State,
  type DynamicFeature,
  type LanguageClientOptions,
  type ServerOptions,
  type StaticFeature,
} from "vscode-languageclient/node";
import {
  PYTHON_PROBE,
  chooseBundledPython,
  resolveServerCommand,
  type BundledServer,
  type FileSystem,
  type ServerCommandResult,
} from "./serverCommand";
import { SECTION, initializationOptions, readerOf, serverArgs, serverOptions, serverPath } from "./settings";
import { SPEC_PATTERNS } from "./specFiles";

export const CLIENT_ID = "checkspec"; // also makes the client read `checkspec.trace.server`

const nodeFs: FileSystem = {
  isExecutable(path) {
    try {
      fs.accessSync(path, fs.constants.X_OK);
      return fs.statSync(path).isFile();
    } catch {
      return false;
    }
  },
};

function readSetting(key: string): unknown {
  return vscode.workspace.getConfiguration(SECTION).get(key);
}

// -- the bundled server (issue 28 item 5) ------------------------------------------------

/** The server bundled in the .vsix (tools/bundle_server.py), if this build carries one. */
function bundledServer(extensionPath: string | undefined, selectedPython: string | undefined): BundledServer | undefined {
  if (extensionPath === undefined) return undefined;
  const folder = nodePath.join(extensionPath, "bundled");
  try {
    const info = JSON.parse(fs.readFileSync(nodePath.join(folder, "bundle.json"), "utf8")) as {
      target?: unknown;
      pythons?: unknown;
    };
    if (typeof info.target !== "string" || typeof info.pythons !== "object" || info.pythons === null) return undefined;
    const pythons: Record<string, string[]> = {};
    for (const [version, folders] of Object.entries(info.pythons)) {
      if (Array.isArray(folders) && folders.every((f) => typeof f === "string")) pythons[version] = folders;
    }
    return { folder, target: info.target, pythons, selectedPython };
  } catch {
    return undefined;
  }
}

interface PythonApi {
  environments?: {
    getActiveEnvironmentPath?(resource?: vscode.Uri): { path: string } | undefined;
    resolveEnvironment?(env: { path: string }): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  };
}

/** The interpreter the Python extension (ms-python.python) selects for the first folder. */
async function selectedPython(): Promise<string | undefined> {
  const python = vscode.extensions.getExtension<PythonApi>("ms-python.python");
  if (python === undefined) return undefined;
  try {
    const api = python.isActive ? python.exports : await python.activate();
    const environments = api?.environments;
    const active = environments?.getActiveEnvironmentPath?.(vscode.workspace.workspaceFolders?.[0]?.uri);
    if (active === undefined) return undefined;
    const resolved = await environments?.resolveEnvironment?.(active);
    return resolved?.executable?.uri?.fsPath ?? active.path;
  } catch {
    return undefined; // an older Python extension: PATH's python3 then
  }
}

/** A Python's answer to PYTHON_PROBE ("3.12 linux x86_64"), or "" when it gave none. */
function probePython(python: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(python, ["-c", PYTHON_PROBE], { timeout: 20_000 }, (error, stdout) =>
      resolve(error ? "" : stdout),
    );
  });
}

// -- end of the bundled server -----------------------------------------------------------

export async function findServer(extensionPath?: string): Promise<ServerCommandResult> {
  const folders = (vscode.workspace.workspaceFolders ?? [])
    .filter((folder) => folder.uri.scheme === "file")
    .map((folder) => folder.uri.fsPath);
  const input = {
    configuredPath: serverPath(readSetting),
    args: serverArgs(readSetting),
    workspaceFolders: folders,
    envPath: process.env["PATH"],
    envPathExt: process.env["PATHEXT"],
    home: os.homedir(),
    platform: process.platform,
    arch: process.arch,
    trusted: vscode.workspace.isTrusted,
  };
  const found = resolveServerCommand(input, nodeFs);
  const bundle = bundledServer(extensionPath, undefined);
  if (found.ok || bundle === undefined) return found;
  // Nothing installed: the bundled server, with the Python the Python extension selects.
  return resolveServerCommand({ ...input, bundled: { ...bundle, selectedPython: await selectedPython() } }, nodeFs);
}

/**
 * The server advertises checkspec.runScenario/runFile, and the stock client would register
 * VS Code commands of those ids on start. The extension registers them itself instead — they
 * exist before and without the server, take the scenario at the cursor and show the results —
 * and VS Code refuses a second registration of one id, so the stock feature is left out.
 */
class CheckspecLanguageClient extends LanguageClient {
  override registerFeature(feature: StaticFeature | DynamicFeature<unknown>): void {
    if ("registrationType" in feature && feature.registrationType.method === ExecuteCommandRequest.method) return;
    super.registerFeature(feature);
  }
}

function createClient(
  command: string,
  args: string[],
  output: vscode.OutputChannel,
  env?: Record<string, string>,
): LanguageClient {
  const cwd = vscode.workspace.workspaceFolders?.find((folder) => folder.uri.scheme === "file")?.uri.fsPath;
  const server: ServerOptions = {
    command,
    args,
    // stdio. Not `transport: TransportKind.stdio`: that appends `--stdio` to the arguments,
    // which `checkspec lsp` does not take (it always speaks on stdio).
    // Node refuses to spawn .cmd/.bat files without a shell (Windows).
    options: {
      ...(cwd === undefined ? {} : { cwd }),
      ...(env === undefined ? {} : { env: { ...process.env, ...env } }),
      shell: /\.(cmd|bat)$/i.test(command),
    },
  };
  const options: LanguageClientOptions = {
    documentSelector: SPEC_PATTERNS.map((pattern) => ({ scheme: "file", pattern })),
    outputChannel: output,
    // Start failures get a notification of our own with a way to the log; a server-side
    // handler error is logged and answered empty, and need not interrupt typing.
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: initializationOptions(readSetting, vscode.workspace.isTrusted),
    synchronize: { configurationSection: SECTION },
    middleware: {
      workspace: {
        // Push the same normalised object as initializationOptions (not the raw section,
        // whose "" and null mean "unset"), so the server sees one shape from both paths.
        didChangeConfiguration: async (_sections, _next) => {
          await client.sendNotification(DidChangeConfigurationNotification.type, {
            settings: initializationOptions(readSetting, vscode.workspace.isTrusted),
          });
        },
        // The server pulls `checkspec` when it was given no settings: answer in that shape too.
        configuration: async (params, token, next) => {
          const answer = await next(params, token);
          if (!Array.isArray(answer)) return answer;
          return answer.map((value: unknown, i) =>
            params.items[i]?.section === SECTION ? serverOptions(readerOf(value), vscode.workspace.isTrusted) : value,
          );
        },
      },
    },
  };
  const client = new CheckspecLanguageClient(CLIENT_ID, "checkspec", server, options);
  // The curation code actions that ask for a tag, a file or a comment (curate.ts).
  client.registerFeature({
    fillClientCapabilities(capabilities) {
      capabilities.experimental = { ...(capabilities.experimental ?? {}), [PROMPTS_CAPABILITY]: true };
    },
    initialize() {},
    getState: () => ({ kind: "static" }),
    clear() {},
  });
  return client;
}

/** Resolves once the client is no longer starting. */
function settled(client: LanguageClient): Promise<void> {
  return new Promise((resolve) => {
    const listener = client.onDidChangeState(({ newState }) => {
      if (newState !== State.Starting) {
        listener.dispose();
        resolve();
      }
    });
    if (client.state !== State.Starting) {
      listener.dispose();
      resolve();
    }
  });
}

export type ServerState = "stopped" | "starting" | "running" | "failed";

/** What the language status shows about the running server. */
export interface ServerInfo {
  command: string;
  source: string; // "setting" | "workspace" | "path"
  version: string | undefined;
  problem?: string;
  /** Runs going in the server (its checkspec/runs notification). */
  runs?: number;
}

/** The server's notification of how many runs are going: `{ running: n }`. */
export const RUNS_NOTIFICATION = "checkspec/runs";

/** Starts, stops and restarts the one client; others ask it for a running client. */
export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  private readonly changed = new vscode.EventEmitter<ServerState>();
  readonly onDidChangeState = this.changed.event;
  state: ServerState = "stopped";
  info: ServerInfo | undefined;

  constructor(
    private readonly output: vscode.OutputChannel,
    private readonly extensionPath?: string,
  ) {}

  /** The running client, starting it if needed; undefined (after telling the user) if it cannot start. */
  async ready(): Promise<LanguageClient | undefined> {
    const current = this.client;
    // The client restarts a crashed server by itself: wait for that rather than start another.
    if (current?.state === State.Starting) await settled(current);
    if (current !== undefined && current === this.client && current.state === State.Running) return current;
    this.starting ??= this.stop()
      .then(() => this.start())
      .finally(() => (this.starting = undefined));
    return this.starting;
  }

  async restart(): Promise<LanguageClient | undefined> {
    await this.starting; // never two servers at once
    await this.stop();
    return this.ready();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client === undefined) return;
    try {
      await client.stop(5000);
    } catch (error) {
      this.output.appendLine(`checkspec: stopping the server: ${String(error)}`);
    }
    await client.dispose().catch(() => undefined);
    this.setState("stopped");
  }

  dispose(): void {
    void this.stop();
    this.changed.dispose();
  }

  private async start(): Promise<LanguageClient | undefined> {
    if (this.extensionPath === undefined) return this.startFound(await findServer());
    // The bundled server may need a moment to set up (the Python extension, the version
    // check): a progress notification says so; it goes once the server runs.
    const found = await findServer(this.extensionPath);
    if (!found.ok || found.source !== "bundled") return this.startFound(found);
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "checkspec: setting up the bundled language server" },
      async () => {
        // Each Python found, in order, until one the bundle has a server for.
        const probes = [];
        for (const python of found.pythons ?? [found.command]) {
          probes.push({ python, answer: await probePython(python) });
          const chosen = found.bundle && chooseBundledPython(found.bundle, probes.slice(-1), process.platform);
          if (chosen?.ok) return this.startFound({ ...found, command: chosen.python, env: chosen.env });
        }
        const chosen = found.bundle && chooseBundledPython(found.bundle, probes, process.platform);
        const message = chosen && !chosen.ok ? chosen.message : "checkspec: the bundled server has no bundle.json";
        return this.startFound({ ok: false, message, tried: probes.map((p) => p.python) });
      },
    );
  }

  private async startFound(found: ServerCommandResult): Promise<LanguageClient | undefined> {
    if (!found.ok) {
      this.info = { command: "", source: "", version: undefined, problem: found.message };
      this.output.appendLine(`checkspec: ${found.message}`);
      if (found.tried.length > 0) this.output.appendLine(`  looked for: ${found.tried.join(", ")}`);
      this.setState("failed");
      void this.complain(found.message);
      return undefined;
    }
    this.output.appendLine(`checkspec: starting ${[found.command, ...found.args].join(" ")} (from ${found.source})`);
    this.info = { command: [found.command, ...found.args].join(" "), source: found.source, version: undefined };
    this.setState("starting");
    const client = createClient(found.command, found.args, this.output, found.env);
    this.client = client;
    try {
      await client.start();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.output.appendLine(`checkspec: the server did not start: ${reason}`);
      if (this.client === client) this.client = undefined;
      await client.dispose().catch(() => undefined);
      this.info = { ...this.info, problem: reason };
      this.setState("failed");
      void this.complain(`The checkspec language server did not start (${found.command}): ${reason}`);
      return undefined;
    }
    client.onDidChangeState(({ newState }) => {
      if (this.client === client) this.setState(newState === State.Running ? "running" : "stopped");
    });
    this.info = { ...this.info, version: client.initializeResult?.serverInfo?.version };
    client.onNotification(RUNS_NOTIFICATION, (params: unknown) => {
      const running = (params as { running?: unknown } | null)?.running;
      if (this.client !== client || typeof running !== "number" || this.info === undefined) return;
      this.info = { ...this.info, runs: running };
      this.setState(this.state); // the language status shows it
    });
    this.setState("running");
    return client;
  }

  private setState(state: ServerState): void {
    this.state = state;
    this.changed.fire(state);
  }

  private async complain(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, "Open Settings", "Show Output");
    if (choice === "Open Settings") {
      await vscode.commands.executeCommand("workbench.action.openSettings", "checkspec.server");
    } else if (choice === "Show Output") {
      this.output.show(true);
    }
  }
}
