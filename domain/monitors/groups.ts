import type { Actor } from "../access/actor.ts";
import type { Sql } from "../../db/client.ts";
import { conflict, notFound } from "../../core/errors.ts";
import { listTagGroups, removeTag, renameTag, type TagGroupRow } from "../../db/queries/monitors.ts";

export type GroupStatus = "down" | "timeout" | "degraded" | "up" | "pending" | "paused";

/** The group's status is its worst active member's: down, timeout, degraded, up, then pending; all paused is paused. */
export function groupStatus(g: TagGroupRow): GroupStatus {
  if (g.down > 0) return "down";
  if (g.timeout > 0) return "timeout";
  if (g.degraded > 0) return "degraded";
  if (g.up > 0) return "up";
  if (g.pending > 0) return "pending";
  return "paused";
}

export const listGroups = ({ sql, actor }: { sql: Sql; actor: Actor }) => listTagGroups(sql, actor.orgId);

export async function getGroup({ sql, actor }: { sql: Sql; actor: Actor }, tag: string): Promise<TagGroupRow> {
  const [group] = await listTagGroups(sql, actor.orgId, tag);
  if (!group) throw notFound("Monitor group");
  return group;
}

/** Renaming retags every monitor; merging into an existing tag is allowed only with `merge`. */
export async function renameGroup({ sql, actor }: { sql: Sql; actor: Actor }, tag: string, to: string, merge = false): Promise<TagGroupRow> {
  await getGroup({ sql, actor }, tag);
  if (tag !== to && !merge && (await listTagGroups(sql, actor.orgId, to)).length > 0) throw conflict(`A group named ${to} already exists; set merge to combine them`);
  await renameTag(sql, actor.orgId, tag, to);
  return getGroup({ sql, actor }, to);
}

/** Removes the tag from every monitor; the monitors stay. */
export async function deleteGroup({ sql, actor }: { sql: Sql; actor: Actor }, tag: string): Promise<void> {
  if ((await removeTag(sql, actor.orgId, tag)) === 0) throw notFound("Monitor group");
}
