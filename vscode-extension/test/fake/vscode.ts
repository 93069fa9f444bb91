// A thin fake of the `vscode` module for unit tests of the VS Code-facing code. The test
// build (scripts/build.mjs) resolves `import * as vscode from "vscode"` in src/ to this file
// for `*.vscode.test.ts` only; the shipped bundle keeps `vscode` external.
//
// Only what src/ uses, with the shapes and semantics of the real API (@types/vscode 1.85):
// classes where the code constructs or `instanceof`-checks them, events that fire to their
// listeners, a TestController whose items and runs behave as VS Code's do. Everything the
// user or the workbench would do (answer a message, pick an item, cancel a notification,
// trust the workspace) is a function of `fake` below; everything the code shows or records
// is kept in `fake` for the tests to assert on. A missing export fails the test build
// (scripts/build.mjs turns esbuild's "import is undefined" into an error).

// ---------------------------------------------------------------- basics

export class Disposable {
  private done = false;
  constructor(private readonly callOnDispose: () => unknown) {}
  static from(...disposables: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => disposables.forEach((d) => d.dispose()));
  }
  dispose(): void {
    if (this.done) return;
    this.done = true;
    this.callOnDispose();
  }
}

export type Event<T> = (listener: (e: T) => unknown, thisArgs?: unknown, disposables?: Disposable[]) => Disposable;

export class EventEmitter<T> {
  private listeners: ((e: T) => unknown)[] = [];
  private disposed = false;
  readonly event: Event<T> = (listener, thisArgs, disposables) => {
    const bound = (e: T): unknown => listener.call(thisArgs, e);
    this.listeners.push(bound);
    const subscription = new Disposable(() => {
      this.listeners = this.listeners.filter((l) => l !== bound);
    });
    disposables?.push(subscription);
    return subscription;
  };
  fire(data: T): void {
    if (this.disposed) return;
    for (const listener of [...this.listeners]) listener(data);
  }
  get listenerCount(): number {
    return this.listeners.length;
  }
  dispose(): void {
    this.disposed = true;
    this.listeners = [];
  }
}

export interface CancellationToken {
  isCancellationRequested: boolean;
  onCancellationRequested: Event<unknown>;
}

export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<unknown>();
  private cancelled = false;
  disposed = false;
  readonly token: CancellationToken;
  constructor() {
    const source = this; // eslint-disable-line @typescript-eslint/no-this-alias
    this.token = {
      get isCancellationRequested() {
        return source.cancelled;
      },
      onCancellationRequested: (listener, thisArgs, disposables) => {
        // As in VS Code: a listener added after cancellation is called at once.
        if (source.cancelled) {
          setTimeout(() => listener.call(thisArgs, undefined), 0);
          return new Disposable(() => undefined);
        }
        return source.emitter.event(listener, thisArgs, disposables);
      },
    };
  }
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.emitter.fire(undefined);
  }
  dispose(): void {
    this.disposed = true;
    this.emitter.dispose();
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {
    if (line < 0 || character < 0) throw new Error("Illegal argument: line and character must be non-negative");
  }
  isEqual(other: Position): boolean {
    return this.line === other.line && this.character === other.character;
  }
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(start: Position, end: Position);
  constructor(startLine: number, startCharacter: number, endLine: number, endCharacter: number);
  constructor(a: Position | number, b: Position | number, c?: number, d?: number) {
    const start = a instanceof Position ? a : new Position(a, b as number);
    const end = b instanceof Position ? b : new Position(c as number, d as number);
    // VS Code orders them.
    const swap = start.line > end.line || (start.line === end.line && start.character > end.character);
    this.start = swap ? end : start;
    this.end = swap ? start : end;
  }
}

