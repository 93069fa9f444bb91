// The last run of a scenario (`checkspec.showLastRun`'s answer: run_summary with `turns`
// and each check's `details`) -> the HTML of the transcript view: the conversation turn by
// turn with the checks of each step, their verdicts, reasons and durations. Pure.
//
// Everything from the run is untrusted (the agent's answers above all): it is parsed field
// by field and every text is HTML-escaped; the page runs no script and its CSP allows only
// the one inline stylesheet carrying the nonce.

export interface Turn {
  step: number;
  inputs: string;
  outputs: string;
  metadata: string;
}

export interface TranscriptCheck {
  step: number;
  index: number;
  kind: string;
  status: string;
  message: string;
  durationMs: number | undefined;
  expected?: string;
  actual?: string;
  details: Record<string, string>;
}

export interface Transcript {
  scenario: string;
  status: string;
  summary: string;
  durationMs: number | undefined;
  replayed: boolean;
  turns: Turn[];
  checks: TranscriptCheck[];
  errors: { step: number; message: string }[];
  output: string;
  /** The scenario's verdict in the run recorded before this one (the run history). */
  previous?: { status: string; run: string };
  /** Set when there is no transcript to show (not run since it changed...). */
  error?: string;
}

export function parseTranscript(value: unknown): Transcript {
  const data = isObject(value) ? value : {};
  const transcript: Transcript = {
    scenario: text(data["scenario"]),
    status: text(data["status"]),
    summary: text(data["summary"]),
    durationMs: number(data["duration_ms"]),
    replayed: data["replayed"] === true,
    turns: list(data["turns"]).map((turn) => ({
      step: count(turn["step"]),
      inputs: text(turn["inputs"]),
      outputs: text(turn["outputs"]),
      metadata: text(turn["metadata"]),
    })),
    checks: list(data["checks"]).map(parseCheck),
    errors: list(data["errors"]).map((error) => ({ step: count(error["step"]), message: text(error["message"]) })),
    output: text(data["output"]),
  };
  const previous = data["previous"];
  if (isObject(previous) && typeof previous["status"] === "string") {
    transcript.previous = { status: previous["status"], run: text(previous["run"]) };
  }
  if (typeof data["error"] === "string") transcript.error = data["error"];
  else if (!isObject(value)) transcript.error = "the server gave no transcript";
  return transcript;
}

function parseCheck(check: Record<string, unknown>): TranscriptCheck {
  const details: Record<string, string> = {};
  const raw = check["details"];
  if (isObject(raw)) for (const [key, value] of Object.entries(raw)) if (typeof value === "string") details[key] = value;
  const parsed: TranscriptCheck = {
    step: count(check["step"]),
    index: count(check["index"]),
    kind: text(check["kind"]),
    status: text(check["status"]),
    message: text(check["message"]),
    durationMs: number(check["duration_ms"]),
    details,
  };
  if (typeof check["expected"] === "string" && typeof check["actual"] === "string") {
    parsed.expected = check["expected"];
    parsed.actual = check["actual"];
  }
  return parsed;
}

const MARKS: Readonly<Record<string, string>> = { pass: "✓", fail: "✗", error: "⚠", skip: "○", cancelled: "○" };
// Details already shown elsewhere on the card (message, expected/actual) or too noisy.
const SHOWN_APART = new Set(["reason", "expected_value", "actual_value", "keyword", "pattern", "expected", "actual", "text", "value"]);

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

