/**
 * A result id is a UUIDv7 whose timestamp is the job's due time (scheduled_at, ms), shown as
 * `chk_` + 32 hex digits. Rows stored before migration 20261126110000 hold a random one; newer rows
 * store none and the database derives it from (job_id, scheduled_at) (check_result_id). Reading the
 * time back lets a lookup touch one partition or chunk.
 *
 * `chk_…` → the uuid and the due time it encodes; null when it is not a result id.
 */
export function parseResultId(id: string): { uuid: string; scheduledAtMs: number } | null {
  const m = /^chk_([0-9a-f]{32})$/.exec(id);
  if (!m) return null;
  const h = m[1]!;
  return {
    uuid: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`,
    scheduledAtMs: parseInt(h.slice(0, 12), 16),
  };
}
