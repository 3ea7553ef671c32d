import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { EventSource } from "eventsource";
import { publishLiveEvent } from "../../domain/events/publish-live-event.ts";
import type { LiveEventType } from "../../schemas/events/live-event-types.ts";
import { client, makeOrg, signUp, startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.stop());

/** A minimal SSE client: reads frames from a real streaming response. */
async function openStream(key: string, lastEventId?: string) {
  const controller = new AbortController();
  const res = await fetch(`${api.url}/api/v1/events`, {
    headers: { authorization: `Bearer ${key}`, accept: "text/event-stream", ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
    signal: controller.signal,
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const events: { id: string; event: string; data: any }[] = [];
  const pump = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const raw = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = Object.fromEntries(raw.split("\n").filter((l) => !l.startsWith(":")).map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()]));
          if (fields.event) events.push({ id: fields.id, event: fields.event, data: JSON.parse(fields.data) });
        }
      }
    } catch {}
  })();
  return {
    res,
    events,
    /** Resolves when the server ends the stream (or close() aborts it). */
    done: pump,
    async waitFor(n: number, ms = 3000) {
      const deadline = Date.now() + ms;
      while (events.length < n && Date.now() < deadline) await Bun.sleep(20);
      return events;
    },
    close() {
      controller.abort();
      return pump;
    },
  };
}

describe("GET /events", () => {
  it("streams only the caller's organisation's events and resumes after Last-Event-ID", async () => {
    const a = await makeOrg(api.sql);
    const b = await makeOrg(api.sql);
    const streamA = await openStream(a.api_key);
    expect(streamA.res.status).toBe(200);
    expect(streamA.res.headers.get("content-type")).toContain("text/event-stream");
    await Bun.sleep(50);
    publishLiveEvent(api.bus, b.org_id, "check.result", { monitor_id: "mon_b" });
    const first = publishLiveEvent(api.bus, a.org_id, "check.result", { monitor_id: "mon_a1" });
    publishLiveEvent(api.bus, a.org_id, "monitor.status_changed", { monitor_id: "mon_a1", from: "up", to: "down" });
    const got = await streamA.waitFor(2);
    expect(got.map((e) => [e.event, e.data.data.monitor_id])).toEqual([
      ["check.result", "mon_a1"],
      ["monitor.status_changed", "mon_a1"],
    ]);
    await streamA.close();

    const resumed = await openStream(a.api_key, first.id);
    const replay = await resumed.waitFor(1);
    expect(replay.map((e) => e.event)).toEqual(["monitor.status_changed"]);
    await resumed.close();
  });

  it("needs the monitors:read scope", async () => {
    const a = await makeOrg(api.sql);
    const key = await client(api.url, { key: a.api_key })("POST", "/api/v1/api-keys", { name: "runners only", scopes: ["runners:read"] });
    const res = await fetch(`${api.url}/api/v1/events`, { headers: { authorization: `Bearer ${key.body.key}`, accept: "text/event-stream" } });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe("PERMISSION_DENIED");
  });
});

describe("GET /events after the credential changes", () => {
  it("ends a stream once its key is revoked, and keeps the streams of other keys", async () => {
    const o = await makeOrg(api.sql);
    const admin = client(api.url, { key: o.api_key });
    const reader = (await admin("POST", "/api/v1/api-keys", { name: "dashboard tv", scopes: ["monitors:read"] })).body;
    const doomed = await openStream(reader.key);
    const kept = await openStream(o.api_key);
    await Bun.sleep(100);
    let ended = false;
    void doomed.done.then(() => (ended = true));
    expect((await admin("DELETE", `/api/v1/api-keys/${reader.id}`)).status).toBe(204);
    const deadline = Date.now() + 3000;
    while (!ended && Date.now() < deadline) await Bun.sleep(20);
    expect(ended).toBe(true);
    publishLiveEvent(api.bus, o.org_id, "check.result", { monitor_id: "mon_after" });
    expect((await kept.waitFor(1)).map((e) => e.data.data.monitor_id)).toEqual(["mon_after"]);
    expect(doomed.events).toEqual([]);
    await kept.close();
  });

  it("ends a member's session stream when they are removed from the organisation", async () => {
    const o = await makeOrg(api.sql, "pro");
    const admin = client(api.url, { key: o.api_key });
    const viewer = await signUp(api.url);
    const inv = (await admin("POST", "/api/v1/org/invitations", { email: viewer.email, role_id: "viewer" })).body;
    expect((await viewer.call("POST", "/api/v1/invitations/accept", { token: inv.token })).status).toBe(200);
    const res = await fetch(`${api.url}/api/v1/events`, { headers: { cookie: viewer.cookie, accept: "text/event-stream", "x-org-id": o.org_id } });
    expect(res.status).toBe(200);
    const body = new Response(res.body).text();
    await Bun.sleep(100);
    expect((await admin("DELETE", `/api/v1/org/members/${viewer.userId}`)).status).toBe(204);
    expect(await Promise.race([body.then(() => "ended"), Bun.sleep(3000).then(() => "still open")])).toBe("ended");
  });
});

