/** Milliseconds rounded to two decimals, the unit of every *_ms field. */
export function ms(value: number): number {
  return Math.round(value * 100) / 100;
}

export const DAY_MS = 86_400_000;

/** Whole days from now until `date` (negative once it has passed). */
export function daysUntil(date: Date, now = Date.now()): number {
  return Math.floor((date.getTime() - now) / DAY_MS);
}
