import type { TObject, TSchema } from "@sinclair/typebox";
import { ValueErrorType } from "@sinclair/typebox/errors";
import { Value } from "@sinclair/typebox/value";
import type { Issue } from "./form-issues";

export { FormIssuesError, type Issue } from "./form-issues";

/**
 * Forms generated from the very TypeBox schemas the API validates with (check configs,
 * alert conditions, channel configs), validated in the browser by the same `Value` checks,
 * with issue paths in the API's own form (`body.config.url`), so one map shows both.
 */
type FieldKind = "text" | "textarea" | "number" | "checkbox" | "select" | "multi" | "lines" | "pairs" | "json" | "group" | "variant" | "rows";

export interface FormField {
  key: string;
  /** Dotted path below the form's prefix, e.g. `auth.username`; the input's name is `<prefix>.<path>`. */
  path: string;
  label: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  default?: unknown;
  options?: string[];
  /** `text` fields: values offered while typing (a datalist); any other value is still accepted. */
  suggestions?: string[];
  min?: number;
  max?: number;
  integer?: boolean;
  /** `text` fields of a union that also takes integers (Telegram chat ids): digits become a number. */
  numeric?: boolean;
  /** `lines` fields: items may be separated by commas too (their items cannot contain one). */
  commas?: boolean;
  /** `lines` fields whose items may be integers (HTTP status matchers). */
  numberItems?: boolean;
  /** `group` fields: the inner fields; `rows` fields: the columns of one row. */
  fields?: FormField[];
  variants?: Record<string, FormField[]>;
  /** `select` fields whose choices depend on another field of the same row (`x-options-by` in the schema). */
  optionsBy?: { field: string; options: Record<string, readonly string[]> };
  /** A sample value (the schema's first example), shown as the input's placeholder. */
  example?: string;
  /** `rows` columns used only when another column of the row has one of these values (`x-used-when`). */
  usedWhen?: { field: string; values: readonly string[] };
}

type Json = Record<string, unknown>;
const props = (s: TSchema) => s as Json & { anyOf?: Json[]; items?: Json; properties?: Record<string, Json>; required?: string[] };

const LABELS: Record<string, string> = {
  url: "URL",
  expected_status: "Expected status codes",
  follow_redirects: "Follow redirects",
  tls_verify: "Verify the TLS certificate",
  sni: "TLS server name (SNI)",
  warn_days: "Warn this many days before expiry",
  period_seconds: "Expected every (seconds)",
  grace_seconds: "Grace period (seconds)",
  record_type: "Record type",
  name: "Record name",
  expected: "Expected answers",
  resolver: "Resolver",
  count: "Packets per check",
  mode: "Alert when the keyword is",
  case_sensitive: "Case-sensitive match",
  wait_until: "Wait until",
  headers: "Request headers",
  body: "Request body",
  auth: "Authentication",
  days_before: "Days before expiry",
  api_key: "API key",
  routing_key: "Routing key",
  bot_token: "Bot token",
  chat_id: "Chat id",
  message_thread_id: "Forum topic id",
};

function labelFor(key: string, labels: Record<string, string> = {}): string {
  if (labels[key] ?? LABELS[key]) return (labels[key] ?? LABELS[key])!;
  const unit = key.match(/_(ms|seconds|minutes|days|pct)$/)?.[1];
  const base = (unit ? key.slice(0, -unit.length - 1) : key).replace(/_/g, " ");
  const text = base.charAt(0).toUpperCase() + base.slice(1);
  return unit ? `${text} (${unit === "pct" ? "%" : unit})` : text;
}

const literals = (s: Json): string[] | null => {
  const list = props(s as TSchema).anyOf;
  if (list?.length && list.every((o) => "const" in o)) return list.map((o) => String(o.const));
  return "const" in s ? [String(s.const)] : null;
};
const isType = (s: Json, t: string) => s.type === t || (props(s as TSchema).anyOf ?? []).some((o) => o.type === t);

/** The form fields of an object schema, in schema order; `labels` names fields where the key alone says too little. */
export function describeFields(schema: TObject | TSchema, prefix = "", labels: Record<string, string> = {}): FormField[] {
  const obj = props(schema);
  const required = new Set(obj.required ?? []);
  return Object.entries(obj.properties ?? {}).map(([key, raw]) => describeField(key, raw, required.has(key), prefix ? `${prefix}.${key}` : key, labels));
}

