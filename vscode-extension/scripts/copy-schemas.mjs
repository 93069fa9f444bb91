// Copies the generated JSON Schemas (../schemas/*.schema.json, the single source of truth)
// into schemas/ so yamlValidation/jsonValidation can point inside the extension. The copy
// is gitignored: never edit it.
import { copyFileSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const source = join(root, "..", "schemas");
const target = join(root, "schemas");

const names = readdirSync(source).filter((name) => name.endsWith(".schema.json"));
if (names.length === 0) {
  console.error(`copy-schemas: no *.schema.json in ${source}`);
  process.exit(1);
}
rmSync(target, { recursive: true, force: true }); // a schema removed upstream goes here too
mkdirSync(target);
for (const name of names) copyFileSync(join(source, name), join(target, name));
console.log(`copy-schemas: ${names.length} schemas -> schemas/`);
