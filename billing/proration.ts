/**
 * Proration (docs/billing.md): the price difference times the unused share of the current
 * period, measured in whole seconds, rounded half away from zero to the cent.
 *   amount = round((newCents - oldCents) × (periodEnd − now) / (periodEnd − periodStart))
 * Positive: charged at once (upgrade). Negative: credited to the next invoice (downgrade).
 */
export function prorate(oldCents: number, newCents: number, period: { start: Date; end: Date }, now: Date): number {
  const total = Math.floor((period.end.getTime() - period.start.getTime()) / 1000);
  if (total <= 0) return 0;
  const left = Math.min(total, Math.max(0, Math.floor((period.end.getTime() - now.getTime()) / 1000)));
  const exact = ((newCents - oldCents) * left) / total;
  return Math.sign(exact) * Math.round(Math.abs(exact));
}

/** The end of a billing period that starts at `start`: one calendar month or year later (clamped to month end). */
export function periodEnd(start: Date, cycle: "monthly" | "annual"): Date {
  const d = new Date(start.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  if (cycle === "monthly") d.setUTCMonth(d.getUTCMonth() + 1);
  else d.setUTCFullYear(d.getUTCFullYear() + 1);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d;
}
