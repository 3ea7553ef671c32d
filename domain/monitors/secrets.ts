import type { SecretBox } from "../../core/crypto/secrets.ts";
import { validationError, type ValidationIssue } from "../../core/errors.ts";
import { openSealedFields, type SealedSecrets as Secrets, SECRET_PLACEHOLDER } from "../../core/crypto/sealed-fields.ts";
import { isSecretHeader } from "../../schemas/checks/secret-headers.ts";


type Auth = NonNullable<Secrets["auth"]>;
type Step = Record<string, unknown> & { action?: unknown; secret?: boolean; value?: unknown };
type Config = Record<string, unknown>;

/** Where a secret value sits in a config; `path` is below `config`. */
type Slot =
  | { kind: "header"; name: string; path: string }
  | { kind: "auth"; field: "password" | "token"; path: string }
  | { kind: "step"; index: number; key: string; path: string };

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
const VALUE_STEPS = new Set(["fill", "set_header", "set_cookie"]);

/** Marked `secret`, a header that is secret by name, or a cookie (the Cookie header is a secret, so each cookie is). */
function isSecretStep(s: Step): s is Step & { value: string } {
  if (typeof s.value !== "string" || !VALUE_STEPS.has(String(s.action))) return false;
  if (s.secret === true || s.value === SECRET_PLACEHOLDER) return true;
  if (s.action === "set_header") return typeof s.header === "string" && isSecretHeader(s.header);
  return s.action === "set_cookie";
}

/** What a step acts on: a placeholder is matched to the stored secret of the same action and target, not merely the same position. */
const stepKey = (s: Step) => `${String(s.action)}:${String(s.selector ?? (typeof s.header === "string" ? s.header.toLowerCase() : undefined) ?? s.cookie ?? "")}`;

/**
 * Calls `f` on every secret value of a monitor config (secret headers, the basic-auth password or
 * bearer token, secret flow step values) and returns the config with what `f` answered there.
 * A value equal to the placeholder counts as secret wherever it is, so it is never stored as a value.
 */
function mapSecretValues(config: Config, f: (value: string, slot: Slot) => string): Config {
  let out = config;
  if (isObject(config.headers)) {
    const marked = Array.isArray(config.secret_headers) ? config.secret_headers.filter((h): h is string => typeof h === "string") : [];
    const headers = Object.fromEntries(
      Object.entries(config.headers).map(([name, value]) =>
        typeof value === "string" && (isSecretHeader(name, marked) || value === SECRET_PLACEHOLDER) ? [name, f(value, { kind: "header", name, path: `headers.${name}` })] : [name, value],
      ),
    );
    out = { ...out, headers };
  }
  if (isObject(config.auth)) {
    const field = config.auth.type === "basic" ? "password" : config.auth.type === "bearer" ? "token" : null;
    const value = field ? config.auth[field] : undefined;
    if (field && typeof value === "string") out = { ...out, auth: { ...config.auth, [field]: f(value, { kind: "auth", field, path: `auth.${field}` }) } };
  }
  if (Array.isArray(config.steps)) {
    out = {
      ...out,
      steps: config.steps.map((s: unknown, index) =>
        isObject(s) && isSecretStep(s) ? { ...s, value: f(s.value, { kind: "step", index, key: stepKey(s), path: `steps.${index}.value` }) } : s,
      ),
    };
  }
  return out;
}

/** A user name or password in a URL (https://user:pass@host/): it would be stored and shown in clear. */
const hasUserInfo = (url: unknown): url is string => typeof url === "string" && URL.canParse(url) && (new URL(url).username !== "" || new URL(url).password !== "");

/** URLs a check opens: `url`, and the absolute URLs of browser-flow `navigate` steps. */
function urlSlots(config: Config): { path: string; url: unknown }[] {
  const steps = Array.isArray(config.steps) ? config.steps : [];
  return [{ path: "url", url: config.url }, ...steps.map((s: unknown, i) => ({ path: `steps.${i}.url`, url: isObject(s) && s.action === "navigate" ? s.url : undefined }))];
}

