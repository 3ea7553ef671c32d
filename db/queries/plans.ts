import type { Sql } from "../client.ts";

export interface PlanRow {
  id: string;
  name: string;
  monthly_price_cents: number;
  annual_price_cents: number;
  grace_days: number;
  quotas: Record<string, number>;
  features: Record<string, unknown>;
  sort: number;
  public: boolean;
}

export async function findOrgPlan(sql: Sql, orgId: string): Promise<PlanRow | undefined> {
  const [row] = await sql<PlanRow[]>`select p.* from organisations o join plans p on p.id = o.plan_id where o.id = ${orgId}`;
  return row;
}

export async function listPlans(sql: Sql): Promise<PlanRow[]> {
  return sql<PlanRow[]>`select * from plans order by sort`;
}

export async function planExists(sql: Sql, planId: string): Promise<boolean> {
  const [row] = await sql`select 1 from plans where id = ${planId}`;
  return Boolean(row);
}

export async function findPlan(sql: Sql, planId: string): Promise<PlanRow | undefined> {
  const [row] = await sql<PlanRow[]>`select * from plans where id = ${planId}`;
  return row;
}
