import { renderEvent } from "../format.ts";
import { postJson } from "../http.ts";
import type { AlertEvent, AlertEventKind, BoundTemplate, Channel } from "../types.ts";
import { type TeamsConfig, teamsSpec } from "./teams-schema.ts";

export { type TeamsConfig };

const titleColor: Record<AlertEventKind, string> = {
  alert: "Attention",
  escalation: "Attention",
  reminder: "Warning",
  recovery: "Good",
  acknowledgement: "Accent",
  test: "Default",
};

/** A message with one Adaptive Card 1.4 attachment: the shape both Workflows and legacy webhooks accept. */
function teamsPayload(event: AlertEvent, template?: BoundTemplate) {
  const r = renderEvent(event);
  // A template's body (values escaped for Markdown) replaces the headline and the facts.
  const body = template?.render("body", "markdown");
  const color = event.kind === "alert" && event.status === "degraded" ? "Warning" : titleColor[event.kind];
  return {
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
            { type: "TextBlock", text: template?.render("title", "markdown") ?? r.title, weight: "Bolder", size: "Medium", color, wrap: true },
            ...(body !== undefined
              ? [{ type: "TextBlock", text: body, spacing: "None", wrap: true }]
              : [
                  { type: "TextBlock", text: r.headline, spacing: "None", wrap: true },
                  { type: "FactSet", facts: r.facts.map((f) => ({ title: f.name, value: f.value })) },
                ]),
            { type: "TextBlock", text: `${event.org.name} · Watchpost`, size: "Small", isSubtle: true, wrap: true },
          ],
          actions: r.links.map((l) => ({ type: "Action.OpenUrl", title: l.text, url: l.url })),
        },
      },
    ],
  };
}

export const teams: Channel<TeamsConfig> = {
  type: "teams",
  configSchema: teamsSpec.config,
  secretFields: teamsSpec.secretFields,
  validate: teamsSpec.validate,
  async send(event, config, ctx, template) {
    const res = await postJson(ctx, "Teams webhook", config.url, teamsPayload(event, template));
    return { status: res.status };
  },
};
