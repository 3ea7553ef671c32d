import type { Sql } from "../client.ts";

/** Results per monitor whose files are kept; older files are deleted when new ones arrive. */
const ARTIFACT_RESULTS_KEPT = 100;

export interface ArtifactWrite {
  orgId: string;
  monitorId: string;
  jobId: string;
  scheduledAt: number;
  name: string;
  contentType: string;
  bytes: Uint8Array;
}

export interface ArtifactRow {
  name: string;
  content_type: string;
  bytes: Buffer;
  created_at: Date;
}

/**
 * Stores a result's files (idempotent: a re-run job overwrites its own) and trims the monitor to
 * its newest ARTIFACT_RESULTS_KEPT results with files. Nothing is stored for a deleted monitor.
 * Returns the names stored.
 */
export async function storeArtifacts(sql: Sql, files: ArtifactWrite[]): Promise<string[]> {
  if (files.length === 0) return [];
  const stored: string[] = [];
  await sql.begin(async (tx) => {
    for (const f of files) {
      const rows = await tx`
        insert into check_artifacts (org_id, monitor_id, job_id, name, content_type, bytes, scheduled_at)
        select ${f.orgId}, id, ${f.jobId}, ${f.name}, ${f.contentType}, ${Buffer.from(f.bytes)}, to_timestamp(${f.scheduledAt / 1000})
        from monitors where id = ${f.monitorId} and org_id = ${f.orgId}
        on conflict (monitor_id, job_id, name) do update set content_type = excluded.content_type, bytes = excluded.bytes, created_at = now()
        returning name`;
      if (rows.length > 0) stored.push(f.name);
    }
    const monitorId = files[0]!.monitorId;
    await tx`
      delete from check_artifacts where monitor_id = ${monitorId} and job_id not in (
        select job_id from check_artifacts where monitor_id = ${monitorId}
        group by job_id order by max(scheduled_at) desc limit ${ARTIFACT_RESULTS_KEPT})`;
  });
  return stored;
}

/** One file of one result; `name` omitted gives "failure" when there is one, else the first stored. */
export async function findArtifact(sql: Sql, orgId: string, monitorId: string, jobId: string, name?: string): Promise<ArtifactRow | undefined> {
  const [row] = name
    ? await sql<ArtifactRow[]>`
        select name, content_type, bytes, created_at from check_artifacts
        where org_id = ${orgId} and monitor_id = ${monitorId} and job_id = ${jobId} and name = ${name}`
    : await sql<ArtifactRow[]>`
        select name, content_type, bytes, created_at from check_artifacts
        where org_id = ${orgId} and monitor_id = ${monitorId} and job_id = ${jobId}
        order by (name = 'failure') desc, created_at, name limit 1`;
  return row;
}
