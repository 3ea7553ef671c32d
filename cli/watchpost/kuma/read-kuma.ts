import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { CliError } from "../errors.ts";
import type { KumaBackup, KumaMonitor, KumaNotification } from "./kuma-types.ts";

const SQLITE_MAGIC = "SQLite format 3\u0000";

/** A Kuma JSON backup (Settings → Backup → Export) or its SQLite database (kuma.db), by the file's first bytes. */
export function readKumaSource(path: string): KumaBackup {
  let head: string;
  try {
    head = readFileSync(path).subarray(0, 16).toString("latin1");
  } catch (err) {
    throw new CliError(`${path}: ${(err as Error).message}`, "USAGE", 2);
  }
  return head === SQLITE_MAGIC ? readKumaDatabase(path) : readKumaBackup(path);
}

function readKumaBackup(path: string): KumaBackup {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new CliError(`${path} is neither a Kuma JSON backup nor a Kuma SQLite database: ${(err as Error).message}`, "INVALID_KUMA_BACKUP");
  }
  const b = parsed as Partial<KumaBackup>;
  if (!b || !Array.isArray(b.monitorList)) throw new CliError(`${path} has no monitorList: not an Uptime Kuma backup`, "INVALID_KUMA_BACKUP");
  return b as KumaBackup;
}

type Row = Record<string, unknown>;
const num = (v: unknown) => (v === null || v === undefined ? undefined : Number(v));
const str = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** Kuma's database, opened read-only: the monitor, tag and notification tables (snake_case columns). */
function readKumaDatabase(path: string): KumaBackup {
  const db = new Database(path, { readonly: true });
  try {
    const tags = new Map<number, { name: string; value: string | null }[]>();
    for (const t of db.query("select mt.monitor_id, t.name, mt.value from monitor_tag mt join tag t on t.id = mt.tag_id order by mt.id").all() as Row[]) {
      const list = tags.get(Number(t.monitor_id)) ?? [];
      list.push({ name: String(t.name), value: str(t.value) });
      tags.set(Number(t.monitor_id), list);
    }
    const notified = new Map<number, Record<string, boolean>>();
    for (const r of db.query("select monitor_id, notification_id from monitor_notification").all() as Row[]) {
      const ids = notified.get(Number(r.monitor_id)) ?? {};
      ids[String(r.notification_id)] = true;
      notified.set(Number(r.monitor_id), ids);
    }
    const monitorList: KumaMonitor[] = (db.query("select * from monitor order by id").all() as Row[]).map((r) => ({
      id: Number(r.id),
      name: String(r.name),
      type: String(r.type),
      active: Boolean(r.active),
      parent: num(r.parent) ?? null,
      url: str(r.url),
      method: str(r.method),
      hostname: str(r.hostname),
      port: num(r.port) ?? null,
      interval: num(r.interval),
      retryInterval: num(r.retry_interval),
      timeout: num(r.timeout) ?? null,
      maxretries: num(r.maxretries),
      keyword: str(r.keyword),
      invertKeyword: Boolean(r.invert_keyword),
      jsonPath: str(r.json_path),
      expectedValue: str(r.expected_value),
      ignoreTls: Boolean(r.ignore_tls),
      upsideDown: Boolean(r.upside_down),
      maxredirects: num(r.maxredirects),
      accepted_statuscodes_json: str(r.accepted_statuscodes_json),
      dns_resolve_type: str(r.dns_resolve_type),
      dns_resolve_server: str(r.dns_resolve_server),
      headers: str(r.headers),
      body: str(r.body),
      authMethod: str(r.auth_method),
      basic_auth_user: str(r.basic_auth_user),
      basic_auth_pass: str(r.basic_auth_pass),
      expiryNotification: Boolean(r.expiry_notification),
      packetSize: num(r.packet_size),
      tags: tags.get(Number(r.id)) ?? [],
      notificationIDList: notified.get(Number(r.id)) ?? {},
    }));
    const notificationList: KumaNotification[] = (db.query("select id, name, config, active from notification order by id").all() as Row[]).map((r) => ({
      id: Number(r.id),
      name: String(r.name),
      config: String(r.config ?? "{}"),
      active: Boolean(r.active),
    }));
    return { monitorList, notificationList };
  } catch (err) {
    throw new CliError(`${path}: not an Uptime Kuma database (${(err as Error).message})`, "INVALID_KUMA_BACKUP");
  } finally {
    db.close();
  }
}
