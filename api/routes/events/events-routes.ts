import { Elysia, t } from "elysia";
import type { LiveEvent } from "../../../schemas/events/live-event-types.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { resolveIdentity } from "../../edge/identity.ts";
import { can } from "../../../domain/access/identity.ts";
import { AppError } from "../../../core/errors.ts";

const encoder = new TextEncoder();

/** Whether the credential that opened a stream may still read this organisation's monitors. */
async function stillAllowed(deps: ApiDeps, request: Request, orgId: string): Promise<boolean> {
  try {
    const identity = await resolveIdentity(deps.sql, request, deps.identityCache);
    if (!identity || identity.orgId !== orgId) return false;
    if (identity.kind === "session" && identity.orgRequires2fa && !identity.totpEnabled) return false;
    return can(identity, "monitors:read");
  } catch (err) {
    // Refused (e.g. X-Org-Id of an organisation the user left): end it; the database unreachable: keep it.
    return !(err instanceof AppError);
  }
}

const frame = (e: LiveEvent) => encoder.encode(`id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);

/**
 * `GET /events`: Server-Sent Events of the caller's organisation. Every API process subscribes
 * to `events.*` on the bus, so the stream works behind any number of API processes.
 */
export const eventRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/events", detail: { tags: ["events"] } }).use(authPlugin).get(
    "",
    ({ actor, request }) => {
      const orgId = actor.orgId;
      const lastEventId = request.headers.get("last-event-id");
      let cleanup = () => {};
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          const send = (chunk: Uint8Array) => {
            try {
              controller.enqueue(chunk);
            } catch {
              cleanup();
            }
          };
          send(encoder.encode(`retry: 3000\n: connected\n\n`));
          if (lastEventId) for (const e of deps.events.since(orgId, lastEventId)) send(frame(e));
          const end = () => {
            cleanup();
            try {
              controller.close();
            } catch {}
          };
          // The hub ends the stream when the process shuts down; the client reconnects (to another instance).
          const unsubscribe = deps.events.subscribe(orgId, (e) => send(frame(e)), end);
          const keepalive = setInterval(() => send(encoder.encode(`: keepalive ${Date.now()}\n\n`)), deps.events.keepaliveMs);
          // A stream outlives the request that opened it: when the caller's credential is revoked (or its
          // role, membership or 2FA standing changes) the database notifies every API process, and the
          // stream ends once the caller may no longer read monitors; every keepalive re-checks as well.
          let pending: ReturnType<typeof setTimeout> | null = null;
          const recheck = () => {
            pending ??= setTimeout(
              () =>
                void stillAllowed(deps, request, orgId).then((ok) => {
                  pending = null;
                  if (!ok) end();
                }),
              Math.floor(Math.random() * 200),
            );
          };
          const unwatch = deps.identityCache.onInvalidated(recheck);
          const recheckTimer = setInterval(recheck, deps.events.keepaliveMs);
          cleanup = () => {
            clearInterval(keepalive);
            clearInterval(recheckTimer);
            if (pending) clearTimeout(pending);
            unwatch();
            unsubscribe();
          };
          request.signal.addEventListener("abort", end);
        },
        cancel() {
          cleanup();
        },
      });
      return new Response(stream, {
        headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform", connection: "keep-alive", "x-accel-buffering": "no" },
      });
    },
    {
      requires: "monitors:read",
      headers: t.Object({ accept: t.Optional(t.String()), "last-event-id": t.Optional(t.String({ maxLength: 64 })) }),
      detail: {
        summary: "Live events of your organisation (Server-Sent Events)",
        description:
          "Send `Accept: text/event-stream`. Each message has `id`, `event` and `data`: `event` is one of check.result and monitor.status_changed (ingest), alert.fired, alert.recovered and alert.acknowledged (alerting), incident.created, incident.updated and incident.resolved (incidents); `data` is the LiveEvent JSON object, whose `data` field has the payload of that event (CheckResultEvent, MonitorStatusChangedEvent, AlertEvent, IncidentEvent). Only the caller's organisation's events are sent. A comment line (`: keepalive <ms>`) every SSE_KEEPALIVE_SECONDS (default 15) keeps proxies from closing the stream. Reconnect with `Last-Event-ID` (EventSource does this itself) to replay what you missed, from any API process, for up to five minutes or 2,000 events of your organisation. A stream ends when its API process shuts down (reconnect), and at once when its credential is revoked or no longer grants monitors:read in this organisation.",
        responses: {
          200: {
            description: "An event stream",
            content: { "text/event-stream": { schema: { $ref: "#/components/schemas/LiveEvent" } } },
          },
        },
      },
    },
  );
