import { existsSync, readFileSync } from "node:fs";
import { extname, resolve } from "node:path";
import type { TObject, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { plugin } from "bun";
import { parse as parseJsonPlaces, type ParseError } from "jsonc-parser";
import YAML, { YAMLParseError } from "yaml";
import { CHECK_TYPES, type CheckType } from "../../../schemas/check-types.ts";
import { channelTypes, type ChannelType } from "../../../schemas/channel-types.ts";
import { CONFIG_FILE_VERSION, channelEntrySchemas, monitorEntrySchemas, MonitorKey, EscalationEntrySchema, MaintenanceEntrySchema, ProjectName, RuleEntrySchema, StatusPageEntrySchema } from "../../../schemas/monitoring-config.ts";
import "../../../schemas/formats.ts";
import { CliError, EXIT } from "../errors.ts";
import { defineConfig } from "../define-config.ts";
import { semanticIssues } from "./semantic-checks.ts";
import { placeIn } from "./source-place.ts";

export interface DesiredMonitor {
  key: string;
  name: string;
  type: CheckType;
  config: Record<string, unknown>;
  interval_seconds?: number;
  timeout_ms?: number;
  regions?: string[];
  runner_ids?: string[];
  tags?: string[];
  paused?: boolean;
}

export interface DesiredChannel {
  key: string;
  name: string;
  type: ChannelType;
  config: Record<string, unknown>;
  enabled?: boolean;
}

export interface DesiredRule {
  key: string;
  name: string;
  description?: string | null;
  enabled?: boolean;
  scope: { monitor: string } | { tag: string } | { all_monitors: true };
  condition: Record<string, unknown>;
  confirmation?: { consecutive_failures?: number; confirmation_regions?: string[] | null };
  notifications?: { on_recovery?: boolean; recurring?: boolean; recurring_interval_minutes?: number | null };
  channels?: { channel: string; delay_minutes?: number }[];
  escalation_policy?: string;
}

export interface DesiredPolicy {
  key: string;
  name: string;
  steps: { delay_minutes: number; channels: string[] }[];
}

export type DesiredComponent = ({ monitor: string } | { tag: string }) & { display_name: string; description?: string };

export interface DesiredStatusPage {
  slug: string;
  name: string;
  description?: string;
  theme_id?: string;
  sections?: { name: string; components: DesiredComponent[] }[];
}

export interface DesiredWindow {
  key: string;
  name: string;
  description?: string;
  starts_at?: string;
  ends_at?: string;
  rrule?: string;
  cron?: string;
  duration_minutes?: number;
  timezone?: string;
  monitors?: string[];
  tags?: string[];
  pause_monitors?: boolean;
  suppress_alerts?: boolean;
}

export interface DesiredState {
  version: number;
  /** Stores every item under `<project>/<key>`; --prune deletes only the project's items (project.ts). */
  project?: string;
  monitors: DesiredMonitor[];
  channels?: DesiredChannel[];
  escalation_policies?: DesiredPolicy[];
  rules?: DesiredRule[];
  status_pages?: DesiredStatusPage[];
  maintenance?: DesiredWindow[];
}

export interface Issue {
  path: string;
  message: string;
}

/** The file names `plan`, `apply` and `validate` look for when no --file is given. */
const DEFAULT_FILES = ["watchpost.yaml", "watchpost.yml", "watchpost.json", "watchpost.config.ts"];
const CODE = [".ts", ".mts", ".js", ".mjs"];

export function findConfigFile(file: string | undefined): string {
  if (file) {
    if (!existsSync(file)) throw new CliError(`${file}: no such file`, "USAGE", EXIT.usage);
    return file;
  }
  const found = DEFAULT_FILES.find((f) => existsSync(f));
  if (!found) throw new CliError(`No ${DEFAULT_FILES.join(", ")} here: give one with --file`, "USAGE", EXIT.usage);
  return found;
}

/**
 * JSON text, refusing a key repeated in one object as the YAML parser does (JSON.parse keeps the last silently, so
 * `"name"` written twice would apply whichever came second). The YAML parser reads JSON and names the line.
 */
function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // JSON.parse names no place; a second parser finds it and the first one's words are kept.
    const errors: ParseError[] = [];
    parseJsonPlaces(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    throw new SyntaxError(`${(err as Error).message}${errors[0] ? placeIn(text, errors[0].offset) : ""}`);
  }
  const duplicate = YAML.parseDocument(text, { schema: "json", prettyErrors: true }).errors.find((e) => e.code === "DUPLICATE_KEY");
  if (duplicate) throw duplicate;
  return value;
}

