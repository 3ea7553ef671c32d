import type { Logger } from "../../core/log.ts";
import type { Sql } from "../../db/client.ts";
import { storeArtifacts } from "../../db/queries/check-artifacts.ts";
import type { CheckResultMessage } from "../../schemas/messages/check-messages.ts";

/**
 * Stores the files a result carries (browser screenshots from a cloud worker or a runner) and returns the
 * names kept, for the result's `data.screenshots`: null when none was (a monitor deleted meanwhile, or the
 * store failed; the result itself is still stored). Idempotent: a redelivered result overwrites its own files.
 * Ingest stores them for every published result; a recorded run-now before it stores its own copy of the result,
 * so that the result it answers names files that can already be read.
 */
export async function storeResultArtifacts(sql: Sql, log: Logger, m: CheckResultMessage): Promise<string[] | null> {
  const files = m.artifacts ?? [];
  const stored = await storeArtifacts(
    sql,
    files.map((a) => ({
      orgId: m.org_id,
      monitorId: m.monitor_id,
      jobId: m.id,
      scheduledAt: m.scheduled_at,
      name: a.name,
      contentType: a.content_type,
      bytes: Buffer.from(a.data_base64, "base64"),
    })),
  ).catch((err) => {
    log.warn({ op: "ingest.artifacts", err, jobId: m.id, orgId: m.org_id, monitorId: m.monitor_id }, "could not store a result's screenshots");
    return [];
  });
  return stored.length > 0 ? stored : null;
}
