import { FormatRegistry } from "@sinclair/typebox";

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const leap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const realDay = (y: number, m: number, d: number) => y >= 1 && m >= 1 && m <= 12 && d >= 1 && d <= (m === 2 && leap(y) ? 29 : DAYS[m - 1]!);
/** PostgreSQL has no year 0 and JavaScript dates end near year 275760: only years 0001–9999, also after the offset. */
const MIN_INSTANT = Date.parse("0001-01-01T00:00:00Z");
const MAX_INSTANT = Date.parse("9999-12-31T23:59:59.999Z");

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|([+-])(\d{2}):(\d{2}))$/;

/** RFC 3339 date-time, strictly: a real calendar day, hours 00–23, an explicit offset, years 0001–9999. */
export function isDateTime(v: string): boolean {
  const m = DATE_TIME.exec(v);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
  if (!realDay(y, mo, d) || h > 23 || mi > 59 || s > 59) return false;
  if (m[9] && (Number(m[10]) > 23 || Number(m[11]) > 59)) return false;
  const at = Date.parse(v.toUpperCase());
  return !Number.isNaN(at) && at >= MIN_INSTANT && at <= MAX_INSTANT;
}

/** RFC 3339 full-date: a real calendar day in years 0001–9999. */
export function isDate(v: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  return !!m && realDay(Number(m[1]), Number(m[2]), Number(m[3]));
}

/**
 * String formats for TypeBox, set over Elysia's own: its date-time accepts any text that merely
 * contains a date, rolls 2026-02-30 over to March and lets year 0000 through to PostgreSQL (a 500).
 */
const formats: Record<string, (value: string) => boolean> = {
  "date-time": isDateTime,
  date: isDate,
  email: (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v),
  uri: (v) => URL.canParse(v),
};

const OVERRIDE = new Set(["date-time", "date"]);
for (const [name, check] of Object.entries(formats)) if (OVERRIDE.has(name) || !FormatRegistry.Has(name)) FormatRegistry.Set(name, check);
