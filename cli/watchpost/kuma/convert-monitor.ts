import type { DesiredMonitor } from "../config/load.ts";
import type { KumaMonitor } from "./kuma-types.ts";

/** A converted monitor (possibly with notes on what was approximated), or a refusal with its reason. */
type Conversion = { ok: true; monitor: Omit<DesiredMonitor, "key" | "name" | "tags">; notes: string[]; extra?: Omit<DesiredMonitor, "name" | "tags"> & { name: string } } | { ok: false; reason: string };

const flag = (v: unknown) => v === true || v === 1 || v === "1";
const secretRef = (key: string, what: string) => `\${KUMA_${`${key}_${what}`.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}}`;

/** Kuma's accepted status codes ("200-299", "404") in Watchpost's form; numbers stay strings of ranges or become integers. */
function statusCodes(m: KumaMonitor): (number | string)[] | undefined {
  let list: unknown = m.accepted_statuscodes ?? m.accepted_statuscodes_json;
  if (typeof list === "string") {
    try {
      list = JSON.parse(list) as string[];
    } catch {
      list = [list];
    }
  }
  if (!Array.isArray(list) || !list.length) return undefined;
  return (list as string[]).map((s) => (/^\d{3}$/.test(String(s)) ? Number(s) : String(s)));
}

/** Headers from Kuma's JSON text; values of secret headers become ${KUMA_<KEY>_HEADER_<NAME>} references. */
function headersOf(m: KumaMonitor, key: string, isSecret: (name: string) => boolean): Record<string, string> | undefined {
  if (!m.headers?.trim()) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(m.headers);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== "object") return undefined;
  return Object.fromEntries(Object.entries(parsed as Record<string, unknown>).map(([k, v]) => [k, isSecret(k) ? secretRef(key, `HEADER_${k}`) : String(v)]));
}

/** The HTTP settings Kuma's http, keyword and json-query monitors share. */
function httpConfig(m: KumaMonitor, key: string, isSecret: (name: string) => boolean, notes: string[]): Record<string, unknown> {
  const config: Record<string, unknown> = { url: m.url };
  const method = (m.method ?? "GET").toUpperCase();
  if (method !== "GET") config.method = method;
  const headers = headersOf(m, key, isSecret);
  if (m.headers?.trim() && !headers) notes.push("headers were not valid JSON and were left out");
  if (headers && Object.keys(headers).length) config.headers = headers;
  if (m.body) config.body = m.body;
  const codes = statusCodes(m);
  if (codes) config.expected_status = codes;
  if (m.maxredirects !== undefined) {
    if (m.maxredirects === 0) config.follow_redirects = false;
    else config.max_redirects = Math.min(m.maxredirects, 20);
    if (m.maxredirects > 20) notes.push(`max redirects ${m.maxredirects} lowered to 20`);
  }
  if (flag(m.ignoreTls)) config.tls_verify = false;
  if (m.authMethod === "basic") config.auth = { type: "basic", username: m.basic_auth_user ?? "", password: secretRef(key, "PASSWORD") };
  else if (m.authMethod && m.authMethod !== "null") notes.push(`${m.authMethod} authentication has no equivalent and was left out`);
  return config;
}

/** A certificate-expiry monitor beside an https monitor whose Kuma settings notified on expiry. */
function certificateMonitor(m: KumaMonitor, key: string): (Omit<DesiredMonitor, "name" | "tags"> & { name: string }) | undefined {
  if (!flag(m.expiryNotification) || !m.url || !URL.canParse(m.url)) return undefined;
  const u = new URL(m.url);
  if (u.protocol !== "https:") return undefined;
  return { key: `${key.slice(0, 52)}-cert`, name: `${m.name} (certificate)`.slice(0, 200), type: "ssl", config: { host: u.hostname, ...(u.port ? { port: Number(u.port) } : {}) } };
}

type Converter = (m: KumaMonitor, key: string, isSecret: (name: string) => boolean) => Conversion;

const DNS_TYPES = ["A", "AAAA", "CNAME", "MX", "TXT", "NS", "SOA", "CAA", "SRV"];

