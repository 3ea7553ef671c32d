import { Elysia, t } from "elysia";
import { acceptPing, type PingSignal } from "../../../domain/monitors/heartbeat.ts";
import type { ApiDeps } from "../../context.ts";
import { Obj } from "../../schemas/common.ts";
import { readPingBody } from "./ping-body.ts";

const Params = Obj({ token: t.String({ minLength: 1, maxLength: 100 }) });
const Ack = t.Object({ ok: t.Literal(true), monitor_id: t.String(), recorded: t.Boolean({ description: "false while the monitor is paused" }) });
const WHAT: Record<PingSignal, string> = {
  success: "Heartbeat ping: the job ran; an up result, the next deadline follows the period or schedule",
  start: "Heartbeat start signal: the job began; the next success or fail ping records the run's duration (no result of its own)",
  fail: "Heartbeat fail signal: the job failed; a down result at once, with the body's first line as the error",
};
const detail = (signal: PingSignal) => ({
  summary: WHAT[signal],
  security: [] as never[],
  "x-ignores-unknown-query": true,
});
/** Pings come from scripts that add parameters of their own; refusing them would lose the ping and raise a false alert. */
const AnyQuery = t.Object({}, { additionalProperties: true });

/** Inbound pings of heartbeat monitors: `/heartbeat/:token`, `/start` and `/fail`, each by GET or POST. */
export const heartbeatRoutes = (deps: ApiDeps) => {
  const ping = (signal: PingSignal) => async ({ params, request }: { params: { token: string }; request: Request }) => {
    const body = request.method === "POST" ? await readPingBody(request) : null;
    return { ok: true as const, ...(await acceptPing(deps.sql, deps.bus, params.token, signal, body)) };
  };
  const options = (signal: PingSignal) => ({ params: Params, query: AnyQuery, response: { 200: Ack }, detail: detail(signal) });
  return new Elysia({ prefix: "/heartbeat", detail: { tags: ["monitors"] } })
    .get("/:token", ping("success"), options("success"))
    .post("/:token", ping("success"), { ...options("success"), parse: "none" })
    .get("/:token/start", ping("start"), options("start"))
    .post("/:token/start", ping("start"), { ...options("start"), parse: "none" })
    .get("/:token/fail", ping("fail"), options("fail"))
    .post("/:token/fail", ping("fail"), { ...options("fail"), parse: "none" });
};
