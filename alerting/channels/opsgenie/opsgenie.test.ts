import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { runChannelContract } from "../contract.ts";
import { type HttpReceiver, sampleEvent, startHttpReceiver, testContext } from "../testing.ts";
import { opsgenie } from "./opsgenie.ts";

const api_key = "eb243592-faa2-4ba2-a551q-1afdf565c889";
const accepted = () => Response.json({ result: "Request will be processed", took: 0.2, requestId: "43a29c5c-3dbf-4fa4" }, { status: 202 });
const startOpsgenie = () => startHttpReceiver({ ok: accepted, endpoints: (url) => ({ opsgenie: { us: `${url}/us`, eu: `${url}/eu` } }) });
const alias = encodeURIComponent("rule_7:mon_42:eu-west:3");

runChannelContract("opsgenie", { makeReceiver: startOpsgenie, config: () => ({ api_key, region: "eu" }) });

describe("opsgenie channel", () => {
  let receiver: HttpReceiver;
  beforeAll(async () => void (receiver = await startOpsgenie()));
  afterAll(() => receiver.close());
  const send = (event = sampleEvent(), extra: { priority?: "P1"; tags?: string[] } = {}) =>
    opsgenie.send(event, { api_key, ...extra }, testContext(receiver.ctx));

  it("creates an alert aliased by the dedup key, authenticated with the GenieKey", async () => {
    expect(await send(sampleEvent(), { priority: "P1", tags: ["checkout"] })).toEqual({ status: 202, providerId: "43a29c5c-3dbf-4fa4" });
    const req = receiver.last();
    expect(req.path).toBe("/us/v2/alerts");
    expect(req.headers.get("authorization")).toBe(`GenieKey ${api_key}`);
    expect(req.json()).toEqual({
      message: "🔴 Alert: Checkout API",
      alias: "rule_7:mon_42:eu-west:3",
      description: [
        "status is down or timeout in eu-west",
        "",
        "Status: DOWN",
        "Rule: Checkout API down",
        "Region: eu-west",
        "Target: https://shop.example/api/health",
        "Response time: 5012 ms",
        "Error: connect ECONNREFUSED",
        "Started: 2026-11-22 10:02:30 UTC",
        "Alerting for: 12m 30s",
        "",
        "View monitor: https://watchpost.example/monitors/mon_42",
        "Acknowledge: https://watchpost.example/ack?token=t0k",
      ].join("\n"),
      entity: "Checkout API",
      source: "Watchpost",
      priority: "P1",
      tags: ["watchpost", "alert", "checkout"],
      details: {
        rule: "Checkout API down",
        region: "eu-west",
        status: "down",
        condition: "status is down or timeout",
        organisation: "Acme",
        target: "https://shop.example/api/health",
        monitor_url: "https://watchpost.example/monitors/mon_42",
      },
    });
  });

  it("closes the alert by alias on recovery", async () => {
    await send(sampleEvent("recovery"));
    expect(receiver.last().path).toBe(`/us/v2/alerts/${alias}/close?identifierType=alias`);
    expect(receiver.last().json()).toEqual({ source: "Watchpost", user: "Watchpost", note: "Cleared: status is down or timeout in eu-west" });
  });

  it("acknowledges the alert by alias on acknowledgement", async () => {
    await send(sampleEvent("acknowledgement"));
    expect(receiver.last().path).toBe(`/us/v2/alerts/${alias}/acknowledge?identifierType=alias`);
  });

  it("folds escalations and reminders into the same alert and sends tests at P5", async () => {
    for (const kind of ["escalation", "reminder"] as const) {
      await send(sampleEvent(kind));
      expect(receiver.last()).toMatchObject({ path: "/us/v2/alerts" });
      expect(receiver.last().json().alias).toBe("rule_7:mon_42:eu-west:3");
    }
    await send(sampleEvent("test"), { priority: "P1" });
    expect(receiver.last().json().priority).toBe("P5");
  });

  it("uses the EU instance when the region is eu", async () => {
    await opsgenie.send(sampleEvent(), { api_key, region: "eu" }, testContext(receiver.ctx));
    expect(receiver.last().path).toBe("/eu/v2/alerts");
  });

  it("treats a rejected key as permanent and keeps the key out of the error", async () => {
    receiver.respondNext(() => Response.json({ message: "Key format is not valid!", took: 0.001, requestId: "x" }, { status: 422 }));
    const err = await send().catch((e) => e);
    expect(err).toMatchObject({ permanent: true, status: 422 });
    expect(err.message).toContain("Key format is not valid!");
    expect(err.message).not.toContain(api_key);
  });
});
