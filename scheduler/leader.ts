import postgres from "postgres";
import { tlsFromUrl } from "../db/client.ts";
import type { Logger } from "../core/log.ts";
import { SCHEDULER_LOCK_KEY } from "../db/advisory-locks.ts";


export interface LeaderOptions {
  databaseUrl: string;
  log: Logger;
  /** How often a standby tries the lock; default 1500 ms. */
  retryMs?: number;
  /** How often the leader confirms it still holds the lock; default 1000 ms. */
  checkMs?: number;
  /** Called once per term after the lock was taken; a throw gives the lock back. */
  onElected(): Promise<void>;
  /** Called at once when the term ends (lock lost, connection lost, stop). Must stop all scheduling synchronously. */
  onDeposed(reason: string): void | Promise<void>;
}

export interface LeaderHandle {
  /** True while this instance holds the lock and confirmed it within the last 3 checks. */
  isLeader(): boolean;
  stop(): Promise<void>;
}

/**
 * Leader election by a PostgreSQL session advisory lock on a dedicated connection. When the
 * leader's process dies its connection closes and the lock frees; a standby retrying every
 * retryMs takes it. The leader re-checks the lock (on the same backend) every checkMs and
 * steps down at the first failure, so it never schedules without holding the lock for long.
 */
export function startLeaderElection(o: LeaderOptions): LeaderHandle {
  const retryMs = o.retryMs ?? 1500;
  const checkMs = o.checkMs ?? 1000;
  let conn: postgres.Sql | null = null;
  let leader = false;
  let confirmedAt = 0;
  let backendPid = 0;
  let stopped = false;
  let wake: (() => void) | null = null;
  let announcedStandby = false;
  // A leader that lost its lock lets the standbys try first, so a flapping connection does not win it straight back.
  let holdOffUntil = 0;

  const open = () => {
    const tls = tlsFromUrl(o.databaseUrl);
    return postgres(tls.url, {
      ssl: tls.ssl,
      max: 1,
      idle_timeout: 0,
      // The lock lives as long as this session: postgres.js would otherwise close the connection after 30-60 minutes
      // (its default max_lifetime) and open another on the next query, and the leader would step down each time.
      max_lifetime: null,
      connect_timeout: 5,
      onnotice: () => {},
      // The server notices a vanished leader host in ~10 s instead of the OS default of hours.
      connection: { application_name: "watchpost-scheduler-lock", tcp_keepalives_idle: 5, tcp_keepalives_interval: 2, tcp_keepalives_count: 3 } as never,
    });
  };

  const withTimeout = <T>(p: Promise<T>, ms: number) =>
    Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`lock query timed out after ${ms} ms`)), ms))]);

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(t);
        resolve();
      };
    });

  const closeConn = async () => {
    const c = conn;
    conn = null;
    await c?.end({ timeout: 1 }).catch(() => {});
  };

  const depose = async (reason: string) => {
    if (!leader) return;
    leader = false;
    if (reason === "stopping") o.log.info({ op: "scheduler.leader", reason }, "stepping down");
    else o.log.warn({ op: "scheduler.leader", reason }, "stepping down");
    try {
      await o.onDeposed(reason);
    } catch (err) {
      o.log.error({ op: "scheduler.leader", err }, "stepping down failed");
    }
  };

  const tryAcquire = async (): Promise<boolean> => {
    conn ??= open();
    const [row] = await withTimeout(conn<{ ok: boolean; pid: number }[]>`select pg_try_advisory_lock(${SCHEDULER_LOCK_KEY}) as ok, pg_backend_pid() as pid`, 5000);
    if (!row?.ok) return false;
    backendPid = row.pid;
    return true;
  };

  /** Same backend (no silent reconnect) and the lock still granted to it. */
  const confirm = async (): Promise<boolean> => {
    if (!conn) return false;
    const [row] = await withTimeout(
      conn<{ ok: boolean }[]>`
        select pg_backend_pid() = ${backendPid} and exists (
          select 1 from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and objid = ${SCHEDULER_LOCK_KEY} and granted
        ) as ok`,
      Math.max(500, checkMs * 2),
    );
    return Boolean(row?.ok);
  };

  const loop = async () => {
    while (!stopped) {
      if (!leader) {
        if (Date.now() < holdOffUntil) {
          await sleep(holdOffUntil - Date.now());
          continue;
        }
        try {
          if (await tryAcquire()) {
            leader = true;
            announcedStandby = false;
            confirmedAt = Date.now();
            o.log.info({ op: "scheduler.leader", backendPid }, "elected leader");
            try {
              await o.onElected();
            } catch (err) {
              o.log.error({ op: "scheduler.leader", err }, "starting the schedule failed; giving the lock back");
              await depose("start failed");
              await closeConn();
            }
          }
        } catch (err) {
          o.log.warn({ op: "scheduler.leader", err }, "lock attempt failed");
          await closeConn();
        }
        if (!leader && !announcedStandby) {
          o.log.info({ op: "scheduler.leader", retryMs }, "standing by: another instance leads");
          announcedStandby = true;
        }
        if (!leader) await sleep(retryMs);
        continue;
      }
      await sleep(checkMs);
      if (stopped || !leader) continue;
      try {
        if (await confirm()) confirmedAt = Date.now();
        else {
          await depose("lock lost");
          await closeConn();
          holdOffUntil = Date.now() + retryMs * 3;
        }
      } catch (err) {
        o.log.error({ op: "scheduler.leader", err }, "lock connection failed");
        await depose("connection lost");
        await closeConn();
        holdOffUntil = Date.now() + retryMs * 3;
      }
    }
  };
  const looping = loop();

  return {
    isLeader: () => leader && Date.now() - confirmedAt < checkMs * 3,
    async stop() {
      stopped = true;
      wake?.();
      await looping;
      const wasLeader = leader;
      await depose("stopping");
      if (wasLeader && conn) await conn`select pg_advisory_unlock(${SCHEDULER_LOCK_KEY})`.catch(() => {});
      await closeConn();
    },
  };
}
