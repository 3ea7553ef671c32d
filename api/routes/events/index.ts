import { Elysia, t } from "elysia";
import type { LiveEvent } from "../../../core/events/types.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../plugins/auth.ts";

const encoder = new TextEncoder();

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
          cleanup = () => {
            clearInterval(keepalive);
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
          "Send `Accept: text/event-stream`. Each message has `id`, `event` and `data`: `event` is one of check.result and monitor.status_changed (ingest), alert.fired, alert.recovered and alert.acknowledged (alerting), incident.created, incident.updated and incident.resolved (incidents); `data` is the LiveEvent JSON object, whose `data` field has the payload of that event (CheckResultEvent, MonitorStatusChangedEvent, AlertEvent, IncidentEvent). Only the caller's organisation's events are sent. A comment line (`: keepalive <ms>`) every SSE_KEEPALIVE_SECONDS (default 15) keeps proxies from closing the stream. Reconnect with `Last-Event-ID` (EventSource does this itself) to replay what you missed, from any API process, for up to five minutes or 2,000 events of your organisation. A stream ends when its API process shuts down; reconnect.",
        responses: {
          200: {
            description: "An event stream",
            content: { "text/event-stream": { schema: { $ref: "#/components/schemas/LiveEvent" } } },
          },
        },
      },
    },
  );
