import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { runChannelContract } from "../contract.ts";
import { type HttpReceiver, sampleEvent, startHttpReceiver, testContext } from "../testing.ts";
import { slack } from "./slack.ts";

const hookPath = "/services/T0000/B0000/abcdefghijklmnopqrstuvwx";

runChannelContract("slack", { makeReceiver: () => startHttpReceiver(), config: (r) => ({ url: `${r.url}${hookPath}` }) });

describe("slack channel", () => {
  let receiver: HttpReceiver;
  const ctx = testContext();
  beforeAll(async () => void (receiver = await startHttpReceiver()));
  afterAll(() => receiver.close());
  const send = (event = sampleEvent()) => slack.send(event, { url: `${receiver.url}${hookPath}` }, ctx);

  it("posts a Block Kit message with the facts, link buttons and a text fallback", async () => {
    await send();
    const req = receiver.last();
    expect(req.method).toBe("POST");
    expect(req.path).toBe(hookPath);
    expect(req.headers.get("content-type")).toBe("application/json");
    expect(req.json()).toEqual({
      text: "🔴 Alert: Checkout API: status is down or timeout in eu-west",
      blocks: [
        { type: "header", text: { type: "plain_text", text: "🔴 Alert: Checkout API", emoji: true } },
        { type: "section", text: { type: "mrkdwn", text: "status is down or timeout in eu-west" } },
        {
          type: "section",
          fields: [
            { type: "mrkdwn", text: "*Status*\nDOWN" },
            { type: "mrkdwn", text: "*Rule*\nCheckout API down" },
            { type: "mrkdwn", text: "*Region*\neu-west" },
            { type: "mrkdwn", text: "*Target*\nhttps://shop.example/api/health" },
            { type: "mrkdwn", text: "*Response time*\n5012 ms" },
            { type: "mrkdwn", text: "*Error*\nconnect ECONNREFUSED" },
            { type: "mrkdwn", text: "*Started*\n2026-11-22 10:02:30 UTC" },
            { type: "mrkdwn", text: "*Alerting for*\n12m 30s" },
          ],
        },
        {
          type: "actions",
          elements: [
            { type: "button", text: { type: "plain_text", text: "View monitor" }, url: "https://watchpost.example/monitors/mon_42" },
            { type: "button", text: { type: "plain_text", text: "Acknowledge" }, url: "https://watchpost.example/ack?token=t0k" },
          ],
        },
        { type: "context", elements: [{ type: "mrkdwn", text: "Acme · Watchpost" }] },
      ],
    });
  });

  it("says how long the alert lasted on recovery and offers no acknowledge button", async () => {
    await send(sampleEvent("recovery"));
    const { text, blocks } = receiver.last().json();
    expect(text).toBe("✅ Recovered: Checkout API: Cleared: status is down or timeout in eu-west");
    expect(blocks[2].fields).toContainEqual({ type: "mrkdwn", text: "*Was alerting for*\n12m 30s" });
    expect(blocks[3].elements.map((e: { text: { text: string } }) => e.text.text)).toEqual(["View monitor"]);
  });

  it("escapes Slack control characters so a monitor name cannot ping the channel", async () => {
    await send(sampleEvent("alert", { condition: "<!channel> & friends" }));
    expect(receiver.last().json().blocks[1].text.text).toBe("&lt;!channel&gt; &amp; friends in eu-west");
  });

  it("keeps the webhook URL, which is the credential, out of error messages", async () => {
    receiver.failNext("permanent");
    const err = await send().catch((e: Error) => e);
    expect(String(err)).toContain(`Slack webhook (127.0.0.1:${new URL(receiver.url).port}) answered HTTP 400`);
    expect(String(err)).not.toContain(hookPath);
  });
});