/** One line per Kuma monitor type the importer maps; every other type is refused with the reason below. */
export const KUMA_CONVERTERS = {
  http: (m, key, isSecret) => {
    const notes: string[] = [];
    return { ok: true, monitor: { type: "http", config: httpConfig(m, key, isSecret, notes) }, notes, extra: certificateMonitor(m, key) };
  },
  keyword: (m, key, isSecret) => {
    const notes: string[] = [];
    const config = { ...httpConfig(m, key, isSecret, notes), keyword: m.keyword ?? "", case_sensitive: true, ...(flag(m.invertKeyword) ? { mode: "absent" } : {}) };
    return { ok: true, monitor: { type: "keyword", config }, notes, extra: certificateMonitor(m, key) };
  },
  "json-query": (m, key, isSecret) => {
    const notes = [`JSON query ${m.jsonPath ?? ""} == ${m.expectedValue ?? ""} became a keyword check for the expected value (Watchpost has no JSON assertions)`];
    if (!m.expectedValue) return { ok: false, reason: "JSON query without an expected value: no keyword to check for" };
    const config = { ...httpConfig(m, key, isSecret, notes), keyword: m.expectedValue, case_sensitive: true };
    return { ok: true, monitor: { type: "keyword", config }, notes, extra: certificateMonitor(m, key) };
  },
  port: (m) => (m.hostname && m.port ? { ok: true, monitor: { type: "tcp", config: { host: m.hostname, port: m.port } }, notes: [] } : { ok: false, reason: "TCP port monitor without host or port" }),
  ping: (m) => {
    if (!m.hostname) return { ok: false, reason: "ping monitor without a host" };
    const notes = m.packetSize && m.packetSize !== 56 ? [`packet size ${m.packetSize} is not configurable (Watchpost sends the system ping's default)`] : [];
    return { ok: true, monitor: { type: "ping", config: { host: m.hostname } }, notes };
  },
  dns: (m) => {
    const recordType = (m.dns_resolve_type ?? "A").toUpperCase();
    if (!DNS_TYPES.includes(recordType)) return { ok: false, reason: `DNS record type ${recordType} is not supported (supported: ${DNS_TYPES.join(", ")})` };
    if (!m.hostname) return { ok: false, reason: "DNS monitor without a name to resolve" };
    // Kuma keeps a DNS monitor's resolver port in its port field (53 by default).
    const port = m.port && m.port !== 53 ? m.port : null;
    const server = m.dns_resolve_server?.trim();
    const resolver = server ? (port ? (server.includes(":") ? `[${server}]:${port}` : `${server}:${port}`) : server) : undefined;
    return { ok: true, monitor: { type: "dns", config: { name: m.hostname, record_type: recordType, ...(resolver ? { resolver } : {}) } }, notes: [] };
  },
  push: (m) => ({
    ok: true,
    monitor: { type: "heartbeat", config: { period_seconds: Math.max(30, m.interval ?? 60), grace_seconds: Math.max(0, m.retryInterval ?? 60) } },
    notes: ["push monitor became a heartbeat: its URL changes (watchpost monitors get shows the new one); update the senders", ...((m.interval ?? 60) < 30 ? [`period ${m.interval}s raised to the minimum 30s`] : [])],
  }),
  "real-browser": (m) => (m.url ? { ok: true, monitor: { type: "browser_lite", config: { url: m.url } }, notes: [] } : { ok: false, reason: "browser monitor without a URL" }),
} satisfies Record<string, Converter> as Record<string, Converter>;

/** Why a Kuma type is not imported (types absent here and from KUMA_CONVERTERS get a generic reason). */
export const REFUSED_TYPES: Record<string, string> = {
  group: "a group is not a monitor: its members are imported with the group's name as a tag",
  docker: "Watchpost does not watch Docker containers through a Docker socket (use a tcp or http check on the service, or a self-hosted runner)",
  "grpc-keyword": "gRPC checks are not supported",
  mqtt: "MQTT checks are not supported",
  steam: "Steam game-server checks are not supported",
  gamedig: "game-server (GameDig) checks are not supported",
  sqlserver: "database checks are not supported (SQL Server)",
  postgres: "database checks are not supported (PostgreSQL)",
  mysql: "database checks are not supported (MySQL)",
  mongodb: "database checks are not supported (MongoDB)",
  redis: "database checks are not supported (Redis)",
  radius: "RADIUS checks are not supported",
  "kafka-producer": "Kafka checks are not supported",
  "tailscale-ping": "Tailscale ping is not supported",
};
