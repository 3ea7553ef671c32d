import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { publishLiveEvent } from "../../core/events/publish.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";

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
