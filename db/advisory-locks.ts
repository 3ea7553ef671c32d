/** PostgreSQL advisory lock keys, one per purpose, so no two users of the database pick the same number. */

/** The advisory lock every scheduler instance competes for (one per database). */
export const SCHEDULER_LOCK_KEY = 727_100;

// (727, 300), two-key form: the rollup watermark (plain PostgreSQL), held shared by ingest while it reads
// the watermark and exclusively by the closer and rollup rebuilds; taken only inside the SQL functions
// of migration 20261126140000 (rollup_watermark_shared / rollup_watermark_exclusive).
