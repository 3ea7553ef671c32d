import { newId } from "../../core/ids.ts";
import { client, type makeOrg, signUp, type TestApi } from "./api.ts";

/**
 * An organisation with one resource of every kind the API manages, made through the API (plus a
 * stored check result and an in-app notification, which only the roles write). The ids name the
 * path parameter they fill, by the path prefix that owns it.
 */
export interface Populated {
  /** `/api/v1/monitors/{id}` → a monitor id, `/api/v1/monitors/{id}/checks/{checkId}` → a check id, ... */
  ids: Record<string, string>;
  /** Every id, for path parameters of any operation. */
  all: string[];
  /** The heartbeat monitor's token: a credential (whoever holds it may ping), not an id. */
  heartbeatToken: string;
  /** Secrets handed out once (keys, tokens) or stored encrypted (webhook secret, page password). */
  secrets: Record<string, string>;
  memberUserId: string;
  memberSession: { cookie: string; csrf: string };
}

type Org = Awaited<ReturnType<typeof makeOrg>>;

export async function populateOrg(api: TestApi, org: Org, tag = "pop"): Promise<Populated> {
  const call = client(api.url, { key: org.api_key });
  const made = async (method: string, path: string, body: unknown) => {
    const res = await call(method, path, body);
    if (res.status !== 201 && res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Record<string, any> & { id: string };
  };
  const suffix = Math.random().toString(36).slice(2, 8);
  const webhookSecret = `whsec-${tag}-${suffix}-0123456789`;
  const pagePassword = `page-password-${tag}-${suffix}`;

  const monitor = await made("POST", "/api/v1/monitors", { name: `${tag} api`, type: "http", config: { url: "http://127.0.0.1:9/" }, interval_seconds: 300, tags: [`${tag}-group`], paused: true });
  const heartbeat = await made("POST", "/api/v1/monitors", { name: `${tag} cron`, type: "heartbeat", config: { period_seconds: 3600, grace_seconds: 600 } });
  const channel = await made("POST", "/api/v1/alert-channels", { name: `${tag} hook`, type: "webhook", config: { url: "http://127.0.0.1:9/hook", secret: webhookSecret } });
  const rule = await made("POST", "/api/v1/alert-rules", {
    name: `${tag} down`,
    scope: { type: "all_monitors" },
    condition: { type: "status_change", to: ["down"] },
    channels: [{ channel_id: channel.id, delay_minutes: 0 }],
  });
  const policy = await made("POST", "/api/v1/escalation-policies", { name: `${tag} policy`, steps: [{ delay_minutes: 5, channel_ids: [channel.id] }] });
  const window = await made("POST", "/api/v1/maintenance-windows", { name: `${tag} window`, starts_at: new Date(Date.now() + 86_400_000).toISOString(), ends_at: new Date(Date.now() + 90_000_000).toISOString() });
  const report = await made("POST", "/api/v1/reports", { name: `${tag} report`, scope: "org", frequency: "monthly", day: 1, send_time: "08:00", timezone: "UTC", recipients: [{ type: "email", email: `report-${suffix}@example.test` }] });
  const page = await made("POST", "/api/v1/status-pages", { name: `${tag} status`, slug: `${tag}-${suffix}`, access: { mode: "password", password: pagePassword } });
  const subscriber = await made("POST", `/api/v1/status-pages/${page.id}/subscribers`, { email: `sub-${suffix}@example.test` });
  const theme = await made("POST", "/api/v1/themes", { name: `${tag} theme` });
  const incident = await made("POST", "/api/v1/incidents", { title: `${tag} incident`, impact: "minor", message: "Investigating" });
  const runner = await made("POST", "/api/v1/runners", { name: `${tag} runner` });
  const key = await made("POST", "/api/v1/api-keys", { name: `${tag} key`, scopes: ["monitors:read"] });
  const role = await made("POST", "/api/v1/org/roles", { name: `${tag} role ${suffix}`, permissions: ["monitors:read"] });
  const invitation = await made("POST", "/api/v1/org/invitations", { email: `invitee-${suffix}@example.test`, role_id: "member" });

  // A member with a session of their own (sessions are per user).
  const member = await signUp(api.url);
  const invite = await made("POST", "/api/v1/org/invitations", { email: member.email, role_id: "member" });
  const accepted = await member.call("POST", "/api/v1/invitations/accept", { token: invite.token });
  if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  const sessions = await member.call("GET", "/api/v1/user/sessions");
  const sessionId = sessions.body.data[0].id as string;

  // What the roles write: a stored check result and an in-app notification.
  const checkId = crypto.randomUUID();
  const due = Date.now() - 60_000;
  await api.sql`
    insert into check_results (id, job_id, org_id, monitor_id, location, location_type, scheduled_at, checked_at, status, duration_ms, error, data)
    values (${checkId}, ${`${monitor.id}.local.${due}`}, ${org.org_id}, ${monitor.id}, 'local', 'region', ${new Date(due)}, ${new Date(due + 50)}, 'up', 42, null, '{}')`;
  const notificationId = newId("ntf");
  await api.sql`insert into notifications (id, org_id, type, title, body, data) values (${notificationId}, ${org.org_id}, 'alert.fired', 'x', 'y', '{}')`;

  const ids: Record<string, string> = {
    "/api/v1/monitors": monitor.id,
    "/api/v1/monitors/checks": checkId,
    "/api/v1/monitor-groups": `${tag}-group`,
    "/api/v1/alert-channels": channel.id,
    "/api/v1/alert-rules": rule.id,
    // An alert is a firing period of rule × monitor × region (GET /alerts/{id}/timeline).
    "/api/v1/alerts": `${rule.id}~${monitor.id}~local~1`,
    "/api/v1/escalation-policies": policy.id,
    "/api/v1/maintenance-windows": window.id,
    "/api/v1/reports": report.id,
    "/api/v1/status-pages": page.id,
    "/api/v1/status-pages/subscribers": subscriber.id,
    "/api/v1/themes": theme.id,
    "/api/v1/incidents": incident.id,
    "/api/v1/runners": runner.id,
    "/api/v1/api-keys": key.id,
    "/api/v1/org/roles": role.id,
    "/api/v1/org/invitations": invitation.id,
    "/api/v1/org/members": member.userId,
    "/api/v1/user/sessions": sessionId,
    "/api/v1/notifications": notificationId,
  };
  return {
    ids,
    all: [...new Set(Object.values(ids))],
    heartbeatToken: new URL(heartbeat.heartbeat_url).pathname.split("/").pop()!,
    secrets: { apiKey: key.key, runnerToken: runner.token, webhookSecret, pagePassword, ownerKey: org.api_key },
    memberUserId: member.userId,
    memberSession: { cookie: member.cookie, csrf: member.csrf },
  };
}

/**
 * The real id for each path parameter of `path` in `p` (the last one for the resource whose
 * collection the parameter follows), or null when the operation's resource is not populated.
 */
export function fillPath(path: string, p: Populated): string | null {
  let out = path;
  const segments = path.split("/");
  for (let i = 0; i < segments.length; i++) {
    const m = /^\{(.+)\}$/.exec(segments[i]!);
    if (!m) continue;
    const owner = segments.slice(0, i).filter((s) => !s.startsWith("{")).join("/");
    const id = p.ids[owner];
    if (!id) return null;
    out = out.replace(segments[i]!, encodeURIComponent(id));
  }
  return out;
}
