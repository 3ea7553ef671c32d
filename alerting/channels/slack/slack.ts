import { clip, renderEvent } from "../format.ts";
import { postJson } from "../http.ts";
import type { AlertEvent, Channel } from "../types.ts";
import { type SlackConfig, slackSpec } from "./slack-schema.ts";

export { type SlackConfig };

/** Slack mrkdwn treats &, < and > as control characters. */
const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Block Kit message; `text` is the fallback Slack shows in notifications. Limits from Slack's Block Kit reference. */
function slackPayload(event: AlertEvent) {
  const r = renderEvent(event);
  return {
    text: clip(r.summary, 3000),
    blocks: [
      { type: "header", text: { type: "plain_text", text: clip(r.title, 150), emoji: true } },
      { type: "section", text: { type: "mrkdwn", text: clip(esc(r.headline), 3000) } },
      { type: "section", fields: r.facts.slice(0, 10).map((f) => ({ type: "mrkdwn", text: `*${f.name}*\n${esc(clip(f.value, 1900))}` })) },
      ...(r.links.length
        ? [{ type: "actions", elements: r.links.map((l) => ({ type: "button", text: { type: "plain_text", text: l.text }, url: l.url })) }]
        : []),
      { type: "context", elements: [{ type: "mrkdwn", text: esc(`${event.org.name} · Watchpost`) }] },
    ],
  };
}

export const slack: Channel<SlackConfig> = {
  type: "slack",
  configSchema: slackSpec.config,
  secretFields: slackSpec.secretFields,
  validate: slackSpec.validate,
  async send(event, config, ctx) {
    const res = await postJson(ctx, "Slack webhook", config.url, slackPayload(event));
    return { status: res.status };
  },
};
