// Bundles the extension (dist/extension.js, `vscode` left external) and each unit test
// (out/test/*.test.js, run by `node --test`): the pure modules' tests as they are, the
// VS Code-facing modules' tests (*.vscode.test.ts) against fakes of `vscode` and the client.
import { build } from "esbuild";
import { readdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";

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
const tests = readdirSync("test").filter((name) => name.endsWith(".test.ts"));
// Tests of the pure modules: a test that pulls in `vscode` fails to resolve here, which
// keeps those modules pure.
const pure = tests.filter((name) => !name.endsWith(".vscode.test.ts")).map((name) => `test/${name}`);
await build({ ...common, entryPoints: pure, outdir: "out/test" });
// Tests of the VS Code-facing modules (*.vscode.test.ts): `vscode` and the language client
// resolve to the fakes in test/fake/, and a name the fakes do not export fails the build.
const fakes = {
  vscode: resolve("test/fake/vscode.ts"),
  "vscode-languageclient/node": resolve("test/fake/languageclient.ts"),
};
const vscodeTests = tests.filter((name) => name.endsWith(".vscode.test.ts")).map((name) => `test/${name}`);
await build({
  ...common,
  entryPoints: vscodeTests,
  outdir: "out/test",
  plugins: [
    {
      name: "fake-vscode",
      setup(build) {
        build.onResolve({ filter: /^vscode(-languageclient\/node)?$/ }, (args) => ({ path: fakes[args.path] }));
      },
    },
  ],
  logOverride: { "import-is-undefined": "error" },
});
// The manifest sync (`npm run sync-manifest`), bundled like a test.
await build({ ...common, entryPoints: ["scripts/sync-manifest.ts"], outdir: "out/scripts" });
console.log(`build: dist/extension.js and ${tests.length} test bundles`);
