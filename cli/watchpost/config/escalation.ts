import { type ApiClient, allPages } from "../client.ts";
import { CliError } from "../errors.ts";
import type { DesiredPolicy } from "./load.ts";
import type { RefMaps } from "./rules.ts";

/** An escalation policy as the API shows it. */
export interface Policy {
  id: string;
  name: string;
  steps: { delay_minutes: number; channel_ids: string[] }[];
  key: string | null;
  created_at: string;
}

export async function listPolicies(client: ApiClient): Promise<Policy[]> {
  return allPages((page) => client.GET("/api/v1/escalation-policies", { params: { query: { page, limit: 100 } } })) as Promise<Policy[]>;
}

/** A stored policy in the file's form (channel ids as keys). */
export function policyAsFile(p: Policy, refs: RefMaps) {
  const keyOf = new Map([...refs.channelId].map(([k, id]) => [id, k]));
  return { name: p.name, steps: p.steps.map((s) => ({ delay_minutes: s.delay_minutes, channels: s.channel_ids.map((id) => keyOf.get(id) ?? `id:${id}`) })) };
}

/** The API body: channel keys resolved to ids (after creations). */
export function policyBody(d: DesiredPolicy, refs: RefMaps) {
  return {
    key: d.key,
    name: d.name,
    steps: d.steps.map((s) => ({
      delay_minutes: s.delay_minutes,
      channel_ids: s.channels.map((k) => {
        const id = refs.channelId.get(k);
        if (!id) throw new CliError(`Escalation policy ${d.key}: no channel with key "${k}"`, "INVALID_CONFIG");
        return id;
      }),
    })),
  };
}
