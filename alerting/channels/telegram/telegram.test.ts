import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { runChannelContract } from "../contract.ts";
import { validateChannelConfig } from "../registry.ts";
import { type HttpReceiver, sampleEvent, startHttpReceiver, testContext } from "../testing.ts";
import { telegram } from "./telegram.ts";

const token = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
const telegramOk = () => Response.json({ ok: true, result: { message_id: 77, chat: { id: -100123 } } });
const startTelegram = () => startHttpReceiver({ ok: telegramOk, endpoints: (url) => ({ telegram: `${url}/tg` }) });

runChannelContract("telegram", { makeReceiver: startTelegram, config: () => ({ bot_token: token, chat_id: -100123 }) });

describe("telegram channel", () => {
  let receiver: HttpReceiver;
  beforeAll(async () => void (receiver = await startTelegram()));
  afterAll(() => receiver.close());
  const send = (event = sampleEvent(), chat_id: number | string = "-100123") => telegram.send(event, { bot_token: token, chat_id }, testContext(receiver.ctx));

  it("calls sendMessage for the bot with an HTML message and keeps the message id", async () => {
    expect(await send()).toEqual({ status: 200, providerId: "77" });
    const req = receiver.last();
    expect(req.path).toBe(`/tg/bot${token}/sendMessage`);
    expect(req.json()).toEqual({
      chat_id: "-100123",
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
      text: [
        "<b>🔴 Alert: Checkout API</b>",
        "status is down or timeout in eu-west",
        "",
        "<b>Status:</b> DOWN",
        "<b>Rule:</b> Checkout API down",
        "<b>Region:</b> eu-west",
        "<b>Target:</b> https://shop.example/api/health",
        "<b>Response time:</b> 5012 ms",
        "<b>Error:</b> connect ECONNREFUSED",
        "<b>Started:</b> 2026-11-22 10:02:30 UTC",
        "<b>Alerting for:</b> 12m 30s",
        "",
        '<a href="https://watchpost.example/monitors/mon_42">View monitor</a> · <a href="https://watchpost.example/ack?token=t0k">Acknowledge</a>',
      ].join("\n"),
    });
  });

  it("escapes HTML in user text so Telegram cannot reject the message as malformed", async () => {
    await send(sampleEvent("alert", { condition: "body lacks <title> & more" }));
    expect(receiver.last().json().text.split("\n")[1]).toBe("body lacks &lt;title&gt; &amp; more in eu-west");
  });

  it("posts into a forum topic when message_thread_id is set", async () => {
    await telegram.send(sampleEvent(), { bot_token: token, chat_id: "@watchpost_ops", message_thread_id: 12 }, testContext(receiver.ctx));
    expect(receiver.last().json()).toMatchObject({ chat_id: "@watchpost_ops", message_thread_id: 12 });
  });

  it("treats 'chat not found' as permanent and never puts the bot token in the error", async () => {
    receiver.respondNext(() => Response.json({ ok: false, error_code: 400, description: "Bad Request: chat not found" }, { status: 400 }));
    const err = await send().catch((e) => e);
    expect(err).toMatchObject({ permanent: true, status: 400 });
    expect(err.message).toContain("Bad Request: chat not found");
    expect(err.message).not.toContain(token.split(":")[1]);
  });

  it("retries a 429 after the retry_after Telegram puts in the body", async () => {
    const body = { ok: false, error_code: 429, description: "Too Many Requests: retry after 7", parameters: { retry_after: 7 } };
    receiver.respondNext(() => Response.json(body, { status: 429 }));
    expect(await send().catch((e) => e)).toMatchObject({ permanent: false, status: 429, retryAfterMs: 7000 });
  });

  it("rejects a token that is not <bot id>:<secret>, saying what a token looks like", () => {
    expect(validateChannelConfig("telegram", { bot_token: "not-a-token", chat_id: 1 })).toEqual([
      { path: "/bot_token", message: expect.stringContaining("Bot token from @BotFather, <id>:<secret>") },
    ]);
  });
});
