import { type Static, Type } from "@sinclair/typebox";

/** Where a check runs: a cloud region or one self-hosted runner. */
const LocationTypeSchema = Type.Union([Type.Literal("region"), Type.Literal("runner")]);
export type LocationType = Static<typeof LocationTypeSchema>;

/** The outcome of a check; `unavailable` = no region or runner could run it (a gap, not downtime). */
const ResultStatusSchema = Type.Union([Type.Literal("up"), Type.Literal("down"), Type.Literal("degraded"), Type.Literal("timeout"), Type.Literal("unavailable")]);
export type ResultStatus = Static<typeof ResultStatusSchema>;

const DataScalar = Type.Union([Type.Number(), Type.String(), Type.Boolean(), Type.Null()]);
/** A check's data: flat values, lists of names, or lists of flat records (structurally the engine's CheckData). */
const CheckDataSchema = Type.Record(Type.String(), Type.Union([DataScalar, Type.Array(Type.String()), Type.Array(Type.Record(Type.String(), DataScalar))]));
type CheckMessageData = Static<typeof CheckDataSchema>;

/** A file of a result carried on the bus (browser screenshots), base64; ingest stores it and names it in data.screenshots. */
const PackedArtifactSchema = Type.Object({ name: Type.String(), content_type: Type.String(), data_base64: Type.String() });
type PackedArtifact = Static<typeof PackedArtifactSchema>;

/**
 * One check to run, published on `jobs.region.<region>[.<engine>]` or `jobs.runner.<runnerId>`, or sent
 * as a run-now request. A scheduled job's id is stable per (monitor, location, due time), so
 * re-publishing is de-duplicated and the result is stored once.
 */
const CheckJobMessageSchema = Type.Object({
  id: Type.String(),
  org_id: Type.String(),
  monitor_id: Type.String(),
  location: Type.String(),
  location_type: LocationTypeSchema,
  /** The due time this job was planned for, ms since the epoch. */
  due_at: Type.Number(),
  /** Not started by then: recorded as `unavailable` instead of run late. */
  expires_at: Type.Number(),
  /**
   * A runner's job: its life (ms), counted on time its runner could have been heard. The API counts `expires_at` again
   * from it when it hands the job out, with the outages known by then (docs/runners.md). Absent: `expires_at - due_at`.
   */
  life_ms: Type.Optional(Type.Number()),
  type: Type.String(),
  config: Type.Record(Type.String(), Type.Unknown()),
  /** Encrypted secrets of the config (SecretBox); merged by whoever runs the check. */
  secrets_enc: Type.Union([Type.String(), Type.Null()]),
  timeout_ms: Type.Number(),
  /** Run-now of a paused or suspended monitor: run and answer, but publish no result. Absent = record. */
  record: Type.Optional(Type.Boolean()),
});
export type CheckJobMessage = Static<typeof CheckJobMessageSchema>;

/** One check result, published on `results.<orgId>.<monitorId>` with the job's id. */
export const CheckResultMessageSchema = Type.Object({
  id: Type.String(),
  org_id: Type.String(),
  monitor_id: Type.String(),
  location: Type.String(),
  location_type: LocationTypeSchema,
  /** The job's due time (ms); with `id` it makes the result idempotent. */
  scheduled_at: Type.Number(),
  /** When the check ran (ms). */
  checked_at: Type.Number(),
  status: ResultStatusSchema,
  duration_ms: Type.Number(),
  error: Type.Union([Type.String(), Type.Null()]),
  data: CheckDataSchema,
  /** Files of the result (browser screenshots, packed within the budget); ingest stores them and names them in data.screenshots. */
  artifacts: Type.Optional(Type.Array(PackedArtifactSchema)),
});
export type CheckResultMessage = Static<typeof CheckResultMessageSchema>;

export const jobId = (monitorId: string, location: string, dueAt: number) => `${monitorId}.${location}.${dueAt}`;
/** A run-now job's id: unique per request, and marks the job as one a caller waits for. */
export const runNowJobId = (monitorId: string, at: number) => `run.${monitorId}.${at}`;
export const isRunNowJobId = (id: string) => id.startsWith("run.");
export const regionSubject = (region: string) => `jobs.region.${region}` as const;
export const runnerSubject = (runnerId: string) => `jobs.runner.${runnerId}` as const;
/** Browser jobs of a region, one queue per engine: only workers with that engine's browsers consume it. */
export const regionBrowserSubject = (region: string, engine: string) => `jobs.region.${region}.${engine}` as const;
export const resultSubject = (orgId: string, monitorId: string) => `results.${orgId}.${monitorId}` as const;

/** Run-now requests to the workers of a region (with the engine for browser checks, like the job queues). */
export const runNowRegionSubject = (region: string, engine: string | null = null) => (engine === null ? `rpc.run-now.region.${region}` : `rpc.run-now.region.${region}.${engine}`) as `rpc.${string}`;
/** The queue group of a run-now subject: one worker of the region (and engine) answers. */
export const runNowQueue = (region: string, engine: string | null = null) => (engine === null ? `run-now.${region}` : `run-now.${region}.${engine}`);
/** Where the API instance that sent a run-now job to a runner waits for its result. */
export const runNowReplySubject = (jobId: string) => `rpc.reply.${jobId}` as `rpc.${string}`;

/** What a job says about where and when it runs; enough to record that it could not. */
export type JobIdentity = Pick<CheckJobMessage, "id" | "org_id" | "monitor_id" | "location" | "location_type" | "due_at">;

export interface ResultOutcome {
  checked_at: number;
  status: ResultStatus;
  duration_ms: number;
  error?: string | null;
  data: CheckMessageData;
  artifacts?: PackedArtifact[];
}

/** THE builder of a result message: every producer (workers, runners via the API, heartbeats, the scheduler) uses it. */
export function resultMessage(job: JobIdentity, o: ResultOutcome): CheckResultMessage {
  const message: CheckResultMessage = {
    id: job.id,
    org_id: job.org_id,
    monitor_id: job.monitor_id,
    location: job.location,
    location_type: job.location_type,
    scheduled_at: job.due_at,
    checked_at: o.checked_at,
    status: o.status,
    duration_ms: o.duration_ms,
    error: o.error ?? null,
    data: o.data,
  };
  if (o.artifacts && o.artifacts.length > 0) message.artifacts = o.artifacts;
  return message;
}

/**
 * The result of a job that could not run (no worker online in the region, runner offline,
 * expired before a worker took it): a gap in monitoring, not downtime of the target.
 */
export const unavailableResult = (job: JobIdentity, error: string, checkedAt: number): CheckResultMessage =>
  resultMessage(job, { checked_at: checkedAt, status: "unavailable", duration_ms: 0, error, data: {} });
