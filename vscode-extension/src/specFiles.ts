// Which files are check specs: by name, as the engine decides (engine/spec/kinds.py).
// Pure, so the document selector, the file search and the tests share one list.

export const SPEC_PATTERNS: readonly string[] = [
  "**/*.scenario.{yaml,yml,json}",
  "**/*.suite.{yaml,yml,json}",
  "**/*.dataset.{yaml,yml,json,jsonl}",
  "**/checkspec.{yaml,yml}",
];

/** Files holding scenarios (what the Test Explorer lists); checkspec.yaml holds none. */
export const RUNNABLE_GLOB = "**/*.{scenario,suite,dataset}.{yaml,yml,json,jsonl}";

const RUNNABLE = /\.(scenario|suite)\.(ya?ml|json)$|\.dataset\.(ya?ml|jsonl?)$/;
const CONFIG = /^checkspec\.ya?ml$/;

function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
}

export function isRunnableSpec(path: string): boolean {
  return RUNNABLE.test(baseName(path));
}

export function isSpecFile(path: string): boolean {
  return isRunnableSpec(path) || CONFIG.test(baseName(path));
}
