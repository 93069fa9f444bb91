// A fake of `vscode-languageclient/node` at the boundary src/ uses: the LanguageClient
// (start/stop/state, sendRequest/sendNotification, onNotification/onProgress, the URI
// converter, registerFeature) with a scripted server behind it. The protocol's request and
// notification types are the real ones (vscode-languageserver-protocol, which the real
// client re-exports), so a wrong method name in src/ is caught; State and
// RevealOutputChannelOn copy the real client's values.

import type { CancellationToken } from "./vscode";
import { EventEmitter, Disposable, type Uri } from "./vscode";

export * from "vscode-languageserver-protocol/node";

export enum State {
  Stopped = 1,
  Starting = 3,
  Running = 2,
}

export enum RevealOutputChannelOn {
  Debug = 0,
  Info = 1,
  Warn = 2,
  Error = 3,
  Never = 4,
}

export interface StaticFeature {
  fillClientCapabilities(): void;
}
export interface DynamicFeature<T> extends StaticFeature {
  registrationType: { method: string; __t?: T };
}

type MethodLike = string | { method: string };
const methodOf = (type: MethodLike): string => (typeof type === "string" ? type : type.method);

export interface SentRequest {
  method: string;
  params: unknown;
  token: CancellationToken | undefined;
  client: LanguageClient;
}

type RequestHandler = (params: any, request: SentRequest) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The server behind every client: what it answers, and what it was sent. */
export const server = {
  requests: [] as SentRequest[],
  notifications: [] as { method: string; params: unknown }[],
  handlers: new Map<string, RequestHandler>(),
  /** start() rejects with this (the executable exited at once...). */
  startError: undefined as Error | undefined,
  version: "0.1.0" as string | undefined,
  clients: [] as LanguageClient[],
  reset(): void {
    server.requests = [];
    server.notifications = [];
    server.handlers = new Map();
    server.startError = undefined;
    server.version = "0.1.0";
    server.clients = [];
  },
  /** How the server answers `method` (for workspace/executeCommand: see `commands`). */
  on(method: string, handler: RequestHandler): void {
    server.handlers.set(method, handler);
  },
  /** The running client (the last one started). */
  get client(): LanguageClient {
    const client = server.clients[server.clients.length - 1];
    if (client === undefined) throw new Error("no client was created");
    return client;
  },
  sent(method: string): SentRequest[] {
    return server.requests.filter((request) => request.method === method);
  },
};

/** Real features register under these methods (a few of the client's built-in ones). */
const BUILTIN_FEATURES = [
  "textDocument/didOpen",
  "textDocument/documentSymbol",
  "workspace/executeCommand",
  "workspace/didChangeConfiguration",
];

export class LanguageClient {
  readonly registered: string[] = [];
  state: State = State.Stopped;
  initializeResult: { serverInfo?: { name: string; version?: string } } | undefined;
  readonly stateChanged = new EventEmitter<{ oldState: State; newState: State }>();
  readonly onDidChangeState = this.stateChanged.event;
  stopped: number[] = [];
  disposed = false;
  readonly notificationHandlers = new Map<string, (params: unknown) => void>();
  readonly progressHandlers = new Map<string | number, (value: unknown) => void>();
  readonly code2ProtocolConverter = { asUri: (uri: Uri): string => uri.toString() };

  constructor(
    readonly id: string,
    readonly name: string,
    readonly serverOptions: { command: string; args?: string[]; options?: { cwd?: string; shell?: boolean } },
    readonly clientOptions: any, // eslint-disable-line @typescript-eslint/no-explicit-any
  ) {
    server.clients.push(this);
    for (const method of BUILTIN_FEATURES) {
      this.registerFeature({ registrationType: { method }, fillClientCapabilities: () => undefined });
    }
  }

  registerFeature(feature: StaticFeature | DynamicFeature<unknown>): void {
    if ("registrationType" in feature) this.registered.push(feature.registrationType.method);
  }

  setState(newState: State): void {
    const oldState = this.state;
    this.state = newState;
    this.stateChanged.fire({ oldState, newState });
  }

  async start(): Promise<void> {
    this.setState(State.Starting);
    await Promise.resolve();
    if (server.startError !== undefined) {
      this.setState(State.Stopped);
      throw server.startError;
    }
    this.initializeResult = { serverInfo: { name: "checkspec", ...(server.version === undefined ? {} : { version: server.version }) } };
    this.setState(State.Running);
  }

  async stop(timeout?: number): Promise<void> {
    this.stopped.push(timeout ?? 2000);
    if (this.state !== State.Stopped) this.setState(State.Stopped);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.state !== State.Stopped) this.setState(State.Stopped);
  }

  sendRequest(type: MethodLike, params?: unknown, token?: CancellationToken): Promise<unknown> {
    if (this.state !== State.Running) return Promise.reject(new Error("Client is not running"));
    const request: SentRequest = { method: methodOf(type), params, token, client: this };
    server.requests.push(request);
    const handler = server.handlers.get(request.method);
    if (handler === undefined) return Promise.reject(new Error(`Unhandled method ${request.method}`));
    return Promise.resolve().then(() => handler(params, request));
  }

  async sendNotification(type: MethodLike, params?: unknown): Promise<void> {
    server.notifications.push({ method: methodOf(type), params });
  }

  // Like the real client (and vscode-jsonrpc under it), one handler per notification
  // method and per progress token: a second registration replaces the first, and disposing
  // any registration removes whichever handler is current.
  onNotification(type: MethodLike, handler: (params: unknown) => void): Disposable {
    const method = methodOf(type);
    this.notificationHandlers.set(method, handler);
    return new Disposable(() => this.notificationHandlers.delete(method));
  }

  onProgress(_type: unknown, token: string | number, handler: (value: unknown) => void): Disposable {
    this.progressHandlers.set(token, handler);
    return new Disposable(() => this.progressHandlers.delete(token));
  }

  /** The server sends a notification. */
  notify(method: string, params: unknown): void {
    this.notificationHandlers.get(method)?.(params);
  }

  /** The server reports `$/progress` for `token`. */
  progress(token: string | number, value: unknown): void {
    this.progressHandlers.get(token)?.(value);
  }
}

export type LanguageClientOptions = any; // eslint-disable-line @typescript-eslint/no-explicit-any
export type ServerOptions = any; // eslint-disable-line @typescript-eslint/no-explicit-any
