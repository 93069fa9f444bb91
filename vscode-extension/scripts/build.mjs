// Bundles the extension (dist/extension.js, `vscode` left external) and each unit test
// (out/test/*.test.js, run by `node --test`). Tests import only the pure modules.
import { build } from "esbuild";
import { readdirSync, rmSync } from "node:fs";

// --production (vscode:prepublish): a minified bundle for the .vsix.
const production = process.argv.includes("--production");

const common = {
  bundle: true,
  platform: "node",
  target: "node18", // VS Code 1.85's extension host
  format: "cjs",
  logLevel: "warning",
};

await build({
  ...common,
  entryPoints: ["src/extension.ts"],
  outfile: "dist/extension.js",
  external: ["vscode"],
  sourcemap: !production,
  sourcesContent: false,
  minify: production,
});

rmSync("out", { recursive: true, force: true });
const tests = readdirSync("test")
  .filter((name) => name.endsWith(".test.ts"))
  .map((name) => `test/${name}`);
await build({
  ...common,
  entryPoints: tests,
  outdir: "out/test",
  // A test that pulls in `vscode` fails to resolve here, which keeps the tested modules pure.
});
// The manifest sync (`npm run sync-manifest`), bundled like a test.
await build({ ...common, entryPoints: ["scripts/sync-manifest.ts"], outdir: "out/scripts" });
console.log(`build: dist/extension.js and ${tests.length} test bundles`);
