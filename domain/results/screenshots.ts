import type { Actor } from "../access/actor.ts";
import type { Sql } from "../../db/client.ts";
import { notFound } from "../../core/errors.ts";
import { type ArtifactRow, findArtifact } from "../../db/queries/check-artifacts.ts";
import { getMonitorCheck } from "./monitor-results.ts";

/**
 * A screenshot stored with one check result (a failed browser check's "failure", or a flow's
 * screenshot step by name). Another organisation's monitor or result, or no such file, is 404.
 */
export async function getCheckScreenshot(ctx: { sql: Sql; actor: Actor }, monitorId: string, checkId: string, name?: string): Promise<ArtifactRow> {
  const result = await getMonitorCheck(ctx, monitorId, checkId);
  const file = await findArtifact(ctx.sql, ctx.actor.orgId, monitorId, result.job_id, name);
  if (!file) throw notFound("Screenshot");
  return file;
}
