/** Formatting shared by the status-page, runner, billing, organisation and account screens. */

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

/** US dollar cents as "$6.99". */
export const fmtMoney = (cents: number | string, currency = "USD") => new Intl.NumberFormat("en-US", { style: "currency", currency }).format(Number(cents) / 100);

export const fmtDate = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" }) : "—");
