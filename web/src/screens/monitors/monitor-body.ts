import type { TSchema } from "@sinclair/typebox";
import { checkTypes, CHECK_TYPES as REGISTERED_TYPES, configSchemas } from "../../../../schemas/check-types.ts";
import { describeFields, readFields, validate, type FormField, type Issue } from "../../lib/schema-form";
import type { Monitor } from "./use-monitors";

export type CheckType = Monitor["type"];
export const CHECK_TYPES: CheckType[] = REGISTERED_TYPES;

/** What each check type watches, for the type picker (each type's spec, schemas/check-types.ts). */
export const CHECK_LABELS = Object.fromEntries(CHECK_TYPES.map((t) => [t, checkTypes[t].label])) as Record<CheckType, string>;

const fieldCache = new Map<CheckType, FormField[]>();
/** The config fields of a check type, generated from the schema the API validates with. */
export function configFields(type: CheckType): FormField[] {
  let f = fieldCache.get(type);
  if (!f) fieldCache.set(type, (f = describeFields(configSchemas[type] as TSchema)));
  return f;
}

/** `example.com/shop` → `https://example.com/shop`: an address typed without a scheme is taken as HTTPS. */
export function assumeScheme(value: string): string {
  const v = value.trim();
  if (!v || /^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return v;
  return `https://${v.replace(/^\/+/, "")}`;
}

/**
 * The host an address names, with its port unless it is the scheme's default (`https://shop.example.com/x` →
 * `shop.example.com`, `http://10.0.0.5:8080/` → `10.0.0.5:8080`), for a monitor's default name.
 */
export function hostOf(value: string): string {
  const v = value.trim();
  if (!v) return "";
  try {
    const host = new URL(assumeScheme(v)).host;
    // Chromium percent-encodes what no host may hold ("not a domain" → not%20a%20domain) where the standard refuses it.
    return host.includes("%") ? "" : host;
  } catch {
    // Not an address: no name to offer.
    return "";
  }
}

/** The config field that names what a check type watches (url, host, domain, record name), if it has one. */
export function targetFieldOf(type: CheckType): string | null {
  return configFields(type).find((f) => f.required && ["url", "host", "domain", "name"].includes(f.key))?.key ?? null;
}

/** Labels of every field of the form by the API's issue path, so errors are named as the form names them. */
export function monitorFieldLabels(type: CheckType): Record<string, string> {
  const labels: Record<string, string> = {
    "body.name": "Name",
    "body.type": "Check type",
    "body.interval_seconds": "Check every (seconds)",
    "body.timeout_ms": "Timeout (ms)",
    "body.tags": "Tags",
    "body.regions": "Regions",
    "body.runner_ids": "Runners",
    "body.config": "Settings",
  };
  const walk = (fields: FormField[]) => {
    for (const f of fields) {
      labels[`body.config.${f.path}`] = f.label;
      if (f.fields) walk(f.fields);
    }
  };
  walk(configFields(type));
  return labels;
}

export interface MonitorBody {
  name: string;
  type: CheckType;
  config: Record<string, unknown>;
  /** Not for heartbeats: their period or schedule says when a ping is due. */
  interval_seconds?: number;
  timeout_ms?: number;
  tags: string[];
  regions?: string[];
  runner_ids?: string[];
  paused?: boolean;
}

const CLI_KEY_TAG = /^wp-key:(?:[a-z0-9][a-z0-9_-]{0,23}\/)?[a-z0-9][a-z0-9._-]{0,56}$/;

/**
 * Reads the monitor form into the API's body and checks it with the API's own rules: the check
 * type's config schema, and the interval/timeout bounds. Issues use the API's paths.
 */
export function readMonitorForm(type: CheckType, form: FormData, minInterval: number): { body: MonitorBody; issues: Issue[] } {
  const issues: Issue[] = [];
  if (typeof form.get("config.url") === "string") form.set("config.url", assumeScheme(String(form.get("config.url"))));
  const config = readFields(configFields(type), form, "config", issues);
  // readFields names parse problems by input name ("config.x"); the API says "body.config.x".
  for (const i of issues) i.path = `body.${i.path}`;
  const shapeIssues = validate(configSchemas[type] as TSchema, config, "body.config");
  issues.push(...shapeIssues);
  // The checks beyond the schema (a regular expression or JSONPath that does not compile), as the API runs them.
  const validateMore = (checkTypes[type] as { validate?: (c: unknown) => Issue[] }).validate;
  if (shapeIssues.length === 0 && validateMore) issues.push(...validateMore(config).map((i) => ({ path: i.path ? `body.config.${i.path}` : "body.config", message: i.message })));
  const num = (k: string) => (form.get(k) == null || form.get(k) === "" ? undefined : Number(form.get(k)));
  // Left empty, the name is the host the monitor watches.
  const target = targetFieldOf(type);
  const name = String(form.get("name") ?? "").trim() || (target ? hostOf(String(config[target] ?? "")) : "");
  if (!name) issues.push({ path: "body.name", message: "is required" });
  // A heartbeat's form has no interval: the sweep looks for missed pings every 5 s whatever it says.
  const interval = type === "heartbeat" ? undefined : (num("interval_seconds") ?? 300);
  if (interval !== undefined && (!Number.isInteger(interval) || interval < minInterval || interval > 86_400)) issues.push({ path: "body.interval_seconds", message: `must be a whole number from ${minInterval} to 86400` });
  const timeout = interval === undefined ? undefined : num("timeout_ms");
  if (timeout !== undefined) {
    if (!Number.isInteger(timeout) || timeout < 100 || timeout > 120_000) issues.push({ path: "body.timeout_ms", message: "must be a whole number from 100 to 120000" });
    else if (timeout > interval! * 1000) issues.push({ path: "body.timeout_ms", message: "must not exceed the interval" });
  }
  const tags = [...new Set(String(form.get("tags") ?? "").split(",").map((t) => t.trim()).filter(Boolean))];
  // The watchpost CLI's key tag of a project (wp-key:<project>/<key>) may be longer, as the API allows.
  if (tags.some((t) => t.length > 64 && !CLI_KEY_TAG.test(t))) issues.push({ path: "body.tags", message: "each tag has at most 64 characters" });
  const body: MonitorBody = { name, type, config, ...(interval === undefined ? {} : { interval_seconds: interval }), tags };
  if (form.has("paused")) body.paused = true;
  if (timeout !== undefined) body.timeout_ms = timeout;
  // Only lists the form showed are sent, so a list that failed to load is left as it was.
  if (type !== "heartbeat" && form.has("has_regions")) body.regions = form.getAll("regions").map(String);
  if (type !== "heartbeat" && form.has("has_runners")) body.runner_ids = form.getAll("runner_ids").map(String);
  return { body, issues };
}