export function duration(ms: number | undefined): string {
  if (ms === undefined) return "";
  if (ms < 1) return "<1 ms";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The whole page. `cspSource` is the webview's own origin; `nonce` marks our stylesheet. */
export function transcriptHtml(transcript: Transcript, nonce: string, cspSource: string): string {
  const csp = `default-src 'none'; style-src ${cspSource} 'nonce-${nonce}'; script-src 'none'; form-action 'none'; base-uri 'none'`;
  return [
    "<!DOCTYPE html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp.replace(/["<>&]/g, "")}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(transcript.scenario || "checkspec")}</title>`,
    `<style nonce="${escapeHtml(nonce)}">${STYLE}</style>`,
    "</head><body>",
    transcriptBody(transcript),
    "</body></html>",
  ].join("\n");
}

export function transcriptBody(transcript: Transcript): string {
  if (transcript.error !== undefined) {
    return `<h1>${escapeHtml(transcript.scenario || "checkspec")}</h1><p class="empty">${escapeHtml(transcript.error)}</p>`;
  }
  const was = transcript.previous !== undefined && transcript.previous.status !== transcript.status ? transcript.previous : undefined;
  const changed = was === undefined ? "" : `previously ${mark(was.status)} ${was.status}${was.run ? ` (run ${was.run})` : ""}`;
  const facts = [transcript.status, duration(transcript.durationMs), transcript.replayed ? "recorded outputs replayed" : "", changed].filter(Boolean);
  const parts = [
    `<header class="${statusClass(transcript.status)}"><h1>${mark(transcript.status)} ${escapeHtml(transcript.scenario)}</h1>`,
    `<p class="facts">${facts.map(escapeHtml).join(" · ")}</p>`,
    `<p class="summary">${escapeHtml(transcript.summary)}</p></header>`,
  ];
  const steps = new Set<number>([...transcript.turns.map((t) => t.step), ...transcript.checks.map((c) => c.step), ...transcript.errors.map((e) => e.step)]);
  for (const step of [...steps].sort((a, b) => a - b)) {
    parts.push(`<section class="step"><h2>Step ${step + 1}</h2>`);
    for (const turn of transcript.turns.filter((t) => t.step === step)) parts.push(turnHtml(turn));
    for (const error of transcript.errors.filter((e) => e.step === step)) {
      parts.push(`<div class="card error"><strong>⚠ step ${step + 1} could not run</strong><pre>${escapeHtml(error.message)}</pre></div>`);
    }
    const checks = transcript.checks.filter((c) => c.step === step);
    if (checks.length > 0) parts.push(`<ol class="checks">${checks.map(checkHtml).join("")}</ol>`);
    parts.push("</section>");
  }
  if (transcript.output !== "") parts.push(`<section><h2>Printed</h2><pre class="output">${escapeHtml(transcript.output)}</pre></section>`);
  return parts.join("\n");
}

function turnHtml(turn: Turn): string {
  const metadata = turn.metadata === "" ? "" : `<details><summary>metadata</summary><pre>${escapeHtml(turn.metadata)}</pre></details>`;
  return [
    '<div class="turn">',
    `<div class="message user"><span class="role">inputs</span><pre>${escapeHtml(turn.inputs)}</pre></div>`,
    `<div class="message agent"><span class="role">outputs</span><pre>${escapeHtml(turn.outputs)}</pre>${metadata}</div>`,
    "</div>",
  ].join("");
}

function checkHtml(check: TranscriptCheck): string {
  const took = duration(check.durationMs);
  const head = `<span class="mark">${mark(check.status)}</span> <code>${escapeHtml(check.kind)}</code> <span class="status">${escapeHtml(check.status)}</span>${took ? ` <span class="took">${escapeHtml(took)}</span>` : ""}`;
  const body: string[] = [];
  if (check.message !== "") body.push(`<p>${escapeHtml(check.message)}</p>`);
  const reason = check.details["reason"];
  if (reason !== undefined && reason !== check.message) body.push(`<p class="reason"><strong>reason</strong> ${escapeHtml(reason)}</p>`);
  if (check.expected !== undefined && check.actual !== undefined) {
    body.push(
      `<table class="compare"><tr><th>expected</th><td><pre>${escapeHtml(check.expected)}</pre></td></tr><tr><th>actual</th><td><pre>${escapeHtml(check.actual)}</pre></td></tr></table>`,
    );
  }
  const rest = Object.entries(check.details).filter(([key]) => !SHOWN_APART.has(key));
  if (rest.length > 0) {
    const rows = rest.map(([key, value]) => `<tr><th>${escapeHtml(key)}</th><td><pre>${escapeHtml(value)}</pre></td></tr>`).join("");
    body.push(`<details><summary>details</summary><table>${rows}</table></details>`);
  }
  return `<li class="card ${statusClass(check.status)}"><div class="head">${head}</div>${body.join("")}</li>`;
}

function mark(status: string): string {
  return escapeHtml(MARKS[status] ?? "?");
}

function statusClass(status: string): string {
  return /^[a-z]+$/.test(status) ? `status-${status}` : "status-unknown";
}

const STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 1.5em 2em; line-height: 1.45; }
h1 { font-size: 1.4em; margin: .8em 0 .2em; }
h2 { font-size: 1.05em; margin: 1.4em 0 .5em; color: var(--vscode-descriptionForeground); text-transform: uppercase; letter-spacing: .05em; }
.facts, .summary { margin: .2em 0; color: var(--vscode-descriptionForeground); }
pre { white-space: pre-wrap; word-break: break-word; margin: .3em 0; font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); }
.turn { display: grid; gap: .5em; margin-bottom: .8em; }
.message { border-radius: 6px; padding: .4em .8em; border: 1px solid var(--vscode-panel-border); }
.message.user { background: var(--vscode-textBlockQuote-background); }
.message.agent { background: var(--vscode-editor-inactiveSelectionBackground); margin-left: 2em; }
.role { font-size: .8em; text-transform: uppercase; color: var(--vscode-descriptionForeground); }
ol.checks { list-style: none; padding: 0; margin: .6em 0; }
.card { border-left: 4px solid var(--vscode-panel-border); padding: .3em .8em; margin: .4em 0; background: var(--vscode-editorWidget-background); }
.card p { margin: .3em 0; }
.status-pass { border-color: var(--vscode-testing-iconPassed, #388a34); }
.status-fail { border-color: var(--vscode-testing-iconFailed, #c72e0f); }
.status-error { border-color: var(--vscode-editorWarning-foreground, #bf8803); }
.took, .status { color: var(--vscode-descriptionForeground); }
.reason strong, th { color: var(--vscode-descriptionForeground); font-weight: normal; text-align: left; padding-right: 1em; vertical-align: top; }
table { border-collapse: collapse; }
.empty { color: var(--vscode-descriptionForeground); }
`;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function number(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : 0;
}
