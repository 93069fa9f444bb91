// The fakes against what they stand for: an enum value copied wrong would let a test pass
// that VS Code would fail, so each enum of the fakes is compared with the declarations of
// @types/vscode and vscode-languageclient, and the fake client's protocol types are the real ones.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import * as client from "./fake/languageclient";
import * as vscode from "./fake/vscode";
import { ROOT } from "./helpers";

/** `Name = value` members of `enum <name> { ... }` in a declaration file. */
function declaredEnum(file: string, name: string): Record<string, number> {
  const text = readFileSync(join(ROOT, "node_modules", file), "utf8");
  const start = text.search(new RegExp(`export (declare )?enum ${name} \\{`));
  assert.ok(start >= 0, `enum ${name} not in ${file}`);
  const rest = text.slice(start).replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ""); // comments may hold braces
  const body = rest.slice(0, rest.indexOf("}"));
  const members: Record<string, number> = {};
  for (const [, key, value] of body.matchAll(/(\w+)\s*=\s*(-?\d+)/g)) members[key as string] = Number(value);
  return members;
}

/** A TypeScript numeric enum's members, without the reverse mapping. */
function members(enumObject: Record<string, string | number>): Record<string, number> {
  return Object.fromEntries(Object.entries(enumObject).filter((entry): entry is [string, number] => typeof entry[1] === "number"));
}

describe("the fakes", () => {
  const VSCODE = "@types/vscode/index.d.ts";
  const used = {
    StatusBarAlignment: vscode.StatusBarAlignment,
    ProgressLocation: vscode.ProgressLocation,
    LanguageStatusSeverity: vscode.LanguageStatusSeverity,
    TestRunProfileKind: vscode.TestRunProfileKind,
  };
  for (const [name, enumObject] of Object.entries(used)) {
    it(`copies vscode.${name} as @types/vscode declares it`, () => {
      assert.deepEqual(members(enumObject), declaredEnum(VSCODE, name));
    });
  }

  it("copies the ViewColumn values it has as @types/vscode declares them", () => {
    const declared = declaredEnum(VSCODE, "ViewColumn");
    for (const [key, value] of Object.entries(members(vscode.ViewColumn))) assert.equal(value, declared[key], key);
  });

  for (const name of ["State", "RevealOutputChannelOn"] as const) {
    it(`copies the client's ${name} as vscode-languageclient declares it`, () => {
      assert.deepEqual(members(client[name]), declaredEnum("vscode-languageclient/lib/common/client.d.ts", name));
    });
  }

  it("gives src/ the protocol's own request and notification types", () => {
    assert.equal(client.ExecuteCommandRequest.type.method, "workspace/executeCommand");
    assert.equal(client.DocumentSymbolRequest.type.method, "textDocument/documentSymbol");
    assert.equal(client.DidChangeConfigurationNotification.type.method, "workspace/didChangeConfiguration");
  });
});
