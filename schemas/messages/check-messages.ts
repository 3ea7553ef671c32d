import type { CheckData } from "../../runner/checks/types.ts";

/** Where a check runs: a cloud region or one self-hosted runner. */
export type LocationType = "region" | "runner";

/** The outcome of a check; `unavailable` = no region or runner could run it (a gap, not downtime). */
export type ResultStatus = "up" | "down" | "degraded" | "timeout" | "unavailable";

/**
 * One scheduled check, published on `jobs.region.<region>` or `jobs.runner.<runnerId>`.
 * The id is stable per (monitor, location, due time), so re-publishing is de-duplicated
 * and the result is stored once.
 */
export interface CheckJobMessage {
  id: string;
  org_id: string;
  monitor_id: string;
  location: string;
  location_type: LocationType;
  /** The due time this job was planned for, ms since the epoch. */
  due_at: number;
  /** Not started by then: recorded as `unavailable` instead of run late. */
  expires_at: number;
  type: string;
  config: Record<string, unknown>;
  /** Encrypted secrets of the config (SecretBox); merged by whoever runs the check. */
  secrets_enc: string | null;
  timeout_ms: number;
}

/** One check result, published on `results.<orgId>.<monitorId>` with the job's id. */
export interface CheckResultMessage {
  id: string;
  org_id: string;
  monitor_id: string;
  location: string;
  location_type: LocationType;
  /** The job's due time (ms); with `id` it makes the result idempotent. */
  scheduled_at: number;
  /** When the check ran (ms). */
  checked_at: number;
  status: ResultStatus;
  duration_ms: number;
  error: string | null;
  data: CheckData;
  /** Files of the result (browser screenshots, packed within the budget); ingest stores them and names them in data.screenshots. */
  artifacts?: PackedArtifact[];
}

/** One file of a result as the bus and the runner protocol carry it. */
export interface PackedArtifact {
  name: string;
  content_type: string;
  data_base64: string;
}

export const jobId = (monitorId: string, location: string, dueAt: number) => `${monitorId}.${location}.${dueAt}`;
export const regionSubject = (region: string) => `jobs.region.${region}` as const;
export const runnerSubject = (runnerId: string) => `jobs.runner.${runnerId}` as const;
/** Browser jobs of a region, one queue per engine: only workers with that engine's browsers consume it. */
export const regionBrowserSubject = (region: string, engine: string) => `jobs.region.${region}.${engine}` as const;
export const resultSubject = (orgId: string, monitorId: string) => `results.${orgId}.${monitorId}` as const;
export const eventSubject = (orgId: string) => `events.${orgId}` as const;

/** What a job says about where and when it runs; enough to record that it could not. */
export type JobIdentity = Pick<CheckJobMessage, "id" | "org_id" | "monitor_id" | "location" | "location_type" | "due_at">;

/**
 * The result of a job that could not run (no worker online in the region, runner offline,
 * expired before a worker took it): a gap in monitoring, not downtime of the target.
 */
export function unavailableResult(job: JobIdentity, error: string, checkedAt: number): CheckResultMessage {
  return {
    id: job.id,
    org_id: job.org_id,
    monitor_id: job.monitor_id,
    location: job.location,
    location_type: job.location_type,
    scheduled_at: job.due_at,
    checked_at: checkedAt,
    status: "unavailable",
    duration_ms: 0,
    error,
    data: {},
  };
}
