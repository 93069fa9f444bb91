// The parts of package.json that come from the engine's catalog: the settings the server
// reads, the activation events and schema associations of every kind of spec file, and the
// file-name test of the run commands. `npm run sync-manifest` writes them; a test fails
// when package.json drifts from the catalog (as rust-analyzer keeps its package.json in
// step with its config). Pure.
import { type Catalog, type EditorChoiceEntry, type SettingEntry, namesSource } from "./catalog";

/** Settings only the extension reads (how to start the server, tracing). */
export const EXTENSION_SETTINGS = ["server.path", "server.args", "trace.server"] as const;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function object(value: Json | undefined): JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
}

export function settingProperty(setting: SettingEntry): JsonObject {
  const from = [`\`${setting.name}:\` in checkspec.yaml`, ...(setting.env ? [`\`${setting.env}\``] : [])];
  const fallback = setting.default === null ? "" : `, else \`${String(setting.default)}\``;
  const description = `${setting.description} Overrides ${from.join(" and ")}; empty: those${fallback}.`;
  const property: JsonObject =
    setting.type === "string"
      ? { type: "string", default: "" }
      : { type: [setting.type, "null"], default: null };
  // -- settings with choices (diagnostics.scope, issue 28): the values and the default --
  if (setting.enum !== undefined) {
    property["enum"] = setting.enum;
    property["default"] = setting.default;
  }
  // -- end settings with choices --
  if (setting.minimum !== undefined) property["minimum"] = setting.minimum;
  if (setting.exclusiveMinimum !== undefined) property["exclusiveMinimum"] = setting.exclusiveMinimum;
  if (setting.maximum !== undefined) property["maximum"] = setting.maximum;
  if (setting.machine) property["scope"] = "machine-overridable";
  property["markdownDescription"] = description;
  return property;
}

/** An editor-only setting of the catalog (issue 28 item 2), e.g. `checkspec.runOnSave`. */
export function choiceProperty(choice: EditorChoiceEntry): JsonObject {
  return {
    type: "string",
    enum: choice.enum,
    default: choice.default,
    enumDescriptions: choice.enumDescriptions,
    markdownDescription: choice.description,
  };
}

/** The regular expression the run commands' `when` clauses test file names with. */
export function runnableWhen(catalog: Catalog): string {
  const globs = catalog.fileKinds.filter((kind) => kind.runnable).flatMap((kind) => kind.patterns);
  return `resourceFilename =~ /${namesSource(globs).replace(/\//g, "\\/")}/`;
}

/** `manifest` with its catalog-derived parts regenerated (everything else kept). */
export function generatedManifest(manifest: JsonObject, catalog: Catalog): JsonObject {
  const result = JSON.parse(JSON.stringify(manifest)) as JsonObject;
  const contributes = object(result["contributes"]);
  const configuration = object(contributes["configuration"]);
  const current = object(configuration["properties"]);
  const properties: JsonObject = {};
  for (const key of EXTENSION_SETTINGS.slice(0, 2)) {
    const found = current[`checkspec.${key}`];
    if (found !== undefined) properties[`checkspec.${key}`] = found;
  }
  for (const setting of catalog.settings) {
    properties[`checkspec.${setting.key}`] = settingProperty(setting);
  }
  for (const choice of catalog.editorChoices) {
    properties[`checkspec.${choice.key}`] = choiceProperty(choice);
  }
  for (const key of EXTENSION_SETTINGS.slice(2)) {
    const found = current[`checkspec.${key}`];
    if (found !== undefined) properties[`checkspec.${key}`] = found;
  }
  configuration["properties"] = properties;
  contributes["configuration"] = configuration;

  const patterns = catalog.fileKinds.flatMap((kind) => kind.patterns);
  const events = Array.isArray(result["activationEvents"]) ? result["activationEvents"] : [];
  const others = events.filter((event) => typeof event !== "string" || !event.startsWith("workspaceContains:"));
  result["activationEvents"] = [...patterns.map((pattern) => `workspaceContains:**/${pattern}`), ...others];

  contributes["yamlValidation"] = catalog.fileKinds.map((kind) => ({
    fileMatch: kind.patterns.filter((pattern) => /\.ya?ml$/.test(pattern)),
    url: `./schemas/${kind.schema}`,
  }));
  contributes["jsonValidation"] = catalog.fileKinds.flatMap((kind) =>
    kind.patterns
      .filter((pattern) => pattern.endsWith(".json"))
      .map((pattern) => ({ fileMatch: pattern, url: `./schemas/${kind.schema}` })),
  );

  const when = runnableWhen(catalog);
  const menus = object(contributes["menus"]);
  for (const entries of Object.values(menus)) {
    if (!Array.isArray(entries)) continue;
    for (const entry of entries) {
      const item = object(entry);
      if (typeof item["when"] === "string" && item["when"].includes("resourceFilename =~")) {
        item["when"] = item["when"].replace(/resourceFilename =~ \/.*\/$/, when);
      }
    }
  }

  const capabilities = object(result["capabilities"]);
  const untrusted = object(capabilities["untrustedWorkspaces"]);
  if (Array.isArray(untrusted["restrictedConfigurations"])) {
    untrusted["restrictedConfigurations"] = [
      "checkspec.server.path",
      "checkspec.server.args",
      ...catalog.settings.filter((setting) => setting.machine).map((setting) => `checkspec.${setting.key}`),
    ];
  }
  result["contributes"] = contributes;
  return result;
}
