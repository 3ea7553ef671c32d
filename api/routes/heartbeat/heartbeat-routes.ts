import { Elysia, t } from "elysia";
import { acceptPing } from "../../../domain/monitors/heartbeat.ts";
import type { ApiDeps } from "../../context.ts";
import { Obj } from "../../schemas/common.ts";

const Params = Obj({ token: t.String({ minLength: 1, maxLength: 100 }) });
const Ack = t.Object({ ok: t.Literal(true), monitor_id: t.String(), recorded: t.Boolean({ description: "false while the monitor is paused" }) });
const detail = {
  summary: "Heartbeat ping: the token in the URL is the credential (unauthenticated, rate-limited per IP)",
  security: [] as never[],
};

/** Inbound pings of heartbeat monitors. */
export const heartbeatRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/heartbeat", detail: { tags: ["monitors"] } })
    .get("/:token", async ({ params }) => ({ ok: true as const, ...(await acceptPing(deps.sql, deps.bus, params.token)) }), {
      params: Params,
      response: { 200: Ack },
      detail,
    })
    .post("/:token", async ({ params }) => ({ ok: true as const, ...(await acceptPing(deps.sql, deps.bus, params.token)) }), {
      params: Params,
      parse: "none",
      response: { 200: Ack },
      detail,
    });
