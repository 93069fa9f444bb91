// "checkspec: Generate Scenarios…", pure parts: the request sent to the server's
// `checkspec.generate` from what the user picked, its answer read defensively, and the
// checks of the count box. No `vscode` import (tested as it is).

export const GENERATE = "checkspec.generate"; // [{persona|preset|docs|like, output, count, ...}]
export const LIST_TOPICS = "checkspec.listTopics"; // [{docs: [paths]}]
export const LIST_PRESETS = "checkspec.listPresets"; // []
export const MAX_COUNT = 500; // `checkspec generate --count` accepts 1 to 500

export type Source =
  | { kind: "preset"; name: string }
  | { kind: "persona"; text: string }
  | { kind: "docs"; paths: string[]; topics: string[]; voice?: Voice }
  | { kind: "like"; path: string };

/** Document questions asked in a persona's voice: a preset's, or one in words. */
export type Voice = { preset: string } | { persona: string };

/** The server's `checkspec.generate` object: what `checkspec generate` takes, in camelCase
 * (engine/generate/request.py `GenerationRequest.from_editor` checks it). The picker sends
 * a few; the others are there for callers that want them. */
export interface GenerateRequest {
  persona?: string;
  preset?: string;
  docs?: string[];
  topics?: string[];
  like?: string | string[]; // selectors: a file, a folder, FILE::NAME, FILE::#INDEX
  query?: string; // query, tag and status narrow the scenarios `like` chooses
  tag?: string | string[];
  status?: "draft" | "active";
  exclude?: string[];
  output: string;
  count: number;
  turns?: number;
  seed?: number;
  types?: string[];
  append?: boolean;
  force?: boolean;
  simulate?: boolean;
  agentDescription?: string;
  model?: string;
  embeddingModel?: string;
  similarityThreshold?: number;
  selfCheck?: boolean;
  target?: string;
}

export function generateRequest(source: Source, output: string, count: number, append = false): GenerateRequest {
  const request: GenerateRequest = { output, count };
  if (append) request.append = true;
  switch (source.kind) {
    case "preset":
      request.preset = source.name;
      break;
    case "persona":
      request.persona = source.text;
      break;
    case "docs":
      request.docs = source.paths;
      if (source.topics.length > 0) request.topics = source.topics;
      if (source.voice !== undefined && "preset" in source.voice) request.preset = source.voice.preset;
      if (source.voice !== undefined && "persona" in source.voice) request.persona = source.voice.persona;
      break;
    case "like":
      request.like = source.path;
      break;
  }
  return request;
}

/** The count box's complaint about `text`, or undefined when it is a count it can take. */
export function countProblem(text: string): string | undefined {
  const value = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || !Number.isInteger(value)) return "a whole number of scenarios";
  if (value < 1 || value > MAX_COUNT) return `between 1 and ${MAX_COUNT}`;
  return undefined;
}

export interface GenerateAnswer {
  status: "written" | "cancelled" | "error";
  output?: string; // a file URI
  count?: number;
  summary?: string;
  error?: string;
}

export function parseGenerateAnswer(value: unknown): GenerateAnswer {
  if (typeof value !== "object" || value === null) return { status: "error", error: "the server gave no answer" };
  const record = value as Record<string, unknown>;
  const status = record["status"];
  const answer: GenerateAnswer = {
    status: status === "written" || status === "cancelled" ? status : "error",
  };
  for (const key of ["output", "summary", "error"] as const) {
    const text = record[key];
    if (typeof text === "string") answer[key] = text;
  }
  if (typeof record["count"] === "number") answer.count = record["count"];
  if (answer.status === "error" && answer.error === undefined) answer.error = "the generation failed";
  return answer;
}

export interface Named {
  name: string;
  detail: string;
}

/** `{topics: [{name, chunks}]}` or `{presets: [{name, description}]}` as pick items. */
export function namedItems(value: unknown, key: "topics" | "presets"): Named[] | string {
  if (typeof value !== "object" || value === null) return "the server gave no answer";
  const record = value as Record<string, unknown>;
  if (typeof record["error"] === "string") return record["error"];
  const items = record[key];
  if (!Array.isArray(items)) return "the server gave no answer";
  const found: Named[] = [];
  for (const item of items) {
    if (typeof item !== "object" || item === null) continue;
    const entry = item as Record<string, unknown>;
    if (typeof entry["name"] !== "string") continue;
    const detail =
      key === "topics" ? `${typeof entry["chunks"] === "number" ? entry["chunks"] : "?"} chunks` : String(entry["description"] ?? "");
    found.push({ name: entry["name"], detail });
  }
  return found;
}

/** A dataset name not taken yet in `folder`: `<stem>.dataset.yaml`, then `<stem>-2...`. */
export function freeOutput(folder: string, stem: string, exists: (path: string) => boolean): string {
  const clean = stem.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") || "generated";
  for (let n = 1; ; n++) {
    const path = `${folder}/${clean}${n === 1 ? "" : `-${n}`}.dataset.yaml`;
    if (!exists(path)) return path;
  }
}
