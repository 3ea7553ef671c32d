import { clip, renderEvent } from "../format.ts";
import { parseJson, postJson } from "../http.ts";
import type { AlertEvent, BoundTemplate, Channel } from "../types.ts";
import { type OpsgenieConfig, opsgenieSpec } from "./opsgenie-schema.ts";

export { type OpsgenieConfig };

/** Create-alert body; `alias` = dedupKey, so Opsgenie folds reminders and escalations into one alert. Limits from the Alert API. */
function opsgenieCreateBody(event: AlertEvent, config: OpsgenieConfig, template?: BoundTemplate) {
  const r = renderEvent(event);
  const description = [r.headline, "", ...r.facts.map((f) => `${f.name}: ${f.value}`), "", ...r.links.map((l) => `${l.text}: ${l.url}`)];
  return {
    message: clip(template?.render("title", "plain") ?? r.title, 130),
    alias: event.dedupKey,
    description: clip(template?.render("body", "plain") ?? description.join("\n"), 15000),
    entity: clip(event.monitor.name, 512),
    source: "Watchpost",
    ...(event.kind === "test" ? { priority: "P5" } : config.priority ? { priority: config.priority } : {}),
    tags: ["watchpost", event.kind, ...(config.tags ?? [])],
    details: {
      rule: event.rule.name,
      region: event.regionName,
      status: event.status,
      condition: event.condition,
      organisation: event.org.name,
      ...(event.monitor.target ? { target: event.monitor.target } : {}),
      ...(event.links.monitor ? { monitor_url: event.links.monitor } : {}),
    },
  };
}

export const opsgenie: Channel<OpsgenieConfig> = {
  type: "opsgenie",
  configSchema: opsgenieSpec.config,
  secretFields: opsgenieSpec.secretFields,
  async send(event, config, ctx, template) {
    const base = `${ctx.endpoints.opsgenie[config.region ?? "us"]}/v2/alerts`;
    const headers = { authorization: `GenieKey ${config.api_key}` };
    const note = { source: "Watchpost", user: "Watchpost", note: renderEvent(event).headline };
    const alias = encodeURIComponent(event.dedupKey);
    const res =
      event.kind === "recovery"
        ? await postJson(ctx, "Opsgenie close alert", `${base}/${alias}/close?identifierType=alias`, note, headers)
        : event.kind === "acknowledgement"
          ? await postJson(ctx, "Opsgenie acknowledge alert", `${base}/${alias}/acknowledge?identifierType=alias`, note, headers)
          : await postJson(ctx, "Opsgenie create alert", base, opsgenieCreateBody(event, config, template), headers);
    // Opsgenie processes requests asynchronously; the requestId is how its support finds one.
    return { status: res.status, providerId: (parseJson(res.text) as { requestId?: string } | undefined)?.requestId };
  },
};
