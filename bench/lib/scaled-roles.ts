/**
 * The scaled topology as separate processes for a bench: api ×1, alerting ×A and cloud workers ×W of one region on
 * one database and one bus prefix; the scheduler is started separately, once the monitors exist.
 */
import { type RoleProcess, spawnRole } from "../../tests/support/processes.ts";

const SECRET_KEY = "bench-scaled-secret-key-0123456789abcdef0123";

export interface ScaledRolesOptions {
  databaseUrl: string;
  natsUrl: string;
  prefix: string;
  region: string;
  workers: number;
  alerting: number;
  /** CONCURRENCY of each worker. */
  concurrency: number;
  apiPort: number;
}

export async function startScaledRoles(o: ScaledRolesOptions) {
  const bus = { NATS_URL: o.natsUrl, NATS_PREFIX: o.prefix, SECRET_KEY, LOG_LEVEL: "info" };
  const common = { ...bus, DATABASE_URL: o.databaseUrl };
  const procs: { role: string; proc: RoleProcess }[] = [];
  const spawn = (entry: string, env: Record<string, string>, args: string[] = []) => {
    const p = spawnRole(entry, env, args);
    procs.push({ role: entry.split("/").at(-2) === "cloud" ? "worker" : entry.split("/")[0]!, proc: p });
    return p;
  };
  const stop = async () => void (await Promise.all(procs.map((p) => p.proc.stop(30_000))));
  /** Warn and error lines of every process so far, counted by role and message (pino levels: 40 warn, 50 error). */
  const complaints = () => {
    const counts = new Map<string, number>();
    for (const { role, proc } of procs) {
      for (const line of proc.lines) {
        if (typeof line.level === "number" && line.level >= 40) counts.set(`${role}: ${line.msg}`, (counts.get(`${role}: ${line.msg}`) ?? 0) + 1);
      }
    }
    return [...counts].sort((a, b) => b[1] - a[1]);
  };
  try {
    const api = spawn("api/main.ts", {
      ...common,
      HOST: "127.0.0.1",
      PORT: String(o.apiPort),
      REGIONS: o.region,
      REGION_LOCATIONS: `${o.region}=Loopback`,
      BILLING: "false",
      RATE_LIMIT_PER_ORG: "100000000",
    });
    const alerting = Array.from({ length: o.alerting }, () => spawn("alerting/main.ts", { ...common, ALLOW_PRIVATE_IPS: "true" }));
    // Workers need no database: the bus and the secret key only, as in the compose file.
    const workers = Array.from({ length: o.workers }, () =>
      spawn("runner/cloud/main.ts", { ...bus, ALLOW_PRIVATE_IPS: "true", CONCURRENCY: String(o.concurrency) }, ["--region", o.region]),
    );
    await Promise.all([
      api.waitForLog("API listening", 60_000),
      ...alerting.map((p) => p.waitForLog("ingest and alerting started", 60_000)),
      ...workers.map((p) => p.waitForLog("worker consuming", 60_000)),
    ]);
    let scheduler: RoleProcess | null = null;
    return {
      apiUrl: `http://127.0.0.1:${o.apiPort}`,
      pids: {
        api: [api.proc.pid],
        alerting: alerting.map((p) => p.proc.pid),
        workers: workers.map((p) => p.proc.pid),
        get scheduler() {
          return scheduler ? [scheduler.proc.pid] : [];
        },
      },
      async startScheduler() {
        scheduler = spawn("scheduler/main.ts", { ...common, BILLING: "false" });
        await scheduler.waitForLog("schedule running", 60_000);
      },
      complaints,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
