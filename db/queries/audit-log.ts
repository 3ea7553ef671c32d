import type { Sql } from "../client.ts";

export interface AuditEntry {
  orgId: string;
  actorType: "user" | "api_key" | "system";
  actorId: string | null;
  actorLabel: string;
  action: string;
  targetType: string;
  targetId: string | null;
  ip: string | null;
  details?: Record<string, unknown>;
}

export interface AuditRow {
  id: number;
  org_id: string;
  actor_type: string;
  actor_id: string | null;
  actor_label: string;
  action: string;
  target_type: string;
  target_id: string | null;
  ip: string | null;
  details: Record<string, unknown>;
  created_at: Date;
}

export async function insertAudit(sql: Sql, e: AuditEntry): Promise<void> {
  await sql`
    insert into audit_log (org_id, actor_type, actor_id, actor_label, action, target_type, target_id, ip, details)
    values (${e.orgId}, ${e.actorType}, ${e.actorId}, ${e.actorLabel}, ${e.action}, ${e.targetType}, ${e.targetId}, ${e.ip}, ${sql.json((e.details ?? {}) as never)})`;
}

export interface AuditFilter {
  actor?: string;
  action?: string;
  target?: string;
  from?: Date;
  to?: Date;
}

export async function listAudit(sql: Sql, orgId: string, f: AuditFilter, limit: number, offset: number): Promise<{ rows: AuditRow[]; total: number }> {
  const where = sql`
    org_id = ${orgId}
    and (${f.actor ?? null}::text is null or actor_id = ${f.actor ?? null} or actor_label = ${f.actor ?? null})
    and (${f.action ?? null}::text is null or action = ${f.action ?? null} or action like ${(f.action ?? "") + ".%"})
    and (${f.target ?? null}::text is null or target_id = ${f.target ?? null} or target_type = ${f.target ?? null})
    and (${f.from ?? null}::timestamptz is null or created_at >= ${f.from ?? null})
    and (${f.to ?? null}::timestamptz is null or created_at < ${f.to ?? null})`;
  const rows = await sql<AuditRow[]>`select * from audit_log where ${where} order by created_at desc, id desc limit ${limit} offset ${offset}`;
  const [c] = await sql<{ n: number }[]>`select count(*)::int as n from audit_log where ${where}`;
  return { rows, total: c!.n };
}
