import { type ApiClient, allPages, data } from "./client.ts";
import type { components } from "../../web/src/api/schema.gen.ts";
import { CliError } from "./errors.ts";

export type Monitor = components["schemas"]["Monitor"];

/** The tag that stores a config file's stable key on the monitor it manages (docs/cli.md). */
export const KEY_TAG_PREFIX = "wp-key:";
export const keyOf = (m: { tags: string[] }) => m.tags.find((t) => t.startsWith(KEY_TAG_PREFIX))?.slice(KEY_TAG_PREFIX.length) ?? null;

async function getMonitor(client: ApiClient, id: string): Promise<Monitor> {
  return data(await client.GET("/api/v1/monitors/{id}", { params: { path: { id } } }));
}

export async function listMonitors(client: ApiClient, query: { tag?: string; status?: string; type?: string; search?: string } = {}): Promise<Monitor[]> {
  return allPages<Monitor>((page) => client.GET("/api/v1/monitors", { params: { query: { ...query, page, limit: 100, sort: "name" } as never } }));
}

/** A monitor named on the command line by its id, its config-file key or its exact name. */
export async function resolveMonitor(client: ApiClient, ref: string): Promise<Monitor> {
  if (/^mon_[0-9a-f]{32}$/.test(ref)) return getMonitor(client, ref);
  const byKey = await listMonitors(client, { tag: `${KEY_TAG_PREFIX}${ref}` }).catch(() => []);
  if (byKey.length === 1) return byKey[0]!;
  const byName = (await listMonitors(client, { search: ref })).filter((m) => m.name === ref);
  if (byName.length === 1) return byName[0]!;
  if (byName.length > 1) throw new CliError(`${byName.length} monitors are named "${ref}": name one by its id`, "AMBIGUOUS", 1, { ids: byName.map((m) => m.id) });
  throw new CliError(`No monitor with id, key or name "${ref}"`, "NOT_FOUND");
}
