import type { Bus } from "../../core/bus/index.ts";
import { publishLiveEvent } from "../events/publish-live-event.ts";
import type { CheckResultEventData, MonitorStatusChangedEventData } from "../../schemas/events/live-event-schemas.ts";
import type { StoreOutcome } from "./ingest.ts";
import type { CheckResultInput } from "./types.ts";

/**
 * Publishes `check.result` for each result a store call inserted and `monitor.status_changed` for each
 * monitor it moved. Whoever stored a result announces it (ingest, or run-now storing its own), so a
 * duplicate, inserted by no one, is never announced twice.
 */
export function announceStored(bus: Bus, outcome: StoreOutcome, inputs: readonly CheckResultInput[]): void {
  const byJob = new Map(inputs.map((i) => [i.job_id, i]));
  for (const r of outcome.inserted) {
    const input = byJob.get(r.job_id);
    publishLiveEvent<CheckResultEventData>(bus, r.org_id, "check.result", {
      id: r.id,
      monitor_id: r.monitor_id,
      location: r.location,
      location_type: input?.location_type ?? "region",
      scheduled_at: r.scheduled_at.toISOString(),
      status: r.status as CheckResultEventData["status"],
      duration_ms: r.duration_ms,
      error: input?.error ?? null,
      checked_at: r.checked_at.toISOString(),
      data: input?.data ?? {},
    });
  }
  for (const c of outcome.statusChanges) {
    publishLiveEvent<MonitorStatusChangedEventData>(bus, c.org_id, "monitor.status_changed", {
      monitor_id: c.monitor_id,
      from: c.from as MonitorStatusChangedEventData["from"],
      to: c.to as MonitorStatusChangedEventData["to"],
      at: c.at.toISOString(),
    });
  }
}
