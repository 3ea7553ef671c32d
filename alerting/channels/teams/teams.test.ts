import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { runChannelContract } from "../contract.ts";
import { type HttpReceiver, sampleEvent, startHttpReceiver, testContext } from "../testing.ts";
import { teams } from "./teams.ts";

const flowPath = "/workflows/abc123/triggers/manual/paths/invoke?api-version=1&sig=s3cr3t-signature";
// Power Automate answers 202 Accepted with an empty body.
const accepted = () => new Response(null, { status: 202 });

runChannelContract("teams", { makeReceiver: () => startHttpReceiver({ ok: accepted }), config: (r) => ({ url: `${r.url}${flowPath}` }) });

describe("teams channel", () => {
  let receiver: HttpReceiver;
  const ctx = testContext();
  beforeAll(async () => void (receiver = await startHttpReceiver({ ok: accepted })));
  afterAll(() => receiver.close());
  const send = (event = sampleEvent()) => teams.send(event, { url: `${receiver.url}${flowPath}` }, ctx);

  it("posts a message with one Adaptive Card holding the facts and link actions", async () => {
    expect(await send()).toEqual({ status: 202 });
    expect(receiver.last().path).toBe(flowPath);
    expect(receiver.last().json()).toEqual({
      type: "message",
      attachments: [
        {
          contentType: "application/vnd.microsoft.card.adaptive",
          contentUrl: null,
          content: {
            $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
            type: "AdaptiveCard",
            version: "1.4",
            msteams: { width: "Full" },
            body: [
              { type: "TextBlock", text: "🔴 Alert: Checkout API", weight: "Bolder", size: "Medium", color: "Attention", wrap: true },
              { type: "TextBlock", text: "status is down or timeout in eu-west", spacing: "None", wrap: true },
              {
                type: "FactSet",
                facts: [
                  { title: "Status", value: "DOWN" },
                  { title: "Rule", value: "Checkout API down" },
                  { title: "Region", value: "eu-west" },
                  { title: "Target", value: "https://shop.example/api/health" },
                  { title: "Response time", value: "5012 ms" },
                  { title: "Error", value: "connect ECONNREFUSED" },
                  { title: "Started", value: "2026-11-22 10:02:30 UTC" },
                  { title: "Alerting for", value: "12m 30s" },
                ],
              },
              { type: "TextBlock", text: "Acme · Watchpost", size: "Small", isSubtle: true, wrap: true },
            ],
            actions: [
              { type: "Action.OpenUrl", title: "View monitor", url: "https://watchpost.example/monitors/mon_42" },
              { type: "Action.OpenUrl", title: "Acknowledge", url: "https://watchpost.example/ack?token=t0k" },
            ],
          },
        },
      ],
    });
  });

  it("colours the title good on recovery and warning for a degraded alert", async () => {
    const titleColour = async (event = sampleEvent()) => {
      await send(event);
      return receiver.last().json().attachments[0].content.body[0].color;
    };
    expect(await titleColour(sampleEvent("recovery"))).toBe("Good");
    expect(await titleColour(sampleEvent("alert", { status: "degraded" }))).toBe("Warning");
    expect(await titleColour(sampleEvent("acknowledgement"))).toBe("Accent");
  });

  it("sends a card without actions when the event has no links", async () => {
    await send(sampleEvent("alert", { links: {} }));
    expect(receiver.last().json().attachments[0].content.actions).toEqual([]);
  });

  it("keeps the signed workflow URL out of error messages", async () => {
    receiver.respondNext(() => Response.json({ error: { code: "DirectApiAuthorizationRequired" } }, { status: 401 }));
    const err = await send().catch((e) => e);
    expect(err).toMatchObject({ permanent: true, status: 401 });
    expect(err.message).toContain("DirectApiAuthorizationRequired");
    expect(err.message).not.toContain("s3cr3t");
  });
});
