// The JSON a run command answers (server/analysis/run_results.py `run_summary`, wrapped by
// server/lsp/commands.py) -> what the editor shows: a status-bar text, a notification and
// one line per check. Pure; the input is untrusted JSON, so it is read field by field.

export type Status = "pass" | "fail" | "error" | "skip" | "invalid" | "cancelled";

export interface CheckResult {
  step: number; // 0-based
  index: number; // 0-based within the step
  kind: string;
  line: number; // 0-based, as in LSP
  status: Status;
  message: string;
  /** What the check compared, as text, when it has both (for a diff). */
  expected?: string;
  actual?: string;
  durationMs?: number;
}

export interface StepError {
  step: number;
  line: number;
  message: string;
}

export interface ScenarioSummary {
  scenario: string;
  index: number;
  line: number;
  status: Status;
  summary: string;
  replayed: boolean;
  durationMs: number | undefined;
  checks: CheckResult[];
  errors: StepError[];
  /** What the scenario's code printed. */
  output: string;
  /** The agent's last answer, as text (undefined when nothing was asked). */
  answer?: string;
}

export interface RunReport {
  status: Status;
  scenarios: ScenarioSummary[];
  /** The run was cancelled: the scenarios it did not finish say "cancelled". */
  cancelled?: boolean;
  /** Set when nothing could run (bad arguments, no such scenario, server failure). */
  error?: string;
}

const STATUSES: readonly Status[] = ["pass", "fail", "error", "skip", "invalid", "cancelled"];
// Worst first, as the server orders them.
const WORST_FIRST: readonly Status[] = ["error", "fail", "invalid", "cancelled", "skip", "pass"];

/** Reads either command's answer: one scenario summary, or `{uri, status, scenarios}`. */
export function parseRunResult(value: unknown): RunReport {
  if (!isObject(value)) {
    return { status: "error", scenarios: [], error: "the server gave no result; see the checkspec output" };
  }
  const error = typeof value["error"] === "string" ? value["error"] : undefined;
  const raw = Array.isArray(value["scenarios"])
    ? value["scenarios"]
    : typeof value["scenario"] === "string"
      ? [value]
      : [];
  const scenarios = raw.filter(isObject).map(parseScenario);
  const status = error !== undefined && scenarios.length === 0 ? "error" : worst(scenarios.map((s) => s.status));
  const report: RunReport = { status, scenarios };
  if (error !== undefined) report.error = error;
  if (value["cancelled"] === true) report.cancelled = true;
  return report;
}

/** One `checkspec/scenarioFinished` notification: `{uri, ...scenario summary}`. */
export function parseScenarioFinished(value: unknown): { uri: string; summary: ScenarioSummary } | undefined {
  if (!isObject(value) || typeof value["uri"] !== "string" || typeof value["scenario"] !== "string") return undefined;
  return { uri: value["uri"], summary: parseScenario(value) };
}

export function parseScenario(value: Record<string, unknown>): ScenarioSummary {
  const name = text(value["scenario"]);
  const status = statusOf(value["status"]);
  return {
    scenario: name,
    index: count(value["index"]),
    line: count(value["line"]),
    status,
    summary: text(value["summary"]) || `${name}: ${status}`,
    replayed: value["replayed"] === true,
    durationMs: typeof value["duration_ms"] === "number" ? value["duration_ms"] : undefined,
    checks: list(value["checks"]).map(parseCheck),
    errors: list(value["errors"]).map((error) => ({
      step: count(error["step"]),
      line: count(error["line"]),
      message: text(error["message"]),
    })),
    output: text(value["output"]),
    ...(typeof value["answer"] === "string" ? { answer: value["answer"] } : {}),
  };
}

function parseCheck(check: Record<string, unknown>): CheckResult {
  const parsed: CheckResult = {
    step: count(check["step"]),
    index: count(check["index"]),
    kind: text(check["kind"]),
    line: count(check["line"]),
    status: statusOf(check["status"]),
    message: text(check["message"]),
  };
  if (typeof check["expected"] === "string" && typeof check["actual"] === "string") {
    parsed.expected = check["expected"];
    parsed.actual = check["actual"];
  }
  if (typeof check["duration_ms"] === "number" && Number.isFinite(check["duration_ms"])) parsed.durationMs = check["duration_ms"];
  return parsed;
}

export function worst(statuses: readonly Status[]): Status {
  return WORST_FIRST.find((status) => statuses.includes(status)) ?? "pass";
}

