import { Elysia, t } from "elysia";
import { acceptPing, MAX_EXIT_STATUS, type Ping, type PingSignal } from "../../../domain/monitors/heartbeat.ts";
import type { ApiDeps } from "../../context.ts";
import { EXIT_STATUS, Obj } from "../../schemas/common.ts";
import { readPingBody } from "./ping-body.ts";

const Token = t.String({ minLength: 1, maxLength: 100 });
const Params = Obj({ token: Token });
const ExitParams = Obj({
  token: Token,
  exit_status: t.String({ pattern: EXIT_STATUS, description: `The job's exit status, 0 to ${MAX_EXIT_STATUS} (no sign, no leading zero): 0 is a success ping, any other a fail ping`, examples: ["0", "1"] }),
});
const Ack = t.Object({ ok: t.Literal(true), monitor_id: t.String(), recorded: t.Boolean({ description: "false while the monitor is paused" }) });
const WHAT: Record<PingSignal, string> = {
  success: "Heartbeat ping: the job ran; an up result, the next deadline follows the period or schedule",
  start: "Heartbeat start signal: the job began; the next success or fail ping records the run's duration (no result of its own)",
  fail: "Heartbeat fail signal: the job failed; a down result at once, with the body's first line as the error",
};
const EXIT_WHAT = "Heartbeat ping with the job's exit status (`curl …/$?`): 0 an up result, any other a down result at once";
const detail = (summary: string) => ({
  summary,
  security: [] as never[],
  "x-ignores-unknown-query": true,
});
/** Pings come from scripts that add parameters of their own; refusing them would lose the ping and raise a false alert. */
const AnyQuery = t.Object({}, { additionalProperties: true });

/** Inbound pings of heartbeat monitors: `/heartbeat/:token`, `/start`, `/fail` and `/<exit status>`, each by GET or POST. */
export const heartbeatRoutes = (deps: ApiDeps) => {
  const accept = async (token: string, what: Ping, request: Request) => {
    const body = request.method === "POST" ? await readPingBody(request) : null;
    return { ok: true as const, ...(await acceptPing(deps.sql, deps.bus, token, what, body)) };
  };
  const ping = (signal: PingSignal) => ({ params, request }: { params: { token: string }; request: Request }) => accept(params.token, signal, request);
  const exited = ({ params, request }: { params: { token: string; exit_status: string }; request: Request }) => accept(params.token, { exitStatus: Number(params.exit_status) }, request);
  const options = (signal: PingSignal) => ({ params: Params, query: AnyQuery, response: { 200: Ack }, detail: detail(WHAT[signal]) });
  const exitOptions = { params: ExitParams, query: AnyQuery, response: { 200: Ack }, detail: detail(EXIT_WHAT) };
  return new Elysia({ prefix: "/heartbeat", detail: { tags: ["monitors"] } })
    .get("/:token", ping("success"), options("success"))
    .post("/:token", ping("success"), { ...options("success"), parse: "none" })
    .get("/:token/start", ping("start"), options("start"))
    .post("/:token/start", ping("start"), { ...options("start"), parse: "none" })
    .get("/:token/fail", ping("fail"), options("fail"))
    .post("/:token/fail", ping("fail"), { ...options("fail"), parse: "none" })
    .get("/:token/:exit_status", exited, exitOptions)
    .post("/:token/:exit_status", exited, { ...exitOptions, parse: "none" });
};
