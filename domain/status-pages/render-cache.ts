import type { Sql } from "../../db/client.ts";
import type { Logger } from "../../core/log.ts";

/** How long an entry lives while change notifications arrive, and without them (LISTEN not in place). */
const LISTENING_TTL_MS = 60_000;
const FALLBACK_TTL_MS = 2_000;
const MAX_ENTRIES = 5_000;

interface Entry {
  value: unknown;
  version: number;
  expires: number;
}

/**
 * Rendered public views per page. Triggers NOTIFY `wp_status_pages` with the organisation on every
 * change a page can show (monitor status, layout, incidents, maintenance, theme); a notification
 * bumps the organisation's version, and an entry rendered under an older version is never served.
 * The version is read before rendering, so a change during a render invalidates its result too.
 */
export class RenderCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<unknown>>();
  private readonly versions = new Map<string, number>();
  private readonly rows = new Map<string, { row: { org_id: string }; version: number; expires: number }>();
  private epoch = 0;
  /** Counts every notification, so a lookup that raced with one is not kept. */
  private changes = 0;
  private listening = false;

  constructor(private readonly now: () => number = Date.now) {}

  version(orgId: string): number {
    return this.epoch * 1e9 + (this.versions.get(orgId) ?? 0);
  }

  invalidateOrg(orgId: string): void {
    this.changes++;
    this.versions.set(orgId, (this.versions.get(orgId) ?? 0) + 1);
    this.inflight.clear();
  }

  invalidateAll(): void {
    this.changes++;
    this.epoch++;
    this.rows.clear();
    this.entries.clear();
    this.inflight.clear();
  }

  /** The cached value, or the result of `render` (one render at a time per key). */
  async get<T>(key: string, orgId: string, render: () => Promise<T>): Promise<T> {
    const version = this.version(orgId);
    const hit = this.entries.get(key);
    if (hit && hit.version === version && hit.expires > this.now()) return hit.value as T;
    const flightKey = `${key}\u0000${version}`;
    const running = this.inflight.get(flightKey);
    if (running) return running as Promise<T>;
    const promise = render().then(
      (value) => {
        this.inflight.delete(flightKey);
        if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
        this.entries.set(key, { value, version, expires: this.now() + (this.listening ? LISTENING_TTL_MS : FALLBACK_TTL_MS) });
        return value;
      },
      (err) => {
        this.inflight.delete(flightKey);
        throw err;
      },
    );
    this.inflight.set(flightKey, promise);
    return promise;
  }

  /** A cached row lookup (page by slug or domain); misses are not cached. */
  async lookup<R extends { org_id: string }>(key: string, load: () => Promise<R | undefined>): Promise<R | undefined> {
    const hit = this.rows.get(key);
    if (hit && hit.version === this.version(hit.row.org_id) && hit.expires > this.now()) return hit.row as R;
    const changes = this.changes;
    const row = await load();
    if (row && changes === this.changes) {
      if (this.rows.size >= MAX_ENTRIES) this.rows.clear();
      this.rows.set(key, { row, version: this.version(row.org_id), expires: this.now() + (this.listening ? LISTENING_TTL_MS : FALLBACK_TTL_MS) });
    }
    return row;
  }

  /** Starts listening; failure leaves the short fallback TTL in force. */
  async listen(sql: Sql, log: Logger): Promise<() => Promise<void>> {
    const sub = await sql.listen(
      "wp_status_pages",
      (orgId) => this.invalidateOrg(orgId),
      () => {
        // (Re)connected: anything may have changed while we were not listening.
        this.invalidateAll();
        this.listening = true;
      },
    );
    log.debug({ op: "status-pages.cache.listen" }, "listening for status-page changes");
    return async () => {
      this.listening = false;
      this.invalidateAll();
      await sub.unlisten();
    };
  }
}
