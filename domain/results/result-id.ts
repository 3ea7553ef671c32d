import { randomBytes } from "node:crypto";

/**
 * A result id is a UUIDv7 whose timestamp is the job's due time (scheduled_at, ms), shown as
 * `chk_` + 32 hex digits. Reading the time back lets a lookup touch one partition or chunk.
 */
export function newResultUuid(scheduledAtMs: number): string {
  const b = randomBytes(16);
  const ms = BigInt(Math.max(0, Math.floor(scheduledAtMs)));
  for (let i = 0; i < 6; i++) b[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** `chk_…` → the stored uuid and the due time it encodes; null when it is not a result id. */
export function parseResultId(id: string): { uuid: string; scheduledAtMs: number } | null {
  const m = /^chk_([0-9a-f]{32})$/.exec(id);
  if (!m) return null;
  const h = m[1]!;
  return {
    uuid: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`,
    scheduledAtMs: parseInt(h.slice(0, 12), 16),
  };
}
