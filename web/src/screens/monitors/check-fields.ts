import type { Monitor } from "./use-monitors";

export type CheckType = Monitor["type"];
export interface ConfigField {
  key: string;
  label: string;
  kind: "text" | "number" | "checkbox" | "select" | "json";
  required?: boolean;
  placeholder?: string;
  options?: string[];
  hint?: string;
}

const url: ConfigField = { key: "url", label: "URL", kind: "text", required: true, placeholder: "https://example.com/health" };
const httpExtras: ConfigField[] = [
  { key: "method", label: "Method", kind: "select", options: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] },
  { key: "expected_status", label: "Expected status codes", kind: "json", placeholder: "[200]", hint: "A JSON list, e.g. [200, 204]" },
  { key: "degraded_above_ms", label: "Degraded above (ms)", kind: "number" },
  { key: "follow_redirects", label: "Follow redirects", kind: "checkbox" },
  { key: "headers", label: "Headers", kind: "json", placeholder: '{"accept": "application/json"}', hint: "A JSON object" },
  { key: "body", label: "Request body", kind: "text" },
];

/** The form fields of each check type; a new check type adds one entry (a missing one fails type-checking). */
export const CHECK_FIELDS = {
  http: [url, ...httpExtras],
  keyword: [url, { key: "keyword", label: "Keyword", kind: "text", required: true }, { key: "mode", label: "Alert when the keyword is", kind: "select", options: ["present", "absent"] }, { key: "case_sensitive", label: "Case sensitive", kind: "checkbox" }, ...httpExtras],
  ssl: [{ key: "host", label: "Host", kind: "text", required: true, placeholder: "example.com" }, { key: "port", label: "Port", kind: "number" }, { key: "warn_days", label: "Warn days before expiry", kind: "number" }],
  tcp: [{ key: "host", label: "Host", kind: "text", required: true }, { key: "port", label: "Port", kind: "number", required: true }],
  dns: [
    { key: "name", label: "Name", kind: "text", required: true, placeholder: "example.com" },
    { key: "record_type", label: "Record type", kind: "select", required: true, options: ["A", "AAAA", "CNAME", "MX", "NS", "TXT", "SOA", "SRV", "CAA"] },
    { key: "resolver", label: "Resolver", kind: "text", placeholder: "1.1.1.1" },
    { key: "expected", label: "Expected answers", kind: "json", placeholder: '["93.184.216.34"]' },
  ],
  ping: [{ key: "host", label: "Host", kind: "text", required: true }, { key: "count", label: "Packets", kind: "number" }],
  domain: [{ key: "domain", label: "Domain", kind: "text", required: true, placeholder: "example.com" }, { key: "warn_days", label: "Warn days before expiry", kind: "number" }],
  heartbeat: [{ key: "period_seconds", label: "Expected every (seconds)", kind: "number", required: true }, { key: "grace_seconds", label: "Grace (seconds)", kind: "number" }],
  browser_lite: [url, { key: "keyword", label: "Keyword", kind: "text" }, { key: "wait_until", label: "Wait until", kind: "select", options: ["load", "domcontentloaded", "networkidle"] }],
  browser_flow: [url, { key: "steps", label: "Steps", kind: "json", required: true, placeholder: '[{"action":"navigate","url":"https://example.com/"}]' }],
} satisfies Record<CheckType, ConfigField[]>;

export const CHECK_TYPES = Object.keys(CHECK_FIELDS) as CheckType[];

/** Builds the config object from form values: blank optional fields are left out, JSON fields parsed. */
export function readConfig(type: CheckType, values: Record<string, FormDataEntryValue | boolean>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of CHECK_FIELDS[type] as ConfigField[]) {
    const v = values[f.key];
    if (f.kind === "checkbox") {
      out[f.key] = v === true || v === "on";
      continue;
    }
    if (v == null || v === "") continue;
    if (f.kind === "number") out[f.key] = Number(v);
    else if (f.kind === "json") {
      try {
        out[f.key] = JSON.parse(String(v));
      } catch {
        throw new Error(`${f.label} is not valid JSON`);
      }
    } else out[f.key] = String(v);
  }
  return out;
}