const MUST_HOLD = "the file must hold an object with version and monitors";

/** Parses YAML (or JSON, by extension) into a plain value; a syntax error names the line and column. */
function parseConfigText(text: string, path: string): unknown {
  if (!text.trim()) throw new CliError(`${path} is empty: ${MUST_HOLD}`, "INVALID_CONFIG");
  let value: unknown;
  try {
    if (extname(path) === ".json") return parseJson(text);
    value = YAML.parse(text, { prettyErrors: true, merge: true });
  } catch (err) {
    // The yaml package's own words here tell the user to call one of its functions.
    if (err instanceof YAMLParseError && err.code === "MULTIPLE_DOCS")
      throw new CliError(`${path}: the file must hold one YAML document; a second one starts${placeIn(text, err.pos[0], err.pos[1])}`, "INVALID_CONFIG");
    throw new CliError(`${path}: ${(err as Error).message}`, "INVALID_CONFIG");
  }
  if (value === null && YAML.parseDocument(text).contents === null) throw new CliError(`${path} holds only comments: ${MUST_HOLD}`, "INVALID_CONFIG");
  return value;
}

const pointer = (base: string, p: string) => `${base}${p.replaceAll("/", ".")}`;

/**
 * An entry whose type is missing or unknown has no schema to check the rest against; its other fields are the same
 * for every type, so a misspelled `tpye:` is still named beside the missing `type`.
 */
function unknownTypeIssues(at: string, entry: Record<string, unknown>, types: readonly string[], schemas: Record<string, TSchema>, issues: Issue[]) {
  const given = entry.type === undefined ? "required, one" : `${JSON.stringify(entry.type)} is not one`;
  issues.push({ path: `${at}.type`, message: `${given} of ${types.join(", ")}` });
  const fields = Object.keys((schemas[types[0]!] as TObject).properties);
  for (const k of Object.keys(entry)) if (!fields.includes(k)) issues.push({ path: `${at}.${k}`, message: "Unexpected property" });
}

/** Each entry against its schema (by its type, or one schema for all), and keys unique within the list. */
function validateEntries(list: string, entries: unknown[], types: readonly string[] | null, schemas: Record<string, TSchema> | TSchema, issues: Issue[], keyField = "key") {
  const seen = new Map<string, number>();
  entries.forEach((m, i) => {
    const at = `${list}[${i}]`;
    const entry = m as Record<string, unknown>;
    if (!entry || typeof entry !== "object" || Array.isArray(entry)) return issues.push({ path: at, message: "must be an object" });
    if (types && !types.includes(entry.type as string)) return unknownTypeIssues(at, entry, types, schemas as Record<string, TSchema>, issues);
    const schema = types ? (schemas as Record<string, TSchema>)[entry.type as string]! : (schemas as TSchema);
    for (const e of Value.Errors(schema, entry)) issues.push({ path: pointer(at, e.path), message: e.message });
    const key = entry[keyField];
    if (typeof key === "string" && (keyField !== "key" || Value.Check(MonitorKey, key))) {
      const first = seen.get(key);
      if (first !== undefined) issues.push({ path: `${at}.${keyField}`, message: `"${key}" is also the ${keyField} of ${list}[${first}]` });
      else seen.set(key, i);
    }
  });
}

/** Every problem of the file against the published schema, each with its path (`monitors[2].config.url`). */
/** Shell forms of a reference (`${NAME:-default}`, `${NAME:?message}`…) are not replaced: they would be sent as written. */
const SHELL_REF = /\$\{[A-Za-z_][A-Za-z0-9_]*:?[-=?+][^}]*\}/;

function shellReferences(value: unknown, path: string, issues: Issue[]): void {
  if (typeof value === "string") {
    const m = SHELL_REF.exec(value);
    if (m) issues.push({ path, message: `${m[0]} is not replaced: only \${NAME} is (set the variable, or write the value)` });
  } else if (Array.isArray(value)) value.forEach((v, i) => shellReferences(v, `${path}[${i}]`, issues));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) shellReferences(v, path ? `${path}.${k}` : k, issues);
}

