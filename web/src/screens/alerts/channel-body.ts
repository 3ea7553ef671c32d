import type { TSchema } from "@sinclair/typebox";
import { channelConfigSchemas, channelSpecs, channelTypes, type ChannelType as RegisteredChannelType } from "../../../../schemas/channel-types.ts";
import { FormIssuesError, describeFields, readFields, validate, type FormField } from "../../lib/schema-form";

export type ChannelType = RegisteredChannelType;
export const CHANNEL_TYPES: ChannelType[] = channelTypes;

/** One sentence per channel type (each spec's `help`, schemas/channel-types.ts). */
export const CHANNEL_HELP = Object.fromEntries(channelTypes.map((t) => [t, channelSpecs[t].help])) as Record<ChannelType, string>;

const cache = new Map<ChannelType, FormField[]>();
export function channelFields(type: ChannelType): FormField[] {
  let f = cache.get(type);
  if (!f) cache.set(type, (f = describeFields(channelConfigSchemas[type] as TSchema, "", { to: "Recipients", url: type === "webhook" ? "URL" : "Webhook URL" })));
  return f;
}

const MASK = "••••";
const valueAt = (obj: unknown, path: string[]): unknown => path.reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), obj);

/**
 * Reads the channel form and checks the config with the channel type's own schema. A secret
 * sent back masked (••••1234) keeps the stored value on the server, so it is not judged here.
 */
export function readChannelForm(type: ChannelType, f: FormData): { name: string; type: ChannelType; config: Record<string, unknown> } {
  const issues: { path: string; message: string }[] = [];
  const config = readFields(channelFields(type), f, "config", issues);
  for (const i of issues) i.path = `body.${i.path}`;
  const name = String(f.get("name") ?? "").trim();
  if (!name) issues.push({ path: "body.name", message: "is required" });
  for (const i of validate(channelConfigSchemas[type] as TSchema, config, "body.config")) {
    const v = valueAt(config, i.path.split(".").slice(2));
    const masked = typeof v === "string" ? v.startsWith(MASK) : v && typeof v === "object" && Object.values(v).some((x) => String(x).startsWith(MASK));
    if (!masked) issues.push(i);
  }
  if (issues.length) throw new FormIssuesError(issues);
  return { name, type, config };
}
