// Scenarios of a document as the server's textDocument/documentSymbol lists them: the
// top-level symbols, in the order of the scenario indexes the run commands take. Pure.

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** The part of an LSP DocumentSymbol we use (SymbolInformation has no selectionRange). */
export interface SymbolLike {
  name: string;
  detail?: string | undefined;
  range: Range;
  selectionRange?: Range | undefined;
  children?: SymbolLike[] | undefined;
}

/** A top-level check of a scenario: `step` and `index` as run results number them. */
export interface CheckSymbol {
  step: number;
  index: number;
  kind: string;
  /** The check's own `name:`, if it has one. */
  name: string;
  head: Range;
}

export interface ScenarioSymbol {
  index: number;
  name: string;
  detail: string;
  range: Range;
  /** The scenario's name: where a result or a gutter icon belongs. */
  head: Range;
  /** The server could not build it (its problems are diagnostics); running it says so. */
  runnable: boolean;
  checks: CheckSymbol[];
}

export function scenariosOf(symbols: readonly SymbolLike[]): ScenarioSymbol[] {
  return symbols.map((symbol, index) => ({
    index,
    name: symbol.name,
    detail: symbol.detail ?? "",
    range: symbol.range,
    head: symbol.selectionRange ?? symbol.range,
    runnable: symbol.detail !== "not runnable", // server/analysis/symbols.py
    checks: checksOf(symbol),
  }));
}

const STEP_NAME = /^step (\d+)$/; // server/analysis/symbols.py names steps so

/** The checks under a scenario's steps (the outline's `… N more` entries are not checks). */
export function checksOf(scenario: SymbolLike): CheckSymbol[] {
  const checks: CheckSymbol[] = [];
  for (const step of scenario.children ?? []) {
    const number = STEP_NAME.exec(step.name);
    if (number === null) continue;
    (step.children ?? []).forEach((check, index) => {
      if (check.name.startsWith("…")) return;
      checks.push({
        step: Number(number[1]) - 1,
        index,
        kind: check.name,
        name: check.detail ?? "",
        head: check.selectionRange ?? check.range,
      });
    });
  }
  return checks;
}

/**
 * The scenario the cursor is in, by line: a suite's items touch (one ends on the line where
 * the next begins, and the cursor may sit in the indentation before `- name:`), so the last
 * scenario whose lines hold the cursor wins. Outside every scenario (a suite's header): the
 * only one, or undefined so the caller can ask.
 */
export function scenarioAt(scenarios: readonly ScenarioSymbol[], position: Position): ScenarioSymbol | undefined {
  let found: ScenarioSymbol | undefined;
  for (const scenario of scenarios) {
    const { start, end } = scenario.range;
    if (start.line <= position.line && position.line <= end.line) found = scenario;
  }
  if (found !== undefined) return found;
  return scenarios.length === 1 ? scenarios[0] : undefined;
}
