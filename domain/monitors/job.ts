import type { CheckJobMessage, LocationType } from "../../schemas/messages/check-messages.ts";

/** The fields of a monitor a job carries (a monitor row, or the scheduler's copy of one). */
export interface JobSource {
  id: string;
  org_id: string;
  type: string;
  config: Record<string, unknown>;
  secrets_enc: string | null;
  timeout_ms: number;
}

export interface JobPlacement {
  id: string;
  location: string;
  location_type: LocationType;
  due_at: number;
  expires_at: number;
  /** false: a run-now of a paused or suspended monitor, answered but not recorded. */
  record?: boolean;
  /** A runner's job: its life, counted again by the API when it hands the job out. */
  life_ms?: number;
}

/**
 * THE job builder: scheduled jobs and run-now jobs are the same message. Secrets stay sealed
 * (`secrets_enc`); whoever runs the check opens them.
 */
export function buildCheckJob(m: JobSource, p: JobPlacement): CheckJobMessage {
  const job: CheckJobMessage = {
    id: p.id,
    org_id: m.org_id,
    monitor_id: m.id,
    location: p.location,
    location_type: p.location_type,
    due_at: p.due_at,
    expires_at: p.expires_at,
    type: m.type,
    config: m.config,
    secrets_enc: m.secrets_enc,
    timeout_ms: m.timeout_ms,
  };
  if (p.record === false) job.record = false;
  if (p.life_ms !== undefined) job.life_ms = p.life_ms;
  return job;
}
