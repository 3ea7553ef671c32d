import type { SecretBox } from "../../core/crypto/secrets.ts";
import { type CheckJobMessage, type CheckResultMessage, resultMessage, unavailableResult } from "../../schemas/messages/check-messages.ts";
import { openSealedFields } from "../../core/crypto/sealed-fields.ts";
import { isRunnableCheckType, runCheck, type RunCheckOptions } from "../checks/registry.ts";
import { packArtifacts } from "../checks/shared/pack-artifacts.ts";
import { CheckUnavailableError, InvalidCheckJobError } from "../checks/types.ts";

export interface ExecuteOptions {
  box: SecretBox;
  allowPrivate: boolean;
  /** IPV6_EGRESS: this region's machine can reach IPv6 targets (hosted cloud regions cannot). */
  ipv6: boolean;
  now: () => number;
  signal?: AbortSignal;
  check?: Omit<RunCheckOptions, "signal">;
}

/**
 * One job to one result. A job past its expiry, of a type this engine does not run, or that
 * cannot run as given is recorded `unavailable` (a gap, not downtime). Rejects only with
 * CheckAbortedError (shutdown): the job then goes back to the queue.
 */
export async function executeJob(job: CheckJobMessage, o: ExecuteOptions): Promise<CheckResultMessage> {
  const started = o.now();
  if (started > job.expires_at) return unavailableResult(job, `job expired before a worker could run it (due ${new Date(job.due_at).toISOString()})`, started);
  if (!isRunnableCheckType(job.type)) return unavailableResult(job, `no worker able to run ${job.type} checks in region ${job.location}`, started);
  let config: Record<string, unknown>;
  try {
    config = openSealedFields(job.config, job.secrets_enc, o.box);
  } catch {
    return unavailableResult(job, "cannot decrypt the monitor's secrets: this worker's SECRET_KEY differs from the API's", started);
  }
  try {
    const result = await runCheck(
      {
        type: job.type,
        config,
        timeoutMs: job.timeout_ms,
        // Hosted cloud regions are IPv4 only and never reach private networks; a self-hosted local region may do both.
        allowPrivate: o.allowPrivate,
        ipv6: o.ipv6,
      },
      { ...o.check, signal: o.signal },
    );
    // Screenshots ride in the result message; ingest stores them and names the ones kept.
    const artifacts = result.artifacts && result.artifacts.length > 0 ? packArtifacts(result.artifacts) : [];
    if (result.artifacts && result.artifacts.length > 0) result.data.screenshots = artifacts.length > 0 ? artifacts.map((a) => a.name) : null;
    return resultMessage(job, { checked_at: started, status: result.status, duration_ms: result.duration_ms, error: result.error, data: result.data, artifacts });
  } catch (err) {
    if (err instanceof CheckUnavailableError) return unavailableResult(job, `${err.message} in region ${job.location}`, started);
    if (err instanceof InvalidCheckJobError) {
      const detail = err.issues.length > 0 ? `: ${err.issues.join("; ")}` : "";
      return unavailableResult(job, `check cannot run as configured: ${err.message}${detail}`, started);
    }
    throw err;
  }
}
