import type { Sql } from "../../db/client.ts";
import type { Logger } from "../../core/log.ts";
import { runnerSessionsState } from "../../db/queries/runners.ts";

/**
 * Past this, a job handed out is no longer tracked: a runner reports a job within its timeout (at most 120 s) and the
 * ack deadline. In the scaled mode a result may reach another API process, so this process never sees it settled; the
 * bound keeps what it tracks to ten minutes of its claims.
 */
const HANDED_OUT_TTL_MS = 10 * 60_000;

interface Poll {
  runnerId: string;
  sessionId: string;
  abort: AbortController;
}

interface HandedOut {
  runnerId: string;
  sessionId: string;
  at: number;
}

/**
 * The claim long-polls in flight in this API process and the jobs they handed out, by runner. A proxy between runner and
 * API may keep a long-poll open after the runner left, so the request's own signal never fires: once the runner's
 * session ends (session/end, revoke, here or on another API process), its polls return at once, and on a stop the jobs
 * handed out that the runner never settled go back on its queue rather than wait out their ack deadline.
 */
export class ClaimWatch {
  private readonly polls = new Set<Poll>();
  private readonly handedOut = new Map<string, HandedOut>();

  /** A long-poll of `sessionId`: its signal aborts with the client's, or when the session ends. Call `close` when done. */
  open(runnerId: string, sessionId: string, client?: AbortSignal): { signal: AbortSignal; close(): void } {
    const poll: Poll = { runnerId, sessionId, abort: new AbortController() };
    const onClient = () => poll.abort.abort();
    if (client?.aborted) onClient();
    client?.addEventListener("abort", onClient, { once: true });
    this.polls.add(poll);
    return {
      signal: poll.abort.signal,
      close: () => {
        client?.removeEventListener("abort", onClient);
        this.polls.delete(poll);
      },
    };
  }

  /** Bus tokens just handed to the runner on `sessionId`, tracked until settled (result, release, lost). */
  handOut(runnerId: string, sessionId: string, tokens: readonly string[]): void {
    const now = Date.now();
    for (const [token, h] of this.handedOut) {
      if (now - h.at < HANDED_OUT_TTL_MS) break;
      this.handedOut.delete(token);
    }
    for (const token of tokens) this.handedOut.set(token, { runnerId, sessionId, at: now });
  }

  settle(tokens: readonly string[]): void {
    for (const token of tokens) this.handedOut.delete(token);
  }

  /**
   * The runner stopped (session/end): every poll of it returns at once, and the tokens handed out to it that it never
   * settled are returned (no longer tracked) for the caller to hand back.
   */
  stopped(runnerId: string): string[] {
    for (const p of this.polls) if (p.runnerId === runnerId) p.abort.abort();
    return this.take((h) => h.runnerId === runnerId);
  }

  /**
   * After the database said a credential changed (NOTIFY wp_identity, e.g. a runner session deleted by another API
   * process): polls whose session is gone return; a stopped or revoked runner's unsettled jobs of a gone session are
   * returned for the caller to hand back.
   */
  async recheck(sql: Sql): Promise<string[]> {
    const runners = new Set<string>();
    for (const p of this.polls) runners.add(p.runnerId);
    for (const h of this.handedOut.values()) runners.add(h.runnerId);
    if (runners.size === 0) return [];
    const state = await runnerSessionsState(sql, [...runners]);
    const gone = (runnerId: string, sessionId: string) => !state.get(runnerId)?.sessions.includes(sessionId);
    for (const p of this.polls) if (gone(p.runnerId, p.sessionId)) p.abort.abort();
    return this.take((h) => state.get(h.runnerId)?.ended !== false && gone(h.runnerId, h.sessionId));
  }

  private take(pred: (h: HandedOut) => boolean): string[] {
    const out: string[] = [];
    for (const [token, h] of this.handedOut) {
      if (!pred(h)) continue;
      out.push(token);
      this.handedOut.delete(token);
    }
    return out;
  }
}

/** Keeps `watch` in step with the database: call on every wp_identity notification; hands back what it returns. */
export function recheckClaims(watch: ClaimWatch, sql: Sql, log: Logger, handBack: (tokens: string[]) => Promise<unknown>): void {
  watch
    .recheck(sql)
    .then(async (tokens) => {
      if (tokens.length === 0) return;
      await handBack(tokens);
      log.info({ op: "runner.claim", handedBack: tokens.length }, "a stopped runner's session ended on another API process; handed back the jobs its dead long-poll took");
    })
    .catch((err) => log.warn({ op: "runner.claim", err }, "could not re-check runner sessions after an identity change"));
}
