import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The extension folder: tests run bundled from out/test/. */
export const ROOT = join(__dirname, "..", "..");

export function fixture(name: string): unknown {
  return JSON.parse(readFileSync(join(ROOT, "test", "fixtures", name), "utf8"));
}
