/** Formatting shared by the screens (times, money, uptime). */

/** "3 min ago", "in 2 days": relative to `now`, for last-seen and renewal times. */
export function fmtAgo(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return "never";
  const diff = new Date(iso).getTime() - now;
  const abs = Math.abs(diff);
  const units: [number, Intl.RelativeTimeFormatUnit][] = [
    [86_400_000, "day"],
    [3_600_000, "hour"],
    [60_000, "minute"],
    [1000, "second"],
  ];
  const fmt = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
  for (const [ms, unit] of units) if (abs >= ms || unit === "second") return fmt.format(Math.round(diff / ms), unit);
  return "now";
}

/**
 * An uptime percentage, the same on every screen: "100%" only when nothing failed, otherwise two decimals cut (not
 * rounded) so that a failure never reads as 100 ("99.99%" for 99.996); "—" without results.
 */
export const fmtPct = (v: number | null | undefined) => (v == null ? "—" : v >= 100 ? "100%" : `${(Math.floor(v * 100 + 1e-6) / 100).toFixed(2)}%`);

/** A plan limit that means no limit: the self-hosted plan's are 100,000 and up (the plan table says "Unlimited" from there too). */
export const isUnlimited = (limit: number) => !Number.isFinite(limit) || limit >= 100_000;

/** US dollar cents as "$6.99". */
export const fmtMoney = (cents: number | string, currency = "USD") => new Intl.NumberFormat("en-US", { style: "currency", currency }).format(Number(cents) / 100);

export const fmtDate = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" }) : "—");

const TIME_OPTIONS: Intl.DateTimeFormatOptions = { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short" };
const timeFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * "26 Nov 2026, 07:12:05 CET": a moment in the viewer's time zone (or `zone`), always with the zone
 * named, so a time read off the screen is never ambiguous. Every screen formats times with this.
 */
export function fmtTime(v: string | number | Date | null | undefined, zone?: string): string {
  if (v == null || v === "") return "—";
  const t = new Date(v);
  if (Number.isNaN(t.getTime())) return "—";
  const key = zone ?? "";
  let f = timeFormats.get(key);
  if (!f) timeFormats.set(key, (f = new Intl.DateTimeFormat(undefined, { ...TIME_OPTIONS, ...(zone ? { timeZone: zone } : {}) })));
  return f.format(t);
}