/** Refuses credentials in a URL (400): they belong in `auth` or a secret header, which are stored encrypted. */
export function assertNoUrlCredentials(config: Config): void {
  const issues = urlSlots(config)
    .filter((u) => hasUserInfo(u.url))
    .map((u) => ({ path: `body.config.${u.path}`, message: "must not contain a user name or password (they would be stored and shown in clear); use auth, or a secret Authorization header" }));
  if (issues.length > 0) throw validationError(issues);
}

/** Whether a stored config still holds a secret in clear (a row of an earlier release). */
export const hasPlaintextSecrets = (config: Config): boolean => JSON.stringify(mapSecretValues(config, () => SECRET_PLACEHOLDER)) !== JSON.stringify(config);

/**
 * The config as readers see it: every secret value replaced by the placeholder (also for rows
 * stored before secrets were split off), and the user info of URLs stored before it was refused.
 */
export function redactMonitorConfig(config: Config): Config {
  const out = mapSecretValues(config, () => SECRET_PLACEHOLDER);
  const withoutUserInfo = (url: string) => {
    const u = new URL(url);
    return url.replace(`${u.protocol}//${url.slice(u.protocol.length + 2).split("@")[0]}@`, `${u.protocol}//${SECRET_PLACEHOLDER}@`);
  };
  if (hasUserInfo(out.url)) out.url = withoutUserInfo(out.url);
  if (Array.isArray(out.steps)) out.steps = out.steps.map((s: unknown) => (isObject(s) && s.action === "navigate" && hasUserInfo(s.url) ? { ...s, url: withoutUserInfo(s.url) } : s));
  return out;
}

/** The secret values of a runnable config, to look up what a placeholder sent back stands for. */
function storedValues(config: Config) {
  const headers = new Map<string, string>();
  const auth = new Map<string, string>();
  const steps: { index: number; key: string; value: string }[] = [];
  mapSecretValues(config, (value, slot) => {
    if (value === SECRET_PLACEHOLDER) return value;
    if (slot.kind === "header") headers.set(slot.name.toLowerCase(), value);
    else if (slot.kind === "auth") auth.set(slot.field, value);
    else steps.push({ index: slot.index, key: slot.key, value });
    return value;
  });
  const used = new Set<number>();
  return (slot: Slot): string | undefined => {
    if (slot.kind === "header") return headers.get(slot.name.toLowerCase());
    if (slot.kind === "auth") return auth.get(slot.field);
    // The step at the same position if it acts on the same target, else the first such step not yet taken.
    const found = steps.find((s) => s.index === slot.index && s.key === slot.key && !used.has(s.index)) ?? steps.find((s) => s.key === slot.key && !used.has(s.index));
    if (found) used.add(found.index);
    return found?.value;
  };
}

/**
 * Moves the secrets out of a config before it is stored: the config keeps placeholders, the
 * secrets go encrypted. A placeholder sent back keeps the secret stored for the same header,
 * auth field or step (same action and target); with nothing stored there it is refused (400).
 */
export function splitSecrets(config: Config, box: SecretBox, previous: { config: Config; secrets_enc: string | null } | null): { config: Config; secretsEnc: string | null } {
  const stored = previous ? storedValues(openSealedFields(previous.config, previous.secrets_enc, box)) : () => undefined;
  const secrets: Secrets = {};
  const issues: ValidationIssue[] = [];
  const masked = mapSecretValues(config, (value, slot) => {
    const real = value === SECRET_PLACEHOLDER ? stored(slot) : value;
    if (real === undefined) {
      issues.push({ path: `body.config.${slot.path}`, message: `is the redacted placeholder ${SECRET_PLACEHOLDER}, but no secret is stored here to keep; send the value` });
      return SECRET_PLACEHOLDER;
    }
    if (slot.kind === "header") secrets.headers = { ...secrets.headers, [slot.name]: real };
    else if (slot.kind === "auth") secrets.auth = { ...(config.auth as Auth), [slot.field]: real } as Auth;
    else secrets.step_values = { ...secrets.step_values, [slot.index]: real };
    return SECRET_PLACEHOLDER;
  });
  if (issues.length > 0) throw validationError(issues, "A redacted secret was sent where none is stored");
  const any = secrets.auth || secrets.headers || secrets.step_values;
  return { config: masked, secretsEnc: any ? box.encrypt(JSON.stringify(secrets)) : null };
}
