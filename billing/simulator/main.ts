import { Type } from "@sinclair/typebox";
import { exitOnConfigError, parseEnv } from "../../core/config/parse-env.ts";
import { createSql } from "../../db/client.ts";
import { simulatorPrices } from "./prices.ts";
import { startBillingSimulator } from "./server.ts";

export const simEnv = Type.Object({
  DATABASE_URL: Type.String({ pattern: "^postgres(ql)?://", description: "the Watchpost database, to read the plan and add-on prices" }),
  BILLING_SIM_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 4010, description: "simulator listen port" }),
  BILLING_SIM_WEBHOOK_URL: Type.String({ default: "http://127.0.0.1:3000/api/v1/billing/webhooks/paddle", description: "where signed webhooks are sent" }),
  PADDLE_WEBHOOK_SECRETS: Type.String({ minLength: 1, default: "sim-webhook-secret", description: "webhook signing secret (the first of a comma-separated list)" }),
});

/** `bun run billing-sim`: the payment-provider simulator for offline development (see docs/billing.md). */
async function main() {
  const env = parseEnv(simEnv, process.env);
  const sql = createSql(env.DATABASE_URL, { max: 1 });
  const prices = await simulatorPrices(sql);
  await sql.end();
  const sim = startBillingSimulator({ port: env.BILLING_SIM_PORT, webhookUrl: env.BILLING_SIM_WEBHOOK_URL, secret: env.PADDLE_WEBHOOK_SECRETS.split(",")[0]!, prices });
  console.log(`billing simulator on ${sim.url}; webhooks to ${env.BILLING_SIM_WEBHOOK_URL}`);
  const stop = () => void sim.stop().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

if (import.meta.main) await main().catch(exitOnConfigError);
