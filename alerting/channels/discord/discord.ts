import { clip, renderEvent } from "../format.ts";
import { parseJson, postJson } from "../http.ts";
import type { AlertEvent, BoundTemplate, Channel } from "../types.ts";
import { type DiscordConfig, discordSpec } from "./discord-schema.ts";

export { type DiscordConfig };

/**
 * One embed coloured by kind. Webhook messages cannot carry buttons, so links go in the description.
 * Cuts keep the embed under Discord's 6000-character total, past which it answers 400.
 */
function discordPayload(event: AlertEvent, template?: BoundTemplate) {
  const r = renderEvent(event);
  const links = r.links.map((l) => `[${l.text}](${l.url})`).join(" · ");
  // A template's body (values escaped for Markdown) replaces the headline, the links and the fields.
  const body = template?.render("body", "markdown");
  return {
    username: "Watchpost",
    // Monitor names and errors are user text: never let them ping @everyone or a role.
    allowed_mentions: { parse: [] },
    embeds: [
      {
        title: clip(template?.render("title", "markdown") ?? r.title, 256),
        description: body !== undefined ? clip(body, 4000) : clip(links ? `${r.headline}\n\n${links}` : r.headline, 1500),
        ...(event.links.monitor ? { url: event.links.monitor } : {}),
        color: r.color,
        fields: (body !== undefined ? [] : r.facts).map((f) => {
          const long = f.name === "Target" || f.name === "Error";
          return { name: f.name, value: clip(f.value, long ? 1024 : 256), inline: !long };
        }),
        timestamp: event.occurredAt,
        footer: { text: clip(`${event.org.name} · Watchpost`, 2048) },
      },
    ],
  };
}

export const discord: Channel<DiscordConfig> = {
  type: "discord",
  configSchema: discordSpec.config,
  secretFields: discordSpec.secretFields,
  validate: discordSpec.validate,
  async send(event, config, ctx, template) {
    // wait=true makes Discord answer with the created message, whose id goes into alert history.
    const url = new URL(config.url);
    url.searchParams.set("wait", "true");
    const res = await postJson(ctx, "Discord webhook", url.href, discordPayload(event, template));
    const id = (parseJson(res.text) as { id?: string } | undefined)?.id;
    return { status: res.status, providerId: id };
  },
};