/** Short enough for the status bar; the codicon tells the outcome at a glance. */
export function statusBarText(report: RunReport): string {
  return `${ICONS[report.status]} ${headline(report)}`;
}

export const ICONS: Readonly<Record<Status, string>> = {
  pass: "$(pass)",
  fail: "$(error)",
  error: "$(warning)",
  skip: "$(circle-slash)",
  invalid: "$(warning)",
  cancelled: "$(circle-slash)",
};

/** One line: the scenario's own summary, or counts for a file. */
export function headline(report: RunReport): string {
  const [only] = report.scenarios;
  if (report.error !== undefined && report.scenarios.length === 0) return `checkspec: ${report.error}`;
  if (only !== undefined && report.scenarios.length === 1) return only.summary;
  const counts = new Map<Status, number>();
  for (const scenario of report.scenarios) counts.set(scenario.status, (counts.get(scenario.status) ?? 0) + 1);
  const parts = [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${n} ${status}`);
  return `checkspec: ${report.scenarios.length} scenarios — ${parts.join(", ")}`;
}

export type Severity = "info" | "warning" | "error";

export function severity(report: RunReport): Severity {
  if (report.status === "pass" || report.status === "skip" || report.status === "cancelled") return "info";
  return report.status === "fail" ? "warning" : "error";
}

const MARKS: Readonly<Record<Status, string>> = {
  pass: "✓",
  fail: "✗",
  error: "!",
  skip: "-",
  invalid: "?",
  cancelled: "-",
};

/** The report as text for the output channel: each scenario, then its checks and errors. */
export function resultLines(report: RunReport): string[] {
  const lines: string[] = [];
  if (report.error !== undefined) lines.push(`checkspec: ${report.error}`);
  for (const scenario of report.scenarios) {
    const took = scenario.durationMs === undefined ? "" : ` (${scenario.durationMs} ms)`;
    lines.push(`${MARKS[scenario.status]} ${scenario.summary}${took}`);
    for (const check of scenario.checks) lines.push(`    ${checkLine(check)}`);
    for (const error of scenario.errors) {
      lines.push(`    ! step ${error.step + 1}, line ${error.line + 1}: ${error.message}`);
    }
  }
  return lines;
}

/** `✗ step 2 · string_matching (line 31): The answer does not contain ...` (1-based, as shown). */
export function checkLine(check: CheckResult): string {
  const message = check.message === "" ? "" : `: ${firstLine(check.message)}`;
  return `${MARKS[check.status]} step ${check.step + 1} · ${check.kind} (line ${check.line + 1})${message}`;
}

export interface Problem {
  line: number;
  message: string;
  expected?: string;
  actual?: string;
}

/** The checks that did not pass, each with the line to show it at (and what it compared). */
export function problems(scenario: ScenarioSummary): Problem[] {
  const found: Problem[] = scenario.checks
    .filter((check) => check.status === "fail" || check.status === "error")
    .map((check) => {
      const problem: Problem = { line: check.line, message: `${check.kind} ${check.status}ed: ${check.message || "no message"}` };
      if (check.expected !== undefined && check.actual !== undefined) {
        problem.expected = check.expected;
        problem.actual = check.actual;
      }
      return problem;
    });
  for (const error of scenario.errors) found.push({ line: error.line, message: `step ${error.step + 1} errored: ${error.message}` });
  return found;
}

function firstLine(message: string): string {
  const [first = ""] = message.split("\n");
  return first.length > 200 ? `${first.slice(0, 199)}…` : first;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : 0;
}

function statusOf(value: unknown): Status {
  return STATUSES.find((status) => status === value) ?? "error";
}

/** Several files' reports as one (a Test Explorer run over several files): one summary. */
export function combine(reports: readonly RunReport[]): RunReport {
  const scenarios = reports.flatMap((report) => report.scenarios);
  const errors = reports.map((report) => report.error).filter((error): error is string => error !== undefined);
  const combined: RunReport = { status: worst(reports.map((report) => report.status)), scenarios };
  if (reports.some((report) => report.cancelled === true)) combined.cancelled = true;
  if (errors.length > 0 && scenarios.length === 0) combined.error = errors.join("; ");
  return combined;
}

/** A test message's text: what failed, then the agent's answer (what was checked). */
export function messageWithAnswer(message: string, answer: string | undefined, limit = 2000): string {
  if (answer === undefined || answer === "") return message;
  const shown = answer.length > limit ? `${answer.slice(0, limit - 1)}…` : answer;
  return `${message}\n\nThe agent answered:\n${shown}`;
}
