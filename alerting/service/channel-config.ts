import { Value } from "@sinclair/typebox/value";
import type { ValidationIssue } from "../../core/errors.ts";
import { channelSpecOf, channelTypes, type ChannelType, isChannelType } from "../../schemas/channel-types.ts";

/**
 * A channel's settings as the API and the alerting role handle them: validated, masked for
 * display, unmasked on update. Reads only the pure channel specs (schemas/channel-types.ts).
 */

/** Schema errors (first per path), then the channel's own checks; empty when the config is good. */
export function validateChannelConfig(type: string, config: unknown): ValidationIssue[] {
  if (!isChannelType(type)) return [{ path: "/type", message: `must be one of ${channelTypes.join(", ")}` }];
  const spec = channelSpecOf(type);
  const issues = new Map<string, string>();
  for (const e of Value.Errors(spec.config, config)) {
    // TypeBox's messages name the rule ("Expected string to match ..."); the description says what was meant.
    const hint = (e.schema as { description?: string }).description;
    if (!issues.has(e.path)) issues.set(e.path, hint ? `${e.message} (${hint})` : e.message);
  }
  if (issues.size > 0) return [...issues].map(([path, message]) => ({ path: path || "/", message }));
  return spec.validate?.(config as never) ?? [];
}

const MASK = "••••";
/** Shows the last 4 characters only of a secret long enough that they give nothing away. */
export const maskSecret = (value: string) => (value.length >= 12 ? `${MASK}${value.slice(-4)}` : MASK);

/** A secret field is a string or a record of strings (webhook headers); anything else is masked whole. */
const mapSecret = (value: unknown, f: (s: string, key?: string) => string): unknown =>
  typeof value === "string"
    ? f(value)
    : value && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === "string" ? f(v, k) : MASK]))
      : MASK;

/** The config as an API may show it: every secret field masked, the rest as stored. */
export function maskSecrets<C extends object>(type: ChannelType, config: C): C {
  const out = { ...config } as Record<string, unknown>;
  for (const field of channelSpecOf(type).secretFields) if (out[field] !== undefined) out[field] = mapSecret(out[field], maskSecret);
  return out as C;
}

/**
 * For updates: a client that sends back a masked value it was shown means "unchanged", so that
 * value is replaced by the stored secret it masks. Any other value is a new secret and kept.
 */
export function restoreMaskedSecrets<C extends object>(type: ChannelType, incoming: C, stored: object): C {
  const out = { ...incoming } as Record<string, unknown>;
  const old = stored as Record<string, unknown>;
  const spec = channelSpecOf(type);
  for (const field of spec.secretFields) {
    const prev = old[field];
    if (out[field] === undefined) continue;
    // During a rotation the previous secret may be sent as the mask of the stored current one.
    const from = spec.rotatesFrom?.[field];
    const rotated = from === undefined ? undefined : old[from];
    out[field] = mapSecret(out[field], (s, key) => {
      const before = key === undefined ? prev : (prev as Record<string, unknown> | undefined)?.[key];
      if (typeof before === "string" && s === maskSecret(before)) return before;
      return key === undefined && typeof rotated === "string" && s === maskSecret(rotated) ? rotated : s;
    });
  }
  return out as C;
}
