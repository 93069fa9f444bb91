// Which files are check specs: by name, as the engine decides (the catalog's file kinds,
// src/catalog.ts). Pure, so the document selector, the file search and the tests share
// one list.
import { CATALOG, namesSource } from "./catalog";

const runnable = CATALOG.fileKinds.filter((kind) => kind.runnable).flatMap((kind) => kind.patterns);
const all = CATALOG.fileKinds.flatMap((kind) => kind.patterns);

export const SPEC_PATTERNS: readonly string[] = all.map((pattern) => `**/${pattern}`);

/** Files holding scenarios (what the Test Explorer lists); checkspec.yaml holds none. */
export const RUNNABLE_GLOB = `**/{${runnable.join(",")}}`;

const RUNNABLE = new RegExp(namesSource(runnable));
const ANY = new RegExp(namesSource(all));

function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
}

export function isRunnableSpec(path: string): boolean {
  return RUNNABLE.test(baseName(path));
}

export function isSpecFile(path: string): boolean {
  return ANY.test(baseName(path));
}
