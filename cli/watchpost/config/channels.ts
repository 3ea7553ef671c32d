import { channelSpecOf, type ChannelType } from "../../../schemas/channel-types.ts";
import { type ApiClient, allPages } from "../client.ts";
import { resolveRefs } from "./env-refs.ts";
import type { DesiredChannel } from "./load.ts";

/** An alert channel as the API shows it (secret fields masked as ••••1234, or •••• when short). */
export interface Channel {
  id: string;
  name: string;
  type: ChannelType;
  config: Record<string, unknown>;
  enabled: boolean;
  key: string | null;
  created_at: string;
}

export async function listChannels(client: ApiClient): Promise<Channel[]> {
  return allPages((page) => client.GET("/api/v1/alert-channels", { params: { query: { page, limit: 100 } } })) as Promise<Channel[]>;
}

const CHANNEL_MASK = "••••";
/** The API's mask of a channel secret: the last 4 characters of one 12 or longer, else nothing. */
const channelMask = (value: string) => (value.length >= 12 ? `${CHANNEL_MASK}${value.slice(-4)}` : CHANNEL_MASK);
const mapStrings = (v: unknown, f: (s: string) => unknown): unknown =>
  typeof v === "string" ? f(v) : v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typeof x === "string" ? f(x) : x])) : v;

export const secretFieldsOf = (type: ChannelType) => channelSpecOf(type).secretFields;

/**
 * The desired config as the API would show it: ${NAME}s resolved where set, and secret
 * fields masked like the API masks them — so comparing with the stored view reveals nothing. A secret whose
 * variable is unset compares as equal (its stored value stays).
 */
export function comparableChannelConfig(d: DesiredChannel, current: Channel | null, env: NodeJS.ProcessEnv, resendSecrets: boolean): Record<string, unknown> {
  // The API stores a channel's config as sent (no defaults filled in), so it is compared as written.
  const out: Record<string, unknown> = {};
  const secrets = secretFieldsOf(d.type);
  for (const [k, v] of Object.entries(d.config)) {
    if (!secrets.includes(k)) {
      out[k] = resolveRefs(v, env, new Set(), (original) => original);
      continue;
    }
    const stored = current?.type === d.type ? current.config[k] : undefined;
    const resolved = resolveRefs(v, env, new Set(), () => null);
    if (resendSecrets) out[k] = mapStrings(resolved ?? v, () => "(resent)");
    else if (resolved === null) out[k] = stored;
    else out[k] = mapStrings(resolved, channelMask);
  }
  return out;
}

/** The body apply sends: ${NAME}s resolved; an unset one sends the stored mask back, which keeps the stored secret. */
export function channelBody(d: DesiredChannel, current: Channel | null, env: NodeJS.ProcessEnv, missing: Set<string>) {
  const config = Object.fromEntries(
    Object.entries(d.config).map(([k, v]) => {
      const storedMask = current?.type === d.type ? current.config[k] : undefined;
      return [k, resolveRefs(v, env, missing, () => storedMask ?? null)];
    }),
  );
  return { name: d.name, type: d.type, config, key: d.key, ...(d.enabled !== undefined ? { enabled: d.enabled } : {}) };
}