export class Location {
  readonly range: Range;
  constructor(
    readonly uri: Uri,
    rangeOrPosition: Range | Position,
  ) {
    this.range = rangeOrPosition instanceof Position ? new Range(rangeOrPosition, rangeOrPosition) : rangeOrPosition;
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query: string,
    readonly fragment: string,
  ) {}
  static parse(value: string): Uri {
    const match = /^([a-zA-Z][\w+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(value);
    if (match === null) throw new Error(`[UriError]: Scheme is missing: {scheme: "", path: "${value}"}`);
    return new Uri(match[1] ?? "", match[2] ?? "", decodeURIComponent(match[3] ?? ""), match[4] ?? "", match[5] ?? "");
  }
  static file(path: string): Uri {
    return new Uri("file", "", path.startsWith("/") ? path : `/${path}`, "", "");
  }
  get fsPath(): string {
    return this.path;
  }
  with(change: { scheme?: string; path?: string }): Uri {
    return new Uri(change.scheme ?? this.scheme, this.authority, change.path ?? this.path, this.query, this.fragment);
  }
  toString(): string {
    const path = this.path.split("/").map(encodeURIComponent).join("/");
    return `${this.scheme}://${this.authority}${path}${this.query ? `?${this.query}` : ""}${this.fragment ? `#${this.fragment}` : ""}`;
  }
  toJSON(): unknown {
    return { scheme: this.scheme, path: this.path };
  }
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export enum LanguageStatusSeverity {
  Information = 0,
  Warning = 1,
  Error = 2,
}

export enum ViewColumn {
  Active = -1,
  Beside = -2,
  One = 1,
  Two = 2,
}

export enum TestRunProfileKind {
  Run = 1,
  Debug = 2,
  Coverage = 3,
}

// ---------------------------------------------------------------- Testing API

export class TestMessage {
  expectedOutput?: string;
  actualOutput?: string;
  location?: Location;
  constructor(public message: string) {}
  static diff(message: string, expected: string, actual: string): TestMessage {
    const result = new TestMessage(message);
    result.expectedOutput = expected;
    result.actualOutput = actual;
    return result;
  }
}

export class TestRunRequest {
  constructor(
    readonly include: readonly TestItem[] | undefined = undefined,
    readonly exclude: readonly TestItem[] | undefined = undefined,
    readonly profile: TestRunProfile | undefined = undefined,
  ) {}
}

export class TestItemCollection implements Iterable<[string, TestItem]> {
  private readonly map = new Map<string, TestItem>();
  constructor(private readonly owner: TestItem | undefined) {}
  get size(): number {
    return this.map.size;
  }
  replace(items: readonly TestItem[]): void {
    for (const item of this.map.values()) item.parent = undefined;
    this.map.clear();
    for (const item of items) this.add(item);
  }
  forEach(callback: (item: TestItem, collection: TestItemCollection) => unknown, thisArg?: unknown): void {
    for (const item of [...this.map.values()]) callback.call(thisArg, item, this);
  }
  add(item: TestItem): void {
    item.parent = this.owner; // top-level items have none
    this.map.set(item.id, item);
  }
  delete(itemId: string): void {
    this.map.delete(itemId);
  }
  get(itemId: string): TestItem | undefined {
    return this.map.get(itemId);
  }
  [Symbol.iterator](): Iterator<[string, TestItem]> {
    return this.map.entries();
  }
}

export class TestItem {
  readonly children: TestItemCollection = new TestItemCollection(this);
  parent: TestItem | undefined;
  tags: readonly unknown[] = [];
  canResolveChildren = false;
  busy = false;
  description?: string;
  sortText?: string;
  range: Range | undefined;
  error: string | undefined;
  constructor(
    readonly id: string,
    public label: string,
    readonly uri: Uri | undefined,
  ) {}
}

export type TestEvent =
  | { kind: "enqueued" | "started" | "skipped"; id: string }
  | { kind: "passed"; id: string; duration: number | undefined }
  | { kind: "failed" | "errored"; id: string; messages: TestMessage[]; duration: number | undefined };

/** A run's record: each state change in order, its output, and whether it ended. */
export class TestRun {
  readonly events: TestEvent[] = [];
  readonly output: { text: string; location: Location | undefined; test: TestItem | undefined }[] = [];
  readonly source = new CancellationTokenSource();
  readonly token = this.source.token;
  readonly isPersisted = true;
  ended = false;
  /** State changes after end(): VS Code ignores them (with a warning in its log). */
  readonly afterEnd: string[] = [];
  constructor(
    readonly request: TestRunRequest,
    readonly name: string | undefined,
  ) {}
  private push(event: TestEvent): void {
    if (this.ended) this.afterEnd.push(`${event.kind} ${event.id}`);
    else this.events.push(event);
  }
  enqueued(test: TestItem): void {
    this.push({ kind: "enqueued", id: test.id });
  }
  started(test: TestItem): void {
    this.push({ kind: "started", id: test.id });
  }
  skipped(test: TestItem): void {
    this.push({ kind: "skipped", id: test.id });
  }
  passed(test: TestItem, duration?: number): void {
    this.push({ kind: "passed", id: test.id, duration });
  }
  failed(test: TestItem, message: TestMessage | readonly TestMessage[], duration?: number): void {
    this.push({ kind: "failed", id: test.id, messages: [message].flat(), duration });
  }
  errored(test: TestItem, message: TestMessage | readonly TestMessage[], duration?: number): void {
    this.push({ kind: "errored", id: test.id, messages: [message].flat(), duration });
  }
  appendOutput(output: string, location?: Location, test?: TestItem): void {
    if (this.ended) this.afterEnd.push("appendOutput");
    this.output.push({ text: output, location, test });
  }
  end(): void {
    this.ended = true;
  }
  /** The last state recorded for `id`. */
  state(id: string): TestEvent | undefined {
    return [...this.events].reverse().find((event) => event.id === id);
  }
}

export interface TestRunProfile {
  label: string;
  kind: TestRunProfileKind;
  isDefault: boolean;
  runHandler: (request: TestRunRequest, token: CancellationToken) => Thenable<void> | void;
  dispose(): void;
}

export class TestController {
  readonly items = new TestItemCollection(undefined);
  readonly profiles: TestRunProfile[] = [];
  readonly runs: TestRun[] = [];
  resolveHandler?: (item: TestItem | undefined) => Thenable<void> | void;
  refreshHandler?: (token: CancellationToken) => Thenable<void> | void;
  disposed = false;
  constructor(
    readonly id: string,
    public label: string,
  ) {}
  createTestItem(id: string, label: string, uri?: Uri): TestItem {
    return new TestItem(id, label, uri);
  }
  createRunProfile(
    label: string,
    kind: TestRunProfileKind,
    runHandler: TestRunProfile["runHandler"],
    isDefault = false,
  ): TestRunProfile {
    const profile: TestRunProfile = { label, kind, isDefault, runHandler, dispose: () => undefined };
    this.profiles.push(profile);
    return profile;
  }
  createTestRun(request: TestRunRequest, name?: string): TestRun {
    const run = new TestRun(request, name);
    this.runs.push(run);
    return run;
  }
  dispose(): void {
    this.disposed = true;
  }
}

// ---------------------------------------------------------------- documents and editors

export interface TextDocument {
  uri: Uri;
  languageId: string;
  getText(): string;
}

export interface TextEditor {
  document: TextDocument;
  selection: { active: Position; anchor: Position };
}

export function document(uri: Uri): TextDocument {
  return { uri, languageId: "yaml", getText: () => "" };
}

export function editor(uri: Uri, cursor: Position): TextEditor {
  return { document: document(uri), selection: { active: cursor, anchor: cursor } };
}

// ---------------------------------------------------------------- UI records

export class OutputChannel {
  readonly lines: string[] = [];
  shown = 0;
  disposed = false;
  constructor(readonly name: string) {}
  append(value: string): void {
    this.lines.push(value);
  }
  appendLine(value: string): void {
    this.lines.push(value);
  }
  clear(): void {
    this.lines.length = 0;
  }
  show(_preserveFocus?: boolean): void {
    this.shown++;
  }
  hide(): void {}
  dispose(): void {
    this.disposed = true;
  }
}

export class StatusBarItem {
  text = "";
  tooltip: string | undefined;
  command: string | undefined;
  name: string | undefined;
  visible = false;
  constructor(
    readonly id: string,
    readonly alignment: StatusBarAlignment,
    readonly priority: number | undefined,
  ) {}
  show(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
  }
  dispose(): void {
    this.visible = false;
  }
}

export interface ProgressRecord {
  options: { location: ProgressLocation; title?: string; cancellable?: boolean };
  reports: { message?: string; increment?: number }[];
  /** The notification's Cancel button. */
  source: CancellationTokenSource;
  done: boolean;
}

export interface MessageRecord {
  severity: "information" | "warning" | "error";
  message: string;
  items: string[];
}

export interface FileSystemWatcher {
  glob: string;
  onDidCreate: Event<Uri>;
  onDidChange: Event<Uri>;
  onDidDelete: Event<Uri>;
  fireCreate(uri: Uri): void;
  fireChange(uri: Uri): void;
  fireDelete(uri: Uri): void;
  dispose(): void;
}

// ---------------------------------------------------------------- state the tests drive

interface FakeState {
  trusted: boolean;
  settings: Map<string, unknown>;
  /** What an unset setting reads as: the defaults the manifest contributes (see harness). */
  defaults: Map<string, unknown>;
  workspaceFolders: { uri: Uri; name: string; index: number }[] | undefined;
  files: Uri[];
  textDocuments: TextDocument[];
  opened: Uri[];
  activeTextEditor: TextEditor | undefined;
  visibleTextEditors: TextEditor[];
  commands: Map<string, (...args: unknown[]) => unknown>;
  executed: { command: string; args: unknown[] }[];
  messages: MessageRecord[];
  /** Answers the next messages get (by the button's title), in order; none: dismissed. */
  answers: (string | undefined)[];
  quickPicks: { items: unknown[]; options: unknown }[];
  pick: ((items: readonly { label: string }[]) => unknown) | undefined;
  /** What the next input boxes are answered, in order (undefined: dismissed). */
  inputs: (string | undefined)[];
  inputBoxes: { prompt?: string; value?: string; problem?: string | undefined }[];
  /** What the next open dialog answers (undefined: dismissed). */
  openDialog: Uri[] | undefined;
  shown: Uri[];
  progress: ProgressRecord[];
  outputChannels: OutputChannel[];
  statusBarItems: StatusBarItem[];
  controllers: TestController[];
  watchers: FileSystemWatcher[];
  languageStatusItems: { id: string; name?: string; text: string; detail?: string; severity: LanguageStatusSeverity; busy: boolean; command?: { title: string; command: string } }[];
  webviews: { title: string; webview: { html: string; cspSource: string } }[];
  grantTrust: EventEmitter<void>;
  configurationChanged: EventEmitter<{ affectsConfiguration(section: string): boolean }>;
  opened$: EventEmitter<TextDocument>;
  changed$: EventEmitter<{ document: TextDocument }>;
  saved$: EventEmitter<TextDocument>;
}

function freshState(): FakeState {
  return {
    trusted: true,
    settings: new Map(),
    defaults: new Map(),
    workspaceFolders: [{ uri: Uri.file("/ws"), name: "ws", index: 0 }],
    files: [],
    textDocuments: [],
    opened: [],
    activeTextEditor: undefined,
    visibleTextEditors: [],
    commands: new Map(),
    executed: [],
    messages: [],
    answers: [],
    quickPicks: [],
    pick: undefined,
    inputs: [],
    inputBoxes: [],
    openDialog: undefined,
    shown: [],
    progress: [],
    outputChannels: [],
    statusBarItems: [],
    controllers: [],
    watchers: [],
    languageStatusItems: [],
    webviews: [],
    grantTrust: new EventEmitter(),
    configurationChanged: new EventEmitter(),
    opened$: new EventEmitter(),
    changed$: new EventEmitter(),
    saved$: new EventEmitter(),
  };
}

let state = freshState();

/** What tests do as the user or the workbench, and what they read back. */
export const fake = {
  reset(): void {
    state = freshState();
  },
  get state(): FakeState {
    return state;
  },
  /** Sets `checkspec.<key>`-style settings: keys are full ("checkspec.server.path"). */
  setting(key: string, value: unknown): void {
    state.settings.set(key, value);
  },
  /** The user edits settings: the new values, then onDidChangeConfiguration for their keys. */
  changeSettings(values: Record<string, unknown>): void {
    for (const [key, value] of Object.entries(values)) state.settings.set(key, value);
    const keys = Object.keys(values);
    state.configurationChanged.fire({
      affectsConfiguration: (section) => keys.some((key) => key === section || key.startsWith(`${section}.`)),
    });
  },
  untrust(): void {
    state.trusted = false;
  },
  /** The user trusts the workspace: isTrusted, then onDidGrantWorkspaceTrust. */
  grantTrust(): void {
    state.trusted = true;
    state.grantTrust.fire();
  },
  open(doc: TextDocument): void {
    state.textDocuments.push(doc);
    state.opened$.fire(doc);
  },
  save(doc: TextDocument): void {
    state.saved$.fire(doc);
  },
  controller(): TestController {
    const controller = state.controllers[0];
    if (controller === undefined) throw new Error("no test controller was created");
    return controller;
  },
  command(id: string): (...args: unknown[]) => unknown {
    const handler = state.commands.get(id);
    if (handler === undefined) throw new Error(`command ${id} is not registered`);
    return handler;
  },
  messages(severity?: MessageRecord["severity"]): MessageRecord[] {
    return state.messages.filter((m) => severity === undefined || m.severity === severity);
  },
};

function message(severity: MessageRecord["severity"]) {
  return (text: string, ...rest: unknown[]): Thenable<string | undefined> => {
    const items = rest.filter((item): item is string => typeof item === "string");
    state.messages.push({ severity, message: text, items });
    const answer = state.answers.shift();
    return Promise.resolve(answer !== undefined && items.includes(answer) ? answer : undefined);
  };
}

// ---------------------------------------------------------------- namespaces

export const window = {
  get activeTextEditor(): TextEditor | undefined {
    return state.activeTextEditor;
  },
  get visibleTextEditors(): readonly TextEditor[] {
    return state.visibleTextEditors;
  },
  createOutputChannel(name: string): OutputChannel {
    const channel = new OutputChannel(name);
    state.outputChannels.push(channel);
    return channel;
  },
  createStatusBarItem(id: string, alignment?: StatusBarAlignment, priority?: number): StatusBarItem {
    const item = new StatusBarItem(id, alignment ?? StatusBarAlignment.Left, priority);
    state.statusBarItems.push(item);
    return item;
  },
  showInformationMessage: message("information"),
  showWarningMessage: message("warning"),
  showErrorMessage: message("error"),
  showQuickPick<T extends { label: string }>(items: readonly T[], options?: unknown): Thenable<T | undefined> {
    state.quickPicks.push({ items: [...items], options });
    return Promise.resolve(state.pick?.(items) as T | undefined);
  },
  showInputBox(options?: { prompt?: string; value?: string; validateInput?: (text: string) => string | undefined }): Thenable<string | undefined> {
    const answer = state.inputs.shift();
    const problem = answer === undefined ? undefined : options?.validateInput?.(answer);
    state.inputBoxes.push({ ...(options?.prompt === undefined ? {} : { prompt: options.prompt }), ...(options?.value === undefined ? {} : { value: options.value }), problem });
    return Promise.resolve(problem === undefined ? answer : undefined); // VS Code keeps the box open on a problem
  },
  showOpenDialog(_options?: unknown): Thenable<Uri[] | undefined> {
    return Promise.resolve(state.openDialog);
  },
  showTextDocument(doc: TextDocument): Thenable<TextEditor> {
    state.shown.push(doc.uri);
    return Promise.resolve(editor(doc.uri, new Position(0, 0)));
  },
  async withProgress<R>(
    options: ProgressRecord["options"],
    task: (progress: { report(value: { message?: string; increment?: number }): void }, token: CancellationToken) => Thenable<R>,
  ): Promise<R> {
    const record: ProgressRecord = { options, reports: [], source: new CancellationTokenSource(), done: false };
    state.progress.push(record);
    try {
      return await task({ report: (value) => record.reports.push({ ...value }) }, record.source.token);
    } finally {
      record.done = true;
    }
  },
  createWebviewPanel(_viewType: string, title: string): unknown {
    const disposed = new EventEmitter<void>();
    const panel = {
      title,
      webview: { html: "", cspSource: "vscode-webview:" },
      reveal: () => undefined,
      onDidDispose: disposed.event,
      dispose: () => disposed.fire(),
    };
    state.webviews.push(panel);
    return panel;
  },
};

export const workspace = {
  get isTrusted(): boolean {
    return state.trusted;
  },
  get workspaceFolders(): FakeState["workspaceFolders"] {
    return state.workspaceFolders;
  },
  get textDocuments(): readonly TextDocument[] {
    return state.textDocuments;
  },
  onDidGrantWorkspaceTrust: ((...args) => state.grantTrust.event(...args)) as Event<void>,
  onDidChangeConfiguration: ((...args) => state.configurationChanged.event(...args)) as Event<{
    affectsConfiguration(section: string): boolean;
  }>,
  onDidOpenTextDocument: ((...args) => state.opened$.event(...args)) as Event<TextDocument>,
  onDidChangeTextDocument: ((...args) => state.changed$.event(...args)) as Event<{ document: TextDocument }>,
  onDidSaveTextDocument: ((...args) => state.saved$.event(...args)) as Event<TextDocument>,
  getConfiguration(section?: string, _scope?: unknown): { get<T>(key: string, defaultValue?: T): T | undefined } {
    return {
      get<T>(key: string, defaultValue?: T): T | undefined {
        const full = section === undefined ? key : `${section}.${key}`;
        if (state.settings.has(full)) return state.settings.get(full) as T;
        // As VS Code: the caller's default, else the contributed one.
        return defaultValue !== undefined ? defaultValue : (state.defaults.get(full) as T | undefined);
      },
    };
  },
  asRelativePath(pathOrUri: string | Uri, _includeWorkspaceFolder?: boolean): string {
    const path = typeof pathOrUri === "string" ? pathOrUri : pathOrUri.path;
    for (const folder of state.workspaceFolders ?? []) {
      if (path.startsWith(`${folder.uri.path}/`)) return path.slice(folder.uri.path.length + 1);
    }
    return path;
  },
  findFiles(_include: string, _exclude?: string): Thenable<Uri[]> {
    return Promise.resolve([...state.files]);
  },
  openTextDocument(uri: Uri): Thenable<TextDocument> {
    state.opened.push(uri);
    return Promise.resolve(document(uri));
  },
  createFileSystemWatcher(glob: string): FileSystemWatcher {
    const created = new EventEmitter<Uri>();
    const changed = new EventEmitter<Uri>();
    const deleted = new EventEmitter<Uri>();
    const watcher: FileSystemWatcher = {
      glob,
      onDidCreate: created.event,
      onDidChange: changed.event,
      onDidDelete: deleted.event,
      fireCreate: (uri) => created.fire(uri),
      fireChange: (uri) => changed.fire(uri),
      fireDelete: (uri) => deleted.fire(uri),
      dispose: () => undefined,
    };
    state.watchers.push(watcher);
    return watcher;
  },
};

export const commands = {
  registerCommand(command: string, callback: (...args: unknown[]) => unknown): Disposable {
    // VS Code refuses a second registration of one id.
    if (state.commands.has(command)) throw new Error(`command '${command}' already exists`);
    state.commands.set(command, callback);
    const registry = state.commands;
    return new Disposable(() => registry.delete(command));
  },
  executeCommand(command: string, ...args: unknown[]): Thenable<unknown> {
    state.executed.push({ command, args });
    const handler = state.commands.get(command);
    return Promise.resolve(handler?.(...args));
  },
};

export const tests = {
  createTestController(id: string, label: string): TestController {
    const controller = new TestController(id, label);
    state.controllers.push(controller);
    return controller;
  },
};

/** No other extension is installed (the Python extension is looked up by client.ts). */
export const extensions = {
  getExtension(_id: string): undefined {
    return undefined;
  },
};

export const languages = {
  createLanguageStatusItem(id: string, _selector: unknown): FakeState["languageStatusItems"][number] & { dispose(): void } {
    const item = { id, text: "", severity: LanguageStatusSeverity.Information, busy: false, dispose: () => undefined };
    state.languageStatusItems.push(item);
    return item;
  },
};

export type Thenable<T> = PromiseLike<T>;
