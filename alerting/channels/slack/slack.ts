import { clip, renderEvent } from "../format.ts";
import { postJson } from "../http.ts";
import type { AlertEvent, BoundTemplate, Channel } from "../types.ts";
import { type SlackConfig, slackSpec } from "./slack-schema.ts";

export { type SlackConfig };

/** Slack mrkdwn treats &, < and > as control characters. */
const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Block Kit message; `text` is the fallback Slack shows in notifications. Limits from Slack's Block Kit reference. */
function slackPayload(event: AlertEvent, template?: BoundTemplate) {
  const r = renderEvent(event);
  const title = template?.render("title", "plain") ?? r.title;
  // A template's body (values escaped for mrkdwn) replaces the headline and the facts.
  const body = template?.render("body", "slack");
  return {
    text: clip(body === undefined ? r.summary : title, 3000),
    blocks: [
      { type: "header", text: { type: "plain_text", text: clip(title, 150), emoji: true } },
      ...(body !== undefined
        ? [{ type: "section", text: { type: "mrkdwn", text: clip(body, 3000) } }]
        : [
            { type: "section", text: { type: "mrkdwn", text: clip(esc(r.headline), 3000) } },
            { type: "section", fields: r.facts.slice(0, 10).map((f) => ({ type: "mrkdwn", text: `*${f.name}*\n${esc(clip(f.value, 1900))}` })) },
          ]),
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
  async send(event, config, ctx, template) {
    const res = await postJson(ctx, "Slack webhook", config.url, slackPayload(event, template));
    return { status: res.status };
  },
};
