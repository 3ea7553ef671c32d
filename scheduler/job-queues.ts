import type { JobSubject } from "../core/bus/index.ts";
import { regionBrowserSubject, regionSubject, runnerSubject } from "../schemas/messages/check-messages.ts";

/**
 * One job queue the scheduler publishes to, and so one line of backpressure (scheduler/admission.ts): a region's
 * standard checks, one browser engine of a region, or one self-hosted runner.
 */
export interface JobQueue {
  /** The queue's subject: also its key. */
  subject: JobSubject;
  kind: "region" | "browser" | "runner";
  /** The region, or the runner's id. */
  location: string;
  /** The browser engine of a `browser` queue; null otherwise. */
  engine: string | null;
}

export const regionQueue = (region: string): JobQueue => ({ subject: regionSubject(region), kind: "region", location: region, engine: null });
export const browserQueue = (region: string, engine: string): JobQueue => ({ subject: regionBrowserSubject(region, engine), kind: "browser", location: region, engine });
export const runnerQueue = (runnerId: string): JobQueue => ({ subject: runnerSubject(runnerId), kind: "runner", location: runnerId, engine: null });

/** The queue of a check of `engine` (null: a standard check) at a region or runner. */
export const queueOf = (locationType: "region" | "runner", location: string, engine: string | null): JobQueue =>
  locationType === "runner" ? runnerQueue(location) : engine === null ? regionQueue(location) : browserQueue(location, engine);

/** A queue as stored in schedule_queue_state, back to its descriptor; null when the row is not one we write. */
export function queueFromRow(kind: string, location: string, engine: string | null): JobQueue | null {
  if (kind === "region") return regionQueue(location);
  if (kind === "browser" && engine) return browserQueue(location, engine);
  if (kind === "runner") return runnerQueue(location);
  return null;
}
