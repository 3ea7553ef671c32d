import type { Static } from "@sinclair/typebox";
import type { CheckType, ConfigSchemas } from "../../schemas/check-types.ts";
import type { ChannelType, channelConfigSchemas } from "../../schemas/channel-types.ts";
import type { RuleEntrySchema } from "../../schemas/monitoring-config.ts";

/** One monitor of a `watchpost.config.ts`: `config` is typed by `type` (the same schemas the API validates with). */
export type MonitorEntry = {
  [K in CheckType]: {
    key: string;
    name: string;
    type: K;
    config: Static<ConfigSchemas[K]>;
    interval_seconds?: number;
    timeout_ms?: number;
    regions?: string[];
    runner_ids?: string[];
    tags?: string[];
    paused?: boolean;
  };
}[CheckType];

/** One alert channel: `config` is typed by `type`; secret fields may be "${NAME}" references. */
export type ChannelEntry = {
  [K in ChannelType]: { key: string; name: string; type: K; config: Static<(typeof channelConfigSchemas)[K]>; enabled?: boolean };
}[ChannelType];

/** One alert rule: monitors by key or tag, channels by key. */
export type RuleEntry = Static<typeof RuleEntrySchema>;

export interface WatchpostConfig {
  version: 1;
  /** Stores every item under <project>/<key>; apply --prune deletes only this project's items. */
  project?: string;
  monitors: MonitorEntry[];
  channels?: ChannelEntry[];
  rules?: RuleEntry[];
}

/**
 * The typed form of watchpost.yaml: `export default defineConfig({ version: 1, monitors: [...] })` in
 * watchpost.config.ts. It returns its argument; the CLI validates it like a YAML file.
 */
export function defineConfig(config: WatchpostConfig): WatchpostConfig {
  return config;
}
