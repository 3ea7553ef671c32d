import "../../schemas/formats.ts";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Counter, Histogram, type Registry } from "prom-client";
import type { Bus, ConsumerHandle, Delivery } from "../../core/bus/index.ts";
import type { Sql } from "../../db/client.ts";
import type { CheckResultMessage } from "../../schemas/messages/check-messages.ts";
import type { Logger } from "../../core/log.ts";
import { announceStored } from "../../domain/results/announce.ts";
import { storeResults } from "../../domain/results/ingest.ts";
import { type CheckResultInput, CheckResultInputSchema } from "../../domain/results/types.ts";
import { existingMonitorIds } from "../../db/queries/monitors.ts";
import { storeResultArtifacts } from "../../domain/results/artifacts.ts";

export const INGEST_DURABLE = "ingest";

/** The ingest metrics of a process; several ingest consumers in one process share them. */
function ingestMetrics(registry: Registry) {
  const reuse = <M>(name: string, make: () => M): M => (registry.getSingleMetric(name) as M | undefined) ?? make();
  return {
    results: reuse(
      "watchpost_ingest_results_total",
      () =>
        new Counter({
          name: "watchpost_ingest_results_total",
          help: "Results handled by ingest: stored, duplicate (already stored for the job) or dropped (malformed, monitor deleted)",
          labelNames: ["outcome"] as const,
          registers: [registry],
        }),
    ),
    batch: reuse(
      "watchpost_ingest_batch_seconds",
      () =>
        new Histogram({
          name: "watchpost_ingest_batch_seconds",
          help: "Time to store one batch of results with its rollups and monitor states",
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
          registers: [registry],
        }),
    ),
    lag: reuse(
      "watchpost_ingest_lag_seconds",
      () =>
        new Histogram({
          name: "watchpost_ingest_lag_seconds",
          help: "From publishing the oldest result of a batch to storing it",
          buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
          registers: [registry],
        }),
    ),
  };
}

export interface IngestDeps {
  sql: Sql;
  bus: Bus;
  log: Logger;
  /** Process registry for the ingest metrics; none when omitted. */
  registry?: Registry;
  /**
   * Transactions one batch is stored in at once, each owning a share of the monitors (so they never
   * wait on each other's rollup or monitor rows); default 2.
   */
  parallel?: number;
  /** A batch is stored as soon as it holds this many results (default 1,000)... */
  batchSize?: number;
  /**
   * ...or this long after its first result arrived (default 250 ms). At low rates a longer wait means
   * fewer, larger batches (each batch costs three statements whatever its size: about 25 results a batch
   * at 100 checks/s instead of 5 at 50 ms); at high rates batches fill first. Alerting does not wait for
   * it: rules are evaluated from their own consumer.
   */
  maxWaitMs?: number;
}

const INGEST_MAX_WAIT_MS = 250;

/** Compiled once: TypeBox's interpreted Value.Check walks the schema again for every result. */
const validInput = TypeCompiler.Compile(CheckResultInputSchema);

/** PostgreSQL has no year 0 and none past 9999 (the same bounds as the date-time format, schemas/formats.ts). */
const MIN_INSTANT = Date.parse("0001-01-01T00:00:00Z");
const MAX_INSTANT = Date.parse("9999-12-31T23:59:59.999Z");
const storable = (ms: number) => Number.isFinite(ms) && ms >= MIN_INSTANT && ms <= MAX_INSTANT;

/** The times stay Date objects: checking and storing them costs no ISO text written, matched and parsed again. */
function toInput(m: CheckResultMessage): CheckResultInput | null {
  if (!m || !storable(m.scheduled_at) || !storable(m.checked_at)) return null;
  return {
    job_id: m.id,
    org_id: m.org_id,
    monitor_id: m.monitor_id,
    location: m.location,
    location_type: m.location_type,
    scheduled_at: new Date(m.scheduled_at),
    checked_at: new Date(m.checked_at),
    status: m.status,
    duration_ms: m.duration_ms,
    error: m.error,
    data: m.data,
  };
}

