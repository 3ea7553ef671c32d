/** Audit entries in words: "alice@example.com created monitor Shop API" from `monitors.create` and its details. */

export interface AuditEntryLike {
  actor: string;
  action: string;
  target_type: string;
  target_id: string | null;
  details: Record<string, unknown>;
}

const PAST: Record<string, string> = {
  create: "created",
  update: "updated",
  delete: "deleted",
  pause: "paused",
  resume: "resumed",
  test: "tested",
  run: "ran a check of",
  acknowledge: "acknowledged",
  ack: "acknowledged",
  revoke: "revoked",
  verify: "verified",
  resolve: "resolved",
  cancel: "cancelled",
  send: "sent",
  accept: "accepted",
  sso_sign_in: "signed in with single sign-on to",
};

const NOUNS: Record<string, string> = {
  api_keys: "API key",
  sso: "single sign-on",
  org: "the organisation",
  orgs: "organisation",
  billing: "billing",
  two_factor: "two-factor sign-in",
  auth: "the organisation",
};

/** `status_pages` → "status page", `api_keys` → "API key". */
export function nounOf(type: string): string {
  if (NOUNS[type]) return NOUNS[type];
  const words = type.replaceAll("_", " ");
  if (words.endsWith("ies")) return `${words.slice(0, -3)}y`;
  return words.endsWith("s") && !words.endsWith("ss") ? words.slice(0, -1) : words;
}

/** `user:alice@example.com` → "alice@example.com"; `api_key:k1` → "API key k1". */
export function actorOf(label: string): string {
  if (label.startsWith("user:")) return label.slice(5);
  if (label.startsWith("api_key:")) return `API key ${label.slice(8)}`;
  return label;
}

/** The sentence for one entry; the sub-resource of a nested action is named ("created subscriber on status page Main"). */
export function auditSentence(e: AuditEntryLike): string {
  const parts = e.action.split(".");
  const verb = parts[parts.length - 1]!;
  const past = PAST[verb];
  const name = typeof e.details.name === "string" && e.details.name ? e.details.name : null;
  const target = name ?? (e.target_id ? shortId(e.target_id) : "");
  const noun = nounOf(e.target_type);
  const sub = parts.slice(1, -1).map(nounOf);
  const what = past ?? `did “${verb.replaceAll("_", " ")}” on`;
  const on = sub.length ? `${sub.join(" ")} on ${noun}` : noun;
  return [actorOf(e.actor), what, on, target].filter(Boolean).join(" ");
}

const shortId = (id: string) => (id.length > 14 ? `${id.slice(0, 12)}…` : id);
