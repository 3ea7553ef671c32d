/** Wall-clock arithmetic in IANA time zones with Intl only (no tz database of our own). */

export interface WallTime {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(zone, f);
  }
  return f;
}

export function isValidTimeZone(zone: string): boolean {
  if (!zone || zone.length > 64) return false;
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock in `zone` at instant `t` (ms). */
export function wallAt(zone: string, t: number): WallTime {
  const parts: Record<string, number> = {};
  for (const p of formatter(zone).formatToParts(new Date(t))) if (p.type !== "literal") parts[p.type] = Number(p.value);
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute!, second: parts.second! };
}

/** A wall time as a "floating" instant: its fields read as if the zone were UTC. */
const floating = (w: WallTime): number => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);

export const floatingAt = (zone: string, t: number): number => floating(wallAt(zone, Math.floor(t / 1000) * 1000)) + (t % 1000);

/** UTC offset of `zone` at instant `t`, in ms (CEST → +7,200,000). */
const offsetAt = (zone: string, t: number): number => floatingAt(zone, t) - t;

/**
 * The instant a floating wall time names in `zone`, as RFC 5545 reads local times: an
 * ambiguous time (clocks going back) is its first instance; a time inside a gap (clocks
 * going forward) is read with the offset before the gap, so 02:30 becomes 03:30.
 */
export function instantOfFloating(zone: string, wall: number): number {
  const before = offsetAt(zone, wall - 86_400_000);
  const after = offsetAt(zone, wall + 86_400_000);
  const candidates = [...new Set([before, after])].map((o) => wall - o).filter((t) => floatingAt(zone, t) === wall);
  if (candidates.length > 0) return Math.min(...candidates);
  return wall - before;
}
