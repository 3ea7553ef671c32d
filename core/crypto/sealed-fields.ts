import type { SecretBox } from "./secrets.ts";

/** What the API shows in place of a stored secret; sending it back on PATCH keeps the secret. */
export const SECRET_PLACEHOLDER = "••••••••";

type Auth = { type: "basic"; username: string; password: string } | { type: "bearer"; token: string };
/**
 * What secrets_enc holds: HTTP auth, secret header values by header name, and secret browser-flow
 * step values by the step's position in `steps`.
 */
export type SealedSecrets = { auth?: Auth; headers?: Record<string, string>; step_values?: Record<string, string> };
type Config = Record<string, unknown>;

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/**
 * The runnable config: placeholders replaced by the decrypted secrets. The decrypting half of
 * domain/monitors/secrets.ts, in the kernel so the cloud worker and run-now need no domain service.
 */
export function openSealedFields(config: Config, secretsEnc: string | null, box: SecretBox): Config {
  if (!secretsEnc) return config;
  const secrets = JSON.parse(box.decrypt(secretsEnc)) as SealedSecrets;
  let out = secrets.auth ? { ...config, auth: secrets.auth } : config;
  const headers = secrets.headers;
  if (headers && isObject(out.headers)) {
    out = { ...out, headers: Object.fromEntries(Object.entries(out.headers).map(([k, v]) => [k, v === SECRET_PLACEHOLDER && headers[k] !== undefined ? headers[k] : v])) };
  }
  const values = secrets.step_values;
  if (values && Array.isArray(out.steps)) {
    out = { ...out, steps: (out.steps as unknown[]).map((s, i) => (isObject(s) && s.value === SECRET_PLACEHOLDER && values[i] !== undefined ? { ...s, value: values[i] } : s)) };
  }
  return out;
}
