// What the curation pickers show and send: pure, so it is unit-tested without VS Code.
// The server's code actions "Add tag…", "Move to file…" and "Add comment…" carry the
// editor commands below ([uri, scenario indexes]); the answer goes to the server's
// checkspec.curate [uri, indexes, operation, value], which answers a WorkspaceEdit.

export const PICK_TAG = "checkspec.curate.pickTag";
export const PICK_FILE = "checkspec.curate.pickFile";
export const ASK_COMMENT = "checkspec.curate.askComment";
export const CURATE = "checkspec.curate";
export const LIST_TAGS = "checkspec.listTags";
/** The server's command behind "Record outputs from the target" ([uri, [indexes]]): it runs
 *  them and applies the edit itself (workspace/applyEdit); answers what it recorded. */
export const RECORD_OUTPUTS = "checkspec.recordOutputs";
/** The client capability that makes the server offer those actions. */
export const PROMPTS_CAPABILITY = "checkspecCurationPrompts";

export interface PickItem {
  label: string;
  description?: string;
  /** The value sent; undefined for the entry that asks for a new one. */
  value?: string;
}

/** The workspace's tags (checkspec.listTags' answer), the most used first, then "New tag…". */
export function tagItems(answer: unknown): PickItem[] {
  const counts = answer !== null && typeof answer === "object" ? Object.entries(answer as Record<string, unknown>) : [];
  const items = counts
    .filter((entry): entry is [string, number] => typeof entry[1] === "number")
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([tag, count]) => ({ label: tag, description: count === 1 ? "1 scenario" : `${count} scenarios`, value: tag }));
  return [...items, { label: "$(add) New tag…" }];
}

/** Suites and datasets the scenarios may move to (not the file they are in), then "New file…". */
export function fileItems(paths: readonly string[], from: string): PickItem[] {
  const targets = paths.filter((path) => path !== from && /\.(suite|dataset)\.(ya?ml|json|jsonl)$/.test(path)).sort();
  return [...targets.map((path) => ({ label: path, value: path })), { label: "$(new-file) New file…" }];
}

/** A tag or file typed in: trimmed; undefined when empty. */
export function typed(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}

export type CurateAnswer = { ok: true; edit: unknown } | { ok: false; message: string };

/** checkspec.curate's answer: a WorkspaceEdit, or {error}. */
export function parseCurateAnswer(answer: unknown): CurateAnswer {
  if (answer === null || typeof answer !== "object") return { ok: false, message: "the server did not answer" };
  const error = (answer as { error?: unknown }).error;
  if (typeof error === "string") return { ok: false, message: error };
  const edit = answer as { changes?: unknown; documentChanges?: unknown };
  if (edit.changes === undefined && edit.documentChanges === undefined) {
    return { ok: false, message: "the server's answer was not an edit" };
  }
  return { ok: true, edit: answer };
}

/** The code action's arguments: [uri, [indexes]]; undefined when they are not. */
export function curateTarget(uri: unknown, indexes: unknown): { uri: string; indexes: number[] } | undefined {
  if (typeof uri !== "string" || !Array.isArray(indexes)) return undefined;
  if (!indexes.every((index) => Number.isInteger(index) && index >= 0)) return undefined;
  return { uri, indexes: indexes as number[] };
}

/** The documents a versioned edit was made on that the editor has since changed: each
 *  TextDocumentEdit naming a version the open document no longer has (`versionOf` gives
 *  the open document's version, undefined when it is not open). */
export function staleDocuments(edit: unknown, versionOf: (uri: string) => number | undefined): string[] {
  const changes = (edit as { documentChanges?: unknown } | null)?.documentChanges;
  if (!Array.isArray(changes)) return [];
  const stale: string[] = [];
  for (const change of changes as unknown[]) {
    const doc = (change as { textDocument?: { uri?: unknown; version?: unknown } } | null)?.textDocument;
    if (doc === undefined || typeof doc.uri !== "string" || typeof doc.version !== "number") continue;
    const now = versionOf(doc.uri);
    if (now !== undefined && now !== doc.version) stale.push(doc.uri);
  }
  return stale;
}

/** What to tell of checkspec.recordOutputs' answer: {recorded, drifts, skipped, applied} or {error}. */
export function recordedMessage(answer: unknown): { ok: boolean; message: string } {
  if (answer === null || typeof answer !== "object") return { ok: false, message: "the server did not answer" };
  const found = answer as { error?: unknown; recorded?: unknown; drifts?: unknown; skipped?: unknown; cancelled?: unknown };
  if (typeof found.error === "string") return { ok: false, message: found.error };
  if (found.cancelled === true) return { ok: true, message: "recording cancelled" };
  const recorded = typeof found.recorded === "number" ? found.recorded : 0;
  const drifts = Array.isArray(found.drifts) ? found.drifts.length : 0;
  const skipped = Array.isArray(found.skipped) ? found.skipped.filter((s): s is string => typeof s === "string") : [];
  const parts = [`recorded the outputs of ${recorded === 1 ? "1 scenario" : `${recorded} scenarios`}`];
  if (drifts > 0) parts.push(`${drifts} drifted from the recorded ones`);
  if (skipped.length > 0) parts.push(`not recorded: ${skipped.join("; ")}`);
  return { ok: true, message: parts.join("; ") };
}
