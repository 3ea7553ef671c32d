import type { Identity } from "../../domain/access/identity.ts";
import type { Sql } from "../../db/client.ts";
import type { Logger } from "../../core/log.ts";

const TTL_MS = 30_000;
const MAX_ENTRIES = 20_000;

/**
 * Resolved callers, kept for at most 30 s. Database triggers NOTIFY `wp_identity` on every change
 * that could alter a caller (revoked key, changed role, ended session), and every API process
 * clears its cache when told, so revocation still takes effect at once across processes.
 */
export class IdentityCache {
  private readonly entries = new Map<string, { identity: Identity; expires: number }>();
  private listening = false;
  private generation = 0;
  private readonly watchers = new Set<() => void>();

  get(key: string): Identity | undefined {
    if (!this.listening) return undefined;
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expires <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.identity;
  }

  /** Taken before reading the database: a resolution that raced an invalidation is then never stored. */
  mark(): number {
    return this.generation;
  }

  /** `until`: when the credential itself expires (a key's or session's `expires_at`); the entry never outlives it. */
  set(key: string, identity: Identity, mark = this.generation, until?: Date | null): void {
    if (!this.listening || mark !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    const expires = Math.min(Date.now() + TTL_MS, until ? until.getTime() : Infinity);
    this.entries.set(key, { identity, expires });
  }

  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }

  /**
   * Calls `watcher` whenever the database says a credential may have changed (NOTIFY wp_identity:
   * a revoked key, a changed role, an ended session, ...), e.g. to re-check long-lived streams.
   * Returns the function that stops it.
   */
  onInvalidated(watcher: () => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** Starts listening; until the LISTEN is in place (and after it drops) nothing is cached. */
  async listen(sql: Sql, log: Logger): Promise<() => Promise<void>> {
    const invalidated = () => {
      this.clear();
      for (const watch of this.watchers) watch();
    };
    const sub = await sql.listen("wp_identity", invalidated, () => {
      // (Re)connected: anything may have changed while we were not listening.
      invalidated();
      this.listening = true;
    });
    log.debug({ op: "identity-cache.listen" }, "listening for identity changes");
    return async () => {
      this.listening = false;
      this.clear();
      await sub.unlisten();
    };
  }
}