describe("GET /events across API processes", () => {
  it("reaches a client of one API instance when another instance's process publishes, through NATS", async () => {
    const { connectNatsBus } = await import("../../core/bus/index.ts");
    const prefix = `t${Date.now().toString(36)}sse`;
    const busA = await connectNatsBus({ url: "nats://127.0.0.1:4222", prefix });
    const busB = await connectNatsBus({ url: "nats://127.0.0.1:4222", prefix });
    const apiA = await startTestApi({}, api.db, busA);
    const apiB = await startTestApi({}, api.db, busB);
    try {
      const o = await makeOrg(api.sql);
      const res = await fetch(`${apiA.url}/api/v1/events`, { headers: { authorization: `Bearer ${o.api_key}`, accept: "text/event-stream" } });
      const reader = res.body!.getReader();
      await Bun.sleep(100);
      publishLiveEvent(apiB.bus, o.org_id, "check.result", { monitor_id: "mon_x" });
      let text = "";
      const deadline = Date.now() + 3000;
      while (!text.includes("event: check.result") && Date.now() < deadline) text += new TextDecoder().decode((await reader.read()).value);
      expect(text).toContain("event: check.result");
      expect(text).toContain("mon_x");
      await reader.cancel();
    } finally {
      await apiA.stop();
      await apiB.stop();
      await busA.close();
      await busB.close();
    }
  });
});

describe("GET /events with a standard EventSource client", () => {
  it("delivers named events with ids, and resumes with Last-Event-ID on another API process after the first shuts down", async () => {
    const { connectNatsBus } = await import("../../core/bus/index.ts");
    const prefix = `t${Date.now().toString(36)}es`;
    const busA = await connectNatsBus({ url: "nats://127.0.0.1:4222", prefix });
    const busB = await connectNatsBus({ url: "nats://127.0.0.1:4222", prefix });
    const publisher = await connectNatsBus({ url: "nats://127.0.0.1:4222", prefix });
    const apiA = await startTestApi({}, api.db, busA);
    const apiB = await startTestApi({}, api.db, busB);
    const o = await makeOrg(api.sql);
    const other = await makeOrg(api.sql);
    // A load balancer in miniature: the first connection goes to A, every reconnection to B.
    const lastEventIds: (string | null)[] = [];
    let connections = 0;
    const es = new EventSource(`${apiA.url}/api/v1/events`, {
      fetch: (url, init) => {
        lastEventIds.push(new Headers(init.headers).get("last-event-id"));
        const target = connections++ === 0 ? apiA.url : apiB.url;
        return fetch(String(url).replace(apiA.url, target), { ...init, headers: { ...init.headers, authorization: `Bearer ${o.api_key}` } });
      },
    });
    const got: { type: string; id: string; monitor: string }[] = [];
    const seen = (e: MessageEvent) => got.push({ type: e.type, id: e.lastEventId, monitor: JSON.parse(e.data).data.monitor_id });
    es.addEventListener("check.result", seen);
    es.addEventListener("monitor.status_changed", seen);
    try {
      await new Promise<void>((resolve, reject) => {
        es.onopen = () => resolve();
        es.onerror = (e) => reject(new Error(`EventSource error: ${e.message}`));
      });
      es.onerror = null;
      await Bun.sleep(100);
      publishLiveEvent(publisher, other.org_id, "check.result", { monitor_id: "mon_other" });
      const first = publishLiveEvent(publisher, o.org_id, "check.result", { monitor_id: "mon_1" });
      await until(() => got.length >= 1);
      expect(got).toEqual([{ type: "check.result", id: first.id, monitor: "mon_1" }]);

      // A shuts down: its stream ends at once, and what is published meanwhile waits in B's buffer.
      const stopping = apiA.stop();
      publishLiveEvent(publisher, o.org_id, "monitor.status_changed", { monitor_id: "mon_2", from: "up", to: "down" });
      publishLiveEvent(publisher, other.org_id, "check.result", { monitor_id: "mon_other" });
      await stopping;
      await until(() => got.length >= 2, 10_000);
      expect(got.map((e) => [e.type, e.monitor])).toEqual([
        ["check.result", "mon_1"],
        ["monitor.status_changed", "mon_2"],
      ]);
      expect(lastEventIds).toEqual([null, first.id]);
    } finally {
      es.close();
      await apiB.stop();
      await Promise.all([busA.close(), busB.close(), publisher.close()]);
    }
  }, 20_000);

  it("sends keepalive comment lines at the configured interval", async () => {
    const keepalive = await startTestApi({ SSE_KEEPALIVE_SECONDS: "1" }, api.db);
    try {
      const o = await makeOrg(api.sql);
      const res = await fetch(`${keepalive.url}/api/v1/events`, { headers: { authorization: `Bearer ${o.api_key}`, accept: "text/event-stream" } });
      const reader = res.body!.getReader();
      const started = Date.now();
      let text = "";
      while ((text.match(/^: keepalive \d+$/gm) ?? []).length < 2 && Date.now() - started < 5000) text += new TextDecoder().decode((await reader.read()).value);
      expect((text.match(/^: keepalive \d+$/gm) ?? []).length).toBe(2);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
      await reader.cancel();
    } finally {
      await keepalive.stop();
    }
  });
});

describe("the live-event schemas in the OpenAPI document", () => {
  it("give every event name a payload schema and type the stream's answer as LiveEvent", async () => {
    const doc = await fetch(`${api.url}/openapi.json`).then((r) => r.json());
    const live = doc.components.schemas.LiveEvent;
    const names: LiveEventType[] = ["check.result", "monitor.status_changed", "alert.fired", "alert.recovered", "alert.acknowledged", "incident.created", "incident.updated", "incident.resolved"];
    expect(Object.keys(live.discriminator.mapping).sort()).toEqual([...names].sort());
    for (const ref of Object.values(live.discriminator.mapping) as string[]) expect(doc.components.schemas[ref.split("/").pop()!].properties.data).toBeDefined();
    expect(doc.paths["/api/v1/events"].get.responses["200"].content["text/event-stream"].schema.$ref).toBe("#/components/schemas/LiveEvent");
  });
});

async function until(check: () => boolean, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(20);
  }
}
