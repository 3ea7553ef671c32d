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

export interface MonitorBody {
  name: string;
  type: CheckType;
  config: Record<string, unknown>;
  interval_seconds: number;
  timeout_ms?: number;
  tags: string[];
  regions?: string[];
  runner_ids?: string[];
  paused?: boolean;
}

/**
 * Reads the monitor form into the API's body and checks it with the API's own rules: the check
 * type's config schema, and the interval/timeout bounds. Issues use the API's paths.
 */
export function readMonitorForm(type: CheckType, form: FormData, minInterval: number): { body: MonitorBody; issues: Issue[] } {
  const issues: Issue[] = [];
  const config = readFields(configFields(type), form, "config", issues);
  // readFields names parse problems by input name ("config.x"); the API says "body.config.x".
  for (const i of issues) i.path = `body.${i.path}`;
  const shapeIssues = validate(configSchemas[type] as TSchema, config, "body.config");
  issues.push(...shapeIssues);
  // The checks beyond the schema (a regular expression or JSONPath that does not compile), as the API runs them.
  const validateMore = (checkTypes[type] as { validate?: (c: unknown) => Issue[] }).validate;
  if (shapeIssues.length === 0 && validateMore) issues.push(...validateMore(config).map((i) => ({ path: i.path ? `body.config.${i.path}` : "body.config", message: i.message })));
  const num = (k: string) => (form.get(k) == null || form.get(k) === "" ? undefined : Number(form.get(k)));
  const name = String(form.get("name") ?? "").trim();
  if (!name) issues.push({ path: "body.name", message: "is required" });
  const interval = num("interval_seconds") ?? 300;
  if (!Number.isInteger(interval) || interval < minInterval || interval > 86_400) issues.push({ path: "body.interval_seconds", message: `must be a whole number from ${minInterval} to 86400` });
  const timeout = type === "heartbeat" ? undefined : num("timeout_ms");
  if (timeout !== undefined) {
    if (!Number.isInteger(timeout) || timeout < 100 || timeout > 120_000) issues.push({ path: "body.timeout_ms", message: "must be a whole number from 100 to 120000" });
    else if (timeout > interval * 1000) issues.push({ path: "body.timeout_ms", message: "must not exceed the interval" });
  }
  const tags = [...new Set(String(form.get("tags") ?? "").split(",").map((t) => t.trim()).filter(Boolean))];
  if (tags.some((t) => t.length > 64)) issues.push({ path: "body.tags", message: "each tag has at most 64 characters" });
  const body: MonitorBody = { name, type, config, interval_seconds: interval, tags };
  if (form.has("paused")) body.paused = true;
  if (timeout !== undefined) body.timeout_ms = timeout;
  // Only lists the form showed are sent, so a list that failed to load is left as it was.
  if (type !== "heartbeat" && form.has("has_regions")) body.regions = form.getAll("regions").map(String);
  if (type !== "heartbeat" && form.has("has_runners")) body.runner_ids = form.getAll("runner_ids").map(String);
  return { body, issues };
}