function describeField(key: string, s: Json, required: boolean, path: string, labels: Record<string, string>): FormField {
  const base: FormField = { key, path, label: labelFor(key, labels), kind: "text", required, description: s.description as string | undefined, default: s.default };
  if (Array.isArray(s.examples) && s.examples.length > 0) base.example = String(s.examples[0]);
  const when = s["x-used-when"] as Record<string, readonly string[]> | undefined;
  if (when) {
    const [field, values] = Object.entries(when)[0]!;
    base.usedWhen = { field, values };
  }
  const options = literals(s);
  const by = s["x-options-by"] as Record<string, Record<string, readonly string[]>> | undefined;
  if (options && options.length > 1 && by) {
    const [field, byValue] = Object.entries(by)[0]!;
    return { ...base, kind: "select", options, optionsBy: { field, options: byValue } };
  }
  if (options && options.length > 1) return { ...base, kind: "select", options };
  if (s.type === "boolean") return { ...base, kind: "checkbox" };
  if (s.type === "integer" || s.type === "number")
    return { ...base, kind: "number", integer: s.type === "integer", min: s.minimum as number | undefined, max: s.maximum as number | undefined };
  if (s.type === "string") return { ...base, kind: (s.maxLength as number) > 2048 ? "textarea" : "text" };
  const anyOf = props(s as TSchema).anyOf;
  if (anyOf) {
    // A union of objects told apart by a `type` literal (HTTP auth: basic or bearer).
    if (anyOf.every((o) => o.type === "object" && (o.properties as Record<string, Json> | undefined)?.type && "const" in (o.properties as Record<string, Json>).type!)) {
      const variants = Object.fromEntries(
        anyOf.map((o) => {
          const { type, ...rest } = o.properties as Record<string, Json>;
          return [String(type!.const), describeFields({ ...o, properties: rest, required: (o.required as string[]).filter((r) => r !== "type") } as unknown as TObject, path, labels)];
        }),
      );
      return { ...base, kind: "variant", variants };
    }
    const array = anyOf.find((o) => o.type === "array");
    if (array) return { ...describeField(key, array, required, path, labels), description: base.description };
    if (isType(s, "string") && (isType(s, "integer") || isType(s, "number"))) return { ...base, numeric: true };
  }
  if (s.type === "array") {
    const items = s.items as Json;
    const itemOptions = literals(items);
    if (itemOptions) return { ...base, kind: "multi", options: itemOptions };
    // Objects of plain values only (HTTP assertions): one row of inputs per item.
    if (items.type === "object" && isFlat(items)) return { ...base, kind: "rows", fields: describeFields(items as unknown as TObject, "", labels) };
    // Other objects, or a union of object shapes (browser flow steps): edited as JSON.
    const itemUnion = props(items as TSchema).anyOf;
    if (items.type === "object" || (itemUnion?.length && itemUnion.every((o) => o.type === "object"))) return { ...base, kind: "json" };
    return { ...base, kind: "lines", commas: !(items.type === "string" && !items.pattern && !items.format), numberItems: isType(items, "integer") };
  }
  if (s.type === "object" && s.patternProperties) return { ...base, kind: "pairs" };
  if (s.type === "object" && s.properties) return { ...base, kind: "group", fields: describeFields(s as unknown as TObject, path, labels) };
  return { ...base, kind: "json" };
}

/** An object whose every property is a string, a number or a choice: editable as one row of inputs. */
function isFlat(s: Json): boolean {
  const scalar = (p: Json): boolean => ["string", "number", "integer"].includes(p.type as string) || "const" in p || (props(p as TSchema).anyOf?.every(scalar) ?? false);
  return Object.values(props(s as TSchema).properties ?? {}).every(scalar);
}

/** How a value is shown in its input when a form edits an existing object. */
export function toInput(f: FormField, v: unknown): string | boolean | string[] | undefined {
  if (v === undefined || v === null) return undefined;
  switch (f.kind) {
    case "checkbox":
      return Boolean(v);
    case "multi":
      return (v as unknown[]).map(String);
    case "lines":
      return (Array.isArray(v) ? v : [v]).map(String).join("\n");
    case "pairs":
      return Object.entries(v as Record<string, unknown>)
        .map(([k, x]) => `${k}: ${String(x)}`)
        .join("\n");
    case "json":
      return JSON.stringify(v, null, 2);
    default:
      return String(v);
  }
}


/** Reads the fields' inputs (`<prefix>.<path>`) into an object: blank optional inputs are left out. */
export function readFields(fields: FormField[], form: FormData, prefix: string, issues: Issue[] = []): Json {
  const out: Json = {};
  for (const f of fields) {
    const v = readField(f, form, prefix, issues);
    if (v !== undefined) out[f.key] = v;
  }
  return out;
}

