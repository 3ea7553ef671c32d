import type { Monitor } from "../use-monitors";
import type { CheckResult } from "./chart-data";

type Fields = {
  /** The summary's heading: what expires. */
  title: string;
  /** Result data fields: whole days left, and the moment it expires (ISO 8601). */
  days: string;
  at: string;
  /** The config field of the warning threshold (the check is degraded at or under it), when the type has one. */
  warnDays: string;
  /** Further result data fields worth a glance, by label. */
  details: Record<string, string>;
};

/** The check types whose results say when what they watch expires: one line per type (docs/check-types.md). */
export const EXPIRY_FIELDS: Partial<Record<Monitor["type"], Fields>> = {
  ssl: { title: "Certificate", days: "ssl_days_remaining", at: "valid_to", warnDays: "warn_days", details: { Issuer: "issuer", Subject: "subject" } },
  domain: { title: "Registration", days: "domain_days_remaining", at: "expiry_date", warnDays: "warn_days", details: { Registrar: "registrar" } },
  smtp: { title: "Certificate", days: "cert_days_left", at: "cert_expires_at", warnDays: "cert_expiry_days", details: {} },
};

export type Expiry =
  | { title: string; known: false; checked: boolean }
  | { title: string; known: true; days: number; at: string | null; details: [string, string][]; warnDays: number | null; warn: boolean };

const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);

/**
 * The expiry the newest result reports (unavailable results checked nothing, so they are passed over), marked
 * `warn` once expired or at or under the config's warning days, as the check itself turns degraded; null for
 * a type without an expiry.
 */
export function expiryOf(type: Monitor["type"], config: Record<string, unknown>, results: Pick<CheckResult, "status" | "checked_at" | "data">[]): Expiry | null {
  const f = EXPIRY_FIELDS[type];
  if (!f) return null;
  const newest = results.filter((r) => r.status !== "unavailable").reduce<(typeof results)[number] | null>((a, r) => (!a || r.checked_at > a.checked_at ? r : a), null);
  const days = newest?.data?.[f.days];
  if (typeof days !== "number") return { title: f.title, known: false, checked: newest !== null };
  const warnDays = typeof config[f.warnDays] === "number" ? (config[f.warnDays] as number) : null;
  return {
    title: f.title,
    known: true,
    days,
    at: text(newest!.data[f.at]),
    details: Object.entries(f.details).flatMap(([label, field]) => {
      const v = text(newest!.data[field]);
      return v ? [[label, v] as [string, string]] : [];
    }),
    warnDays,
    warn: days < 0 || (warnDays !== null && days <= warnDays),
  };
}

/** "12 days", "1 day", "expires today", "expired 3 days ago". */
export function daysLeftText(days: number): string {
  const n = (d: number) => `${d} day${d === 1 ? "" : "s"}`;
  return days < 0 ? `expired ${n(-days)} ago` : days === 0 ? "expires today" : n(days);
}