export function validateConfig(value: unknown): Issue[] {
  const issues: Issue[] = [];
  if (!value || typeof value !== "object" || Array.isArray(value)) return [{ path: "", message: MUST_HOLD }];
  const doc = value as Record<string, unknown>;
  for (const k of Object.keys(doc)) if (!["$schema", "version", "project", "monitors", "channels", "escalation_policies", "rules", "status_pages", "maintenance"].includes(k)) issues.push({ path: k, message: "unknown property" });
  if (doc.version !== CONFIG_FILE_VERSION) issues.push({ path: "version", message: `must be ${CONFIG_FILE_VERSION}` });
  if (doc.project !== undefined && !Value.Check(ProjectName, doc.project))
    issues.push({ path: "project", message: "must be 1 to 24 lower-case letters, digits, '_' or '-', starting with a letter or digit (no dots or slashes)" });
  if (!Array.isArray(doc.monitors)) issues.push({ path: "monitors", message: "must be a list" });
  else validateEntries("monitors", doc.monitors, CHECK_TYPES, monitorEntrySchemas, issues);
  if (doc.channels !== undefined) {
    if (!Array.isArray(doc.channels)) issues.push({ path: "channels", message: "must be a list" });
    else validateEntries("channels", doc.channels, channelTypes, channelEntrySchemas, issues);
  }
  if (doc.escalation_policies !== undefined) {
    if (!Array.isArray(doc.escalation_policies)) issues.push({ path: "escalation_policies", message: "must be a list" });
    else validateEntries("escalation_policies", doc.escalation_policies, null, EscalationEntrySchema, issues);
  }
  if (doc.rules !== undefined) {
    if (!Array.isArray(doc.rules)) issues.push({ path: "rules", message: "must be a list" });
    else validateEntries("rules", doc.rules, null, RuleEntrySchema, issues);
  }
  if (doc.status_pages !== undefined) {
    if (!Array.isArray(doc.status_pages)) issues.push({ path: "status_pages", message: "must be a list" });
    else validateEntries("status_pages", doc.status_pages, null, StatusPageEntrySchema, issues, "slug");
  }
  if (doc.maintenance !== undefined) {
    if (!Array.isArray(doc.maintenance)) issues.push({ path: "maintenance", message: "must be a list" });
    else validateEntries("maintenance", doc.maintenance, null, MaintenanceEntrySchema, issues);
  }
  shellReferences(doc, "", issues);
  // What the API would refuse beyond the schema, once the entries have the schema's shape.
  if (issues.length === 0) issues.push(...semanticIssues(doc));
  return issues;
}

/**
 * `import { defineConfig } from "watchpost/config"` in a watchpost.config.ts resolves to this CLI's own, also where
 * no package named watchpost is installed (the single-file CLI a server hands out, GET /cli/watchpost.js).
 */
function provideConfigModule(): void {
  if (configModuleProvided) return;
  configModuleProvided = true;
  plugin({ name: "watchpost-config", setup: (build) => void build.module("watchpost/config", () => ({ exports: { defineConfig }, loader: "object" })) });
}
let configModuleProvided = false;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The file as UTF-8 text. Another encoding (Latin-1, UTF-16 from some Windows editors) is refused with the
 * line of its first bad byte: decoding it leniently would store U+FFFD in names and send headers changed.
 */
function readUtf8(path: string): string {
  const bytes = readFileSync(path);
  try {
    return utf8.decode(bytes);
  } catch {
    const lines = new TextDecoder("utf-8").decode(bytes).split("\n");
    const line = lines.findIndex((l) => l.includes("\uFFFD"));
    const at = line === -1 ? "" : ` at line ${line + 1}, column ${lines[line]!.indexOf("\uFFFD") + 1}`;
    throw new CliError(`${path}: not valid UTF-8${at}: save the file as UTF-8`, "INVALID_CONFIG");
  }
}

/** The file's value: YAML or JSON text, or the default export of a watchpost.config.ts (defineConfig). */
export async function readConfigValue(path: string): Promise<unknown> {
  if (!CODE.includes(extname(path))) return parseConfigText(readUtf8(path), path);
  try {
    provideConfigModule();
    const mod = (await import(resolve(path))) as { default?: unknown };
    if (mod.default === undefined) throw new Error("it has no default export (export default defineConfig({...}))");
    return mod.default;
  } catch (err) {
    throw new CliError(`${path}: ${(err as Error).message}`, "INVALID_CONFIG");
  }
}

/** Reads, parses and validates a config file; invalid → CliError with details.issues. */
export async function loadConfig(path: string): Promise<DesiredState> {
  const value = await readConfigValue(path);
  const issues = validateConfig(value);
  if (issues.length) throw new CliError(`${path} is not a valid Watchpost config (${issues.length} problem${issues.length === 1 ? "" : "s"})`, "INVALID_CONFIG", EXIT.error, { issues });
  return value as DesiredState;
}
