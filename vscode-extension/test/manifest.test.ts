// package.json against the code and the repository: ids, settings and schema paths that
// would otherwise only fail inside VS Code.
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { CATALOG } from "../src/catalog";
import { EXTENSION_SETTINGS, generatedManifest } from "../src/manifest";
import { SPEC_PATTERNS } from "../src/specFiles";
import { ROOT } from "./helpers";

interface Manifest {
  main: string;
  engines: { vscode: string };
  activationEvents: string[];
  contributes: {
    commands: { command: string }[];
    configuration: { properties: Record<string, { default?: unknown }> };
    yamlValidation: { fileMatch: string[]; url: string }[];
    jsonValidation: { fileMatch: string; url: string }[];
  };
  devDependencies: Record<string, string>;
}

const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Manifest;
const source = (name: string): string => readFileSync(join(ROOT, "src", name), "utf8");

describe("package.json", () => {
  it("registers in code every command it contributes", () => {
    const code = readdirSync(join(ROOT, "src")).map(source).join("\n");
    for (const { command } of manifest.contributes.commands) {
      assert.ok(code.includes(`"${command}"`), `${command} is contributed but never registered`);
    }
  });

  it("is in step with the engine's catalog (else: npm run sync-manifest, then commit)", () => {
    const raw = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    assert.deepEqual(raw, generatedManifest(raw, CATALOG));
  });

  it("contributes the catalog's editor settings and the extension's own", () => {
    const properties = Object.keys(manifest.contributes.configuration.properties);
    const expected = [
      ...EXTENSION_SETTINGS,
      ...CATALOG.settings.map((setting) => setting.key),
      ...CATALOG.editorChoices.map((choice) => choice.key),
    ];
    assert.deepEqual(properties.sort(), expected.map((key) => `checkspec.${key}`).sort());
    assert.ok(properties.includes("checkspec.targetTimeout"));
    assert.deepEqual(manifest.contributes.configuration.properties["checkspec.server.args"]?.default, ["lsp"]);
  });

  it("points schema validation at schemas the repository generates", () => {
    const generated = readdirSync(join(ROOT, "..", "schemas")).filter((name) => name.endsWith(".schema.json"));
    const urls = [...manifest.contributes.yamlValidation, ...manifest.contributes.jsonValidation].map((v) => v.url);
    for (const url of urls) {
      assert.match(url, /^\.\/schemas\/[a-z]+\.schema\.json$/);
      assert.ok(generated.includes(url.slice("./schemas/".length)), `${url} is not in ../schemas`);
      assert.ok(existsSync(join(ROOT, url)), `${url} was not copied by the build`);
    }
    assert.deepEqual(new Set(urls.map((url) => url.slice("./schemas/".length))), new Set(generated));
  });

  it("activates for every kind of spec file", () => {
    for (const pattern of SPEC_PATTERNS) {
      assert.ok(manifest.activationEvents.includes(`workspaceContains:${pattern}`), `no workspaceContains for ${pattern}`);
    }
  });

  it("bundles to the file it declares, for the engine @types/vscode describes", () => {
    assert.equal(manifest.main, "./dist/extension.js");
    assert.ok(existsSync(join(ROOT, "dist", "extension.js")));
    assert.equal(manifest.engines.vscode.replace(/^\^/, "~"), manifest.devDependencies["@types/vscode"]);
  });
});
