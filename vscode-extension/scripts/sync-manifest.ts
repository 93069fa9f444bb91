// `npm run sync-manifest`: regenerate the catalog-derived parts of package.json (after
// `checkspec schema` changed ../schemas/catalog.json). test/manifest.test.ts fails until
// this has been run and the result committed.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CATALOG } from "../src/catalog";
import { generatedManifest } from "../src/manifest";

const path = join(__dirname, "..", "..", "package.json");
const manifest = JSON.parse(readFileSync(path, "utf8"));
writeFileSync(path, `${JSON.stringify(generatedManifest(manifest, CATALOG), null, 2)}\n`);
console.log("sync-manifest: package.json regenerated from ../schemas/catalog.json");
