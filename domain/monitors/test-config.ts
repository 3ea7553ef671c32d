import type { Actor } from "../access/actor.ts";
import type { Bus } from "../../core/bus/index.ts";
import type { SecretBox } from "../../core/crypto/secrets.ts";
import { conflict } from "../../core/errors.ts";
import type { Sql } from "../../db/client.ts";
import { runMonitorNow, type RunNowResult } from "./run-now.ts";
import { draftMonitor, type MonitorInput } from "./service.ts";

export interface TestConfigContext {
  sql: Sql;
  bus: Bus;
  actor: Actor;
  box: SecretBox;
  settings: { regions: string[] };
}

export type TestedCheck = Omit<RunNowResult, "id" | "recorded">;

/**
 * Runs the check of a monitor that is not saved yet, once, where it would run (its first online
 * runner, else its first region), through the run-now request to a worker: the same validation as saving it and the
 * worker's private-address guard, and nothing is stored (the job says record: false).
 */
export async function testMonitorConfig(ctx: TestConfigContext, input: Omit<MonitorInput, "name" | "tags" | "paused"> & { name?: string }): Promise<TestedCheck> {
  if (input.type === "heartbeat") throw conflict("Heartbeat monitors are checked by their pings; there is nothing to test before saving");
  const draft = await draftMonitor(ctx, input);
  const { id: _id, recorded: _recorded, ...result } = await runMonitorNow({ sql: ctx.sql, bus: ctx.bus }, draft);
  return result;
}
