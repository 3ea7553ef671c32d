/** PostgreSQL advisory lock keys, one per purpose, so no two users of the database pick the same number. */

/** The advisory lock every scheduler instance competes for (one per database). */
export const SCHEDULER_LOCK_KEY = 727_100;
