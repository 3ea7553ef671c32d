/**
 * CPU and PSS per class of processes over a measured window, from /proc: a class is a list of pids (each role's
 * processes), and PostgreSQL is the set of backends serving one database, found through pg_stat_activity (the
 * machine's PostgreSQL serves other databases too, so its postmaster's totals would not be ours).
 */
import type { Sql } from "../../db/client.ts";
import { pssKb, stat, TICK } from "./proc.ts";

export interface ClassFigures {
  /** CPU time over the window, ms. */
  ms: number;
  /** PSS at the last sample, KB. */
  pssKb: number;
}

/** Own plus reaped children's ticks; 0 for a process that is gone. */
const ticksOf = (pid: number) => {
  const s = stat(pid);
  return s ? s[1] + s[2] : 0;
};

export class ClassMeter<K extends string> {
  private readonly base = new Map<number, number>();
  private readonly pss = new Map<K, number>();

  constructor(private readonly classes: Record<K, number[]>) {}

  private keys(): K[] {
    return Object.keys(this.classes) as K[];
  }

  start(): void {
    for (const k of this.keys()) for (const pid of this.classes[k]) this.base.set(pid, ticksOf(pid));
    this.samplePss();
  }

  samplePss(): void {
    for (const k of this.keys()) this.pss.set(k, this.classes[k].reduce((sum, pid) => sum + pssKb(pid), 0));
  }

  stop(): Record<K, ClassFigures> {
    this.samplePss();
    const out = {} as Record<K, ClassFigures>;
    for (const k of this.keys()) {
      const ticks = this.classes[k].reduce((sum, pid) => sum + Math.max(0, ticksOf(pid) - (this.base.get(pid) ?? 0)), 0);
      out[k] = { ms: (ticks / TICK) * 1000, pssKb: this.pss.get(k) ?? 0 };
    }
    return out;
  }
}

/**
 * The backends (client connections, autovacuum workers) of the database `sql` is connected to, but its own. A backend
 * that appears during the window counts from zero; one that exits counts up to its last sample, so sample often.
 */
export class PgBackendMeter {
  private readonly base = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private lastPssKb = 0;

  constructor(private readonly sql: Sql) {}

  private async pids(): Promise<number[]> {
    const rows = await this.sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
    return rows.map((r) => r.pid);
  }

  async start(): Promise<void> {
    for (const pid of await this.pids()) {
      const t = ticksOf(pid);
      this.base.set(pid, t);
      this.last.set(pid, t);
    }
  }

  async sample(): Promise<void> {
    const pids = await this.pids();
    for (const pid of pids) {
      const t = ticksOf(pid);
      if (!this.base.has(pid)) this.base.set(pid, 0);
      if (t > 0) this.last.set(pid, t);
    }
    this.lastPssKb = pids.reduce((sum, pid) => sum + pssKb(pid), 0);
  }

  async stop(): Promise<ClassFigures> {
    await this.sample();
    let ticks = 0;
    for (const [pid, t] of this.last) ticks += Math.max(0, t - (this.base.get(pid) ?? 0));
    return { ms: (ticks / TICK) * 1000, pssKb: this.lastPssKb };
  }
}
