import type { ClaimedJob, RunnerResult } from "../schemas/runner-protocol.ts";
import { isRunnableCheckType, runCheck, type RunCheckOptions } from "./checks/registry.ts";
import { packArtifacts } from "./checks/shared/pack-artifacts.ts";
import { CheckUnavailableError, InvalidCheckJobError } from "./checks/types.ts";

type Outcome = Omit<RunnerResult, "claim">;

const unavailable = (error: string, at: number): Outcome => ({ status: "unavailable", checked_at: at, duration_ms: 0, error, data: {} });

/**
 * One claimed job to its outcome, on the same engine as the cloud workers. Self-hosted runners
 * may use IPv6 and, with ALLOW_PRIVATE_IPS, private targets; browser checks run in the runner's
 * pool (BROWSERS). Rejects only with CheckAbortedError.
 */
export async function executeClaimed(job: ClaimedJob["job"], o: { allowPrivate: boolean; now: () => number; signal?: AbortSignal; check?: Omit<RunCheckOptions, "signal"> }): Promise<Outcome> {
  const started = o.now();
  if (started > job.expires_at) return unavailable(`job expired before the runner could run it (due ${new Date(job.due_at).toISOString()})`, started);
  if (!isRunnableCheckType(job.type)) return unavailable(`this runner cannot run ${job.type} checks`, started);
  try {
    const r = await runCheck({ type: job.type, config: job.config, timeoutMs: job.timeout_ms, allowPrivate: o.allowPrivate, ipv6: true }, { ...o.check, signal: o.signal });
    const outcome: Outcome = { status: r.status, checked_at: started, duration_ms: r.duration_ms, error: r.error ?? null, data: r.data };
    if (r.artifacts && r.artifacts.length > 0) {
      const packed = packArtifacts(r.artifacts);
      outcome.data = { ...r.data, screenshots: packed.length > 0 ? packed.map((a) => a.name) : null };
      if (packed.length > 0) outcome.artifacts = packed;
    }
    return outcome;
  } catch (err) {
    if (err instanceof CheckUnavailableError) return unavailable(`this runner cannot run it: ${err.message}`, started);
    if (!(err instanceof InvalidCheckJobError)) throw err;
    const detail = err.issues.length > 0 ? `: ${err.issues.join("; ")}` : "";
    return unavailable(`check cannot run as configured: ${err.message}${detail}`, started);
  }
}
