/**
 * Queries waiting on a connection whose path to PostgreSQL drops packets silently (a cut link, a firewall or NAT
 * that forgot the flow). No error ever comes back: the kernel retransmits the query for about 15 minutes
 * (`tcp_retries2`), or, when the answer is what was lost, keepalive gives up after 11 (porsager/postgres#1089). Until
 * then the request waits, the pool's connection is taken, and a judge whose read never ends cannot count the
 * stretch as blind.
 *
 * So every `everyMs` the pool's connections whose query has heard nothing back for `afterMs` are looked at from a new
 * connection (patches/postgres@3.4.9.patch tells how long each has been quiet and lets it be destroyed):
 * - the new connection is not made, or its question not answered, within `probeTimeoutMs`: the path is down, and
 *   every such connection is destroyed;
 * - answered: the server says what each backend does. One running a statement (not stuck sending its answer) is a
 *   long query and is left alone; one idle, idle in a transaction, sending an answer nobody takes, or gone, lost the
 *   query or its answer, and is destroyed.
 * A destroyed connection's queries fail with `CONNECTION_STALLED` (the API answers 503, isDatabaseUnavailable), the
 * pool's idle connections are ended with it (they came the same way), and the pool connects again when asked. When
 * the server could be asked, the backends of the connections given up are ended too (`pg_terminate_backend`): with
 * the flow gone the server would keep them, and any transaction one held open with its locks, until its own TCP
 * keepalive gives up, two hours by default. Behind a pooler the backend ids postgres.js gets are not the server's: the probe finds
 * that out (its own id differs) and then only a path that is down destroys anything.
 */
import type postgres from "postgres";

type Sql = postgres.Sql<{}>;

export interface StallOptions {
  /** How long a query may hear nothing back before its connection is looked at. */
  afterMs?: number;
  everyMs?: number;
  /** How long the look may take: connecting and the one question. */
  probeTimeoutMs?: number;
}

export const STALL_DEFAULTS: Required<StallOptions> = { afterMs: 10_000, everyMs: 5_000, probeTimeoutMs: 5_000 };

/** One open pooled connection (the patch's `sql.stalls()`): whether a query waits, and how long it heard nothing. */
export interface Stall {
  pid: number | null;
  waiting: boolean;
  quietMs: number;
  destroy(err: Error): void;
}

/** What the server told the probe about its backends, or that it could not be asked. */
export type ProbeAnswer =
  | { reached: false }
  | { reached: true; pidsAreTheServers: boolean; backends: Map<number, { state: string | null; waitEvent: string | null }> };

/** The stalled connections to destroy, given the probe's answer. */
export function stallsToDestroy(stalls: Stall[], answer: ProbeAnswer): Stall[] {
  if (!answer.reached) return stalls;
  if (!answer.pidsAreTheServers) return [];
  return stalls.filter((s) => {
    if (s.pid === null) return false;
    const backend = answer.backends.get(s.pid);
    if (!backend) return true;
    // Blocked writing its answer to a client that has heard nothing for seconds: the answer is not getting through.
    return backend.state !== "active" || backend.waitEvent === "ClientWrite";
  });
}

/** The error a destroyed connection's queries fail with; `quietMs` null for an idle one ended with the others. */
function stalledError(quietMs: number | null): Error {
  const why =
    quietMs === null
      ? "another connection to PostgreSQL heard nothing back, so this idle one, come the same way, was ended"
      : `no answer from PostgreSQL for ${Math.round(quietMs / 1000)} s: the connection was given up (the network to it drops packets, or the server lost the query)`;
  return Object.assign(new Error(why), { code: "CONNECTION_STALLED" });
}

interface Pool {
  stalls(): Stall[];
}

/**
 * Watches `sql`'s connections; `probe` opens a new single connection each time it is needed (it must give up connecting
 * within the probe timeout). Returns the stop function.
 */
