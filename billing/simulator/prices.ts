import type { Sql } from "../../db/client.ts";
import { listAddons } from "../../db/queries/billing.ts";
import { listPlans } from "../../db/queries/plans.ts";

/** The simulator's price list, built from our catalogue: `pri_<product>_<cycle>` → cents per cycle. */
export async function simulatorPrices(sql: Sql): Promise<Record<string, number>> {
  const prices: Record<string, number> = {};
  for (const p of await listPlans(sql)) {
    prices[`pri_${p.id}_monthly`] = p.monthly_price_cents;
    prices[`pri_${p.id}_annual`] = p.annual_price_cents;
  }
  for (const a of await listAddons(sql)) {
    prices[`pri_${a.id}_monthly`] = a.price_cents;
    prices[`pri_${a.id}_annual`] = a.annual_price_cents;
  }
  return prices;
}
