import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { runChannelContract } from "../contract.ts";
import { type HttpReceiver, sampleEvent, startHttpReceiver, testContext } from "../testing.ts";
import { pagerduty } from "./pagerduty.ts";

const routing_key = "R0UT1NGKEY0123456789abcdefABCDEF";
const accepted = (req: { json(): { dedup_key?: string } }) =>
  Response.json({ status: "success", message: "Event processed", dedup_key: req.json().dedup_key }, { status: 202 });
const startPagerduty = () => startHttpReceiver({ ok: accepted, endpoints: (url) => ({ pagerduty: `${url}/v2/enqueue` }) });

runChannelContract("pagerduty", { makeReceiver: startPagerduty, config: () => ({ routing_key }) });

describe("pagerduty channel", () => {
  let receiver: HttpReceiver;
  beforeAll(async () => void (receiver = await startPagerduty()));
  afterAll(() => receiver.close());
  const send = (event = sampleEvent(), severity?: "warning") =>
    pagerduty.send(event, { routing_key, ...(severity ? { severity } : {}) }, testContext(receiver.ctx));

  it("triggers an incident keyed on the alert's dedup key with the facts as custom details", async () => {
    expect(await send()).toEqual({ status: 202, providerId: "rule_7:mon_42:eu-west:3" });
    const req = receiver.last();
    expect(req.path).toBe("/v2/enqueue");
    expect(req.json()).toEqual({
      routing_key,
      event_action: "trigger",
      dedup_key: "rule_7:mon_42:eu-west:3",
      payload: {
        summary: "🔴 Alert: Checkout API: status is down or timeout in eu-west",
        source: "https://shop.example/api/health",
        severity: "critical",
        timestamp: "2026-11-22T10:15:00.000Z",
        component: "Checkout API",
        group: "eu-west",
        class: "http",
        custom_details: {
          kind: "alert",
          rule: "Checkout API down",
          condition: "status is down or timeout",
          status: "down",
          region: "eu-west",
          organisation: "Acme",
          started_at: "2026-11-22T10:02:30.000Z",
          duration_ms: 5012,
          error: "connect ECONNREFUSED",
        },
      },
      client: "Watchpost",
      client_url: "https://watchpost.example/monitors/mon_42",
      links: [
        { href: "https://watchpost.example/monitors/mon_42", text: "View monitor" },
        { href: "https://watchpost.example/ack?token=t0k", text: "Acknowledge" },
      ],
    });
  });

  it("follows our alert state: escalations and reminders re-trigger, acknowledgement acknowledges, recovery resolves", async () => {
    const actions: Record<string, string> = {};
    for (const kind of ["escalation", "reminder", "acknowledgement", "recovery"] as const) {
      await send(sampleEvent(kind));
      actions[kind] = receiver.last().json().event_action;
      expect(receiver.last().json().dedup_key).toBe("rule_7:mon_42:eu-west:3");
    }
    expect(actions).toEqual({ escalation: "trigger", reminder: "trigger", acknowledgement: "acknowledge", recovery: "resolve" });
  });

  it("sends only the routing key, action and dedup key to acknowledge or resolve", async () => {
    await send(sampleEvent("recovery"));
    expect(receiver.last().json()).toEqual({ routing_key, event_action: "resolve", dedup_key: "rule_7:mon_42:eu-west:3" });
  });

  it("uses the configured severity, warning for degraded, and info for a test", async () => {
    const severity = async (event = sampleEvent(), configured?: "warning") => {
      await send(event, configured);
      return receiver.last().json().payload.severity;
    };
    expect(await severity(sampleEvent(), "warning")).toBe("warning");
    expect(await severity(sampleEvent("alert", { status: "degraded" }))).toBe("warning");
    expect(await severity(sampleEvent("test"))).toBe("info");
  });

  it("treats PagerDuty's 'invalid event' as permanent and a 429 as retryable", async () => {
    receiver.respondNext(() => Response.json({ status: "invalid event", message: "Event object is invalid", errors: ["'routing_key' is invalid"] }, { status: 400 }));
    const invalid = await send().catch((e) => e);
    expect(invalid).toMatchObject({ permanent: true, status: 400 });
    expect(invalid.message).toContain("Event object is invalid");
    receiver.respondNext(() => new Response("", { status: 429 }));
    expect(await send().catch((e) => e)).toMatchObject({ permanent: false, status: 429 });
  });
});