export function watchStalls(sql: Sql, probe: () => Sql, options: StallOptions = {}): () => void {
  const o = { ...STALL_DEFAULTS, ...options };
  const pool = sql as unknown as Pool;
  let looking = false;
  const stalledNow = () => pool.stalls().filter((s) => s.waiting && s.quietMs >= o.afterMs);
  const look = async () => {
    const stalled = stalledNow();
    if (stalled.length === 0) return;
    const session = openProbe(probe, o.probeTimeoutMs);
    try {
      const answer = await session.ask(stalled);
      // Looked at again: a query answered meanwhile is not given up.
      const still = new Set(stalledNow().map((s) => s.destroy));
      const dead = stallsToDestroy(stalled, answer).filter((s) => still.has(s.destroy));
      if (dead.length === 0) return;
      for (const s of dead) s.destroy(stalledError(s.quietMs));
      // The idle connections came the same way, and a path that lost one flow (a NAT's or firewall's state gone) has
      // likely lost them all: each would cost its next query a wait. They are opened again when needed.
      const idle = pool.stalls().filter((s) => !s.waiting);
      for (const s of idle) s.destroy(stalledError(null));
      // Their backends, which the server keeps until its own TCP keepalive gives up (two hours by default) when the
      // flow is gone: ended now, so that a transaction one held open lets go of its locks.
      if (answer.reached && answer.pidsAreTheServers) await session.terminate([...dead, ...idle].flatMap((s) => (s.pid === null ? [] : [s.pid])));
    } finally {
      session.end();
    }
  };
  const timer = setInterval(() => {
    if (looking) return;
    looking = true;
    void look().finally(() => (looking = false));
  }, o.everyMs);
  timer.unref?.();
  return () => clearInterval(timer);
}

/** One probe connection: what the server says of some backends, and ending those given up. */
function openProbe(open: () => Sql, timeoutMs: number) {
  const probe = open();
  /** When the server answered the look, by its own clock. */
  let askedAt: Date | null = null;
  /** `query`'s rows, or null when the path failed or the time ran out; "answered" when the server refused it. */
  const within = async <T>(query: Promise<T>): Promise<T | "answered" | null> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)));
    try {
      return await Promise.race([query.catch((err: unknown) => (isServersAnswer(err) ? ("answered" as const) : null)), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    async ask(stalled: Stall[]): Promise<ProbeAnswer> {
      const pids = stalled.flatMap((s) => (s.pid === null ? [] : [s.pid]));
      const query = probe<{ me: number; at: Date; pid: number | null; state: string | null; wait_event: string | null }[]>`
        select pg_backend_pid() as me, now() as at, a.pid, a.state, a.wait_event
        from (select 1) one left join pg_stat_activity a on a.pid = any(string_to_array(${pids.join(",")}, ',')::int[])`;
      const rows = await within(query);
      if (!rows) return { reached: false };
      // The server refused the probe itself (too many connections, say): the path works, and nothing is known of the rest.
      if (rows === "answered") return { reached: true, pidsAreTheServers: false, backends: new Map() };
      // The backend id postgres.js got for the probe's own connection, against the server's: equal unless a pooler sits between.
      const told = (query as unknown as { state?: { pid?: number | null } }).state?.pid;
      askedAt = rows[0]?.at ?? null;
      const backends = new Map(rows.filter((r) => r.pid !== null).map((r) => [r.pid!, { state: r.state, waitEvent: r.wait_event }]));
      return { reached: true, pidsAreTheServers: told === rows[0]?.me, backends };
    },
    /** Ends these backends; one started since the look is another's that took a freed id, and is spared. */
    async terminate(pids: number[]): Promise<void> {
      if (pids.length === 0 || !askedAt) return;
      await within(probe`
        select pg_terminate_backend(pid) from pg_stat_activity
        where pid = any(string_to_array(${pids.join(",")}, ',')::int[]) and backend_start < ${askedAt} and pid <> pg_backend_pid()`);
    },
    end(): void {
      void probe.end({ timeout: 0 }).catch(() => {});
    },
  };
}

/** An error the server sent (a SQLSTATE), as opposed to one of the path: refused, reset, timed out. */
function isServersAnswer(err: unknown): boolean {
  return /^[0-9A-Z]{5}$/.test((err as { code?: string })?.code ?? "");
}