function readField(f: FormField, form: FormData, prefix: string, issues: Issue[]): unknown {
  const name = `${prefix}.${f.path}`;
  const raw = form.get(name);
  const text = raw == null ? "" : String(raw);
  switch (f.kind) {
    case "checkbox":
      return form.has(name);
    case "multi": {
      const all = form.getAll(name).map(String);
      return all.length || f.required ? all : undefined;
    }
    case "group": {
      const inner = readFields(f.fields!, form, prefix, issues);
      return Object.keys(inner).length || f.required ? inner : undefined;
    }
    case "variant": {
      const type = String(form.get(`${name}.type`) ?? "");
      if (!type) return undefined;
      return { type, ...readFields(f.variants![type] ?? [], form, prefix, issues) };
    }
    case "rows": {
      // Inputs are named `<name>.<row>.<column>`, rows numbered from 0 in the order shown.
      const rows: Json[] = [];
      const has = (i: number) => [...form.keys()].some((k) => k.startsWith(`${name}.${i}.`));
      for (let i = 0; has(i); i++) rows.push(readFields(f.fields!, form, `${name}.${i}`, issues));
      return rows.length || f.required ? rows : undefined;
    }
  }
  if (text.trim() === "") return undefined;
  switch (f.kind) {
    case "number":
      return Number.isFinite(Number(text)) ? Number(text) : text;
    case "lines": {
      const items = text
        .split(f.commas ? /[\n,]/ : /\n/)
        .map((s) => s.trim())
        .filter(Boolean);
      return items.map((s) => (f.numberItems && /^\d+$/.test(s) ? Number(s) : s));
    }
    case "pairs": {
      const out: Record<string, string> = {};
      for (const line of text.split("\n").map((l) => l.trim()).filter(Boolean)) {
        const cut = line.indexOf(":");
        if (cut <= 0) issues.push({ path: `${prefix}.${f.path}`, message: `"${line}" is not in the form Name: value` });
        else out[line.slice(0, cut).trim()] = line.slice(cut + 1).trim();
      }
      return out;
    }
    case "json":
      try {
        return JSON.parse(text);
      } catch {
        issues.push({ path: `${prefix}.${f.path}`, message: "is not valid JSON" });
        return undefined;
      }
    default:
      return f.numeric && /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text;
  }
}

/** Patterns of http(s) URL fields: `^https?://…` and its case-insensitive spelling `^[Hh][Tt][Tt][Pp][Ss]?://…`. */
const HTTP_URL_PATTERN = /^\^(https\?|\[Hh\]\[Tt\]\[Tt\]\[Pp\]\[Ss\]\?):\/\//;

const friendly = (e: { type: ValueErrorType; schema: Json; message: string }): string => {
  const s = e.schema;
  switch (e.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return "is required";
    case ValueErrorType.StringPattern:
    case ValueErrorType.StringFormat:
      // A URL field's description says what it is for (often that it is kept secret), not what it must look like.
      if (HTTP_URL_PATTERN.test(String(s.pattern ?? ""))) return "must be an http:// or https:// URL";
      return s.description ? `must be: ${String(s.description)}` : "is not in the expected format";
    case ValueErrorType.StringMinLength:
      return s.minLength === 1 ? "is required" : `must be at least ${String(s.minLength)} characters`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${String(s.maxLength)} characters`;
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `must be at least ${String(s.minimum)}`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `must be at most ${String(s.maximum)}`;
    case ValueErrorType.Integer:
      return "must be a whole number";
    case ValueErrorType.Number:
      return "must be a number";
    case ValueErrorType.ArrayMinItems:
      return (s.minItems as number) === 1 ? "needs at least one entry" : `needs at least ${String(s.minItems)} entries`;
    case ValueErrorType.ArrayMaxItems:
      return `takes at most ${String(s.maxItems)} entries`;
    case ValueErrorType.ObjectAdditionalProperties:
      return "is not a setting of this type";
    default:
      return e.message.charAt(0).toLowerCase() + e.message.slice(1);
  }
};

/**
 * Checks a value against the schema after filling its defaults, as the API does; issue paths
 * are `<prefix>.<field path>` (e.g. `body.config.url`), the first issue per path only.
 */
export function validate(schema: TSchema, value: unknown, prefix: string): Issue[] {
  const withDefaults = Value.Default(schema, structuredClone(value));
  const seen = new Map<string, string>();
  for (const e of Value.Errors(schema, withDefaults)) {
    const path = `${prefix}${e.path.replaceAll("/", ".")}`;
    // A union reports each member's failure; the first (most specific) message is kept.
    if (!seen.has(path)) seen.set(path, friendly(e as never));
    if (seen.size >= 20) break;
  }
  return [...seen].map(([path, message]) => ({ path, message }));
}