/**
 * The durable RESULTS consumer that persists: each batch is stored in one transaction (once per
 * job id, even when delivered twice), then acked, then `check.result` and `monitor.status_changed`
 * events go out. Malformed results and results of deleted monitors are dropped (terminated).
 */
/** Splits a batch into `n` parts by monitor (FNV-1a of its id), so no two parts touch one monitor's rows. */
export function partitionByMonitor<T extends { monitor_id: string }>(rows: T[], n: number): T[][] {
  if (n <= 1) return [rows];
  const parts: T[][] = Array.from({ length: n }, () => []);
  for (const r of rows) {
    let h = 0x811c9dc5;
    for (let i = 0; i < r.monitor_id.length; i++) h = Math.imul(h ^ r.monitor_id.charCodeAt(i), 0x01000193);
    parts[(h >>> 0) % n]!.push(r);
  }
  return parts.filter((p) => p.length > 0);
}

export async function startIngest({ sql, bus, log, registry, batchSize = 1000, maxWaitMs = INGEST_MAX_WAIT_MS, parallel = 2 }: IngestDeps): Promise<ConsumerHandle> {
  await bus.ensureTopology({ resultDurables: [{ name: INGEST_DURABLE }] });
  const metrics = registry ? ingestMetrics(registry) : null;
  return bus.consumeResults<CheckResultMessage>(INGEST_DURABLE, { batchSize, maxWaitMs, ackWaitMs: 60_000 }, async (batch) => {
    const started = performance.now();
    const valid: { delivery: Delivery<CheckResultMessage>; input: CheckResultInput }[] = [];
    for (const delivery of batch) {
      const input = toInput(delivery.data);
      if (input && validInput.Check(input)) valid.push({ delivery, input });
      else {
        log.warn({ op: "ingest.invalid", jobId: delivery.data?.id, orgId: delivery.data?.org_id, monitorId: delivery.data?.monitor_id }, "dropping malformed result");
        delivery.term();
      }
    }
    const live = await existingMonitorIds(sql, [...new Set(valid.map((v) => v.input.monitor_id))]);
    const keep = valid.filter((v) => {
      if (live.has(v.input.monitor_id)) return true;
      v.delivery.term();
      return false;
    });
    // Screenshots travel in the result message (the workers have no database): stored first, so the
    // stored result names exactly the files kept.
    await Promise.all(
      keep
        .filter((k) => (k.delivery.data.artifacts?.length ?? 0) > 0)
        .map(async (k) => {
          k.input.data = { ...k.input.data, screenshots: await storeResultArtifacts(sql, log, k.delivery.data) };
        }),
    );
    // A part that fails throws the whole batch back for redelivery; what the other parts stored is
    // then skipped as already stored (idempotent on the job id).
    const outcomes = await Promise.all(partitionByMonitor(keep.map((k) => k.input), parallel).map((part) => storeResults(sql, part)));
    const inserted = outcomes.flatMap((o) => o.inserted);
    const statusChanges = outcomes.flatMap((o) => o.statusChanges);
    for (const k of keep) k.delivery.ack();
    announceStored(bus, { inserted, statusChanges }, keep.map((k) => k.input));
    if (metrics) {
      metrics.results.inc({ outcome: "stored" }, inserted.length);
      metrics.results.inc({ outcome: "duplicate" }, keep.length - inserted.length);
      metrics.results.inc({ outcome: "dropped" }, batch.length - keep.length);
      metrics.batch.observe((performance.now() - started) / 1000);
      metrics.lag.observe(Math.max(0, Date.now() - Math.min(...batch.map((d) => d.publishedAt))) / 1000);
    }
    log.debug({ op: "ingest.batch", received: batch.length, stored: inserted.length, statusChanges: statusChanges.length }, "batch stored");
  });
}
