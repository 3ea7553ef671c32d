import type { SecretBox } from "../crypto/secrets.ts";

/** What the API shows in place of a stored secret; sending it back on PATCH keeps the secret. */
export const SECRET_PLACEHOLDER = "••••••••";

type Auth = { type: "basic"; username: string; password: string } | { type: "bearer"; token: string };
/** HTTP auth, and the values of browser-flow steps marked `secret` by their position in `steps`. */
type Secrets = { auth?: Auth; step_values?: Record<string, string> };
type Step = Record<string, unknown> & { secret?: boolean; value?: unknown };

const secretStep = (s: unknown): s is Step & { value: string } => !!s && typeof s === "object" && (s as Step).secret === true && typeof (s as Step).value === "string";

/**
 * Moves secrets out of a config: HTTP auth, and browser-flow step values marked `secret: true`
 * (passwords typed by `fill`, tokens sent by `set_header` / `set_cookie`). The config keeps
 * placeholders, the secrets go encrypted.
 */
export function splitSecrets(config: Record<string, unknown>, box: SecretBox, previousEnc: string | null): { config: Record<string, unknown>; secretsEnc: string | null } {
  const auth = config.auth as Auth | undefined;
  const steps = Array.isArray(config.steps) ? (config.steps as unknown[]) : null;
  if (!auth && !steps?.some(secretStep)) return { config, secretsEnc: null };
  const previous = previousEnc ? (JSON.parse(box.decrypt(previousEnc)) as Secrets) : {};
  const secrets: Secrets = {};
  let out = config;
  if (auth) {
    const kept: Auth =
      auth.type === "basic"
        ? { ...auth, password: auth.password === SECRET_PLACEHOLDER && previous.auth?.type === "basic" ? previous.auth.password : auth.password }
        : { ...auth, token: auth.token === SECRET_PLACEHOLDER && previous.auth?.type === "bearer" ? previous.auth.token : auth.token };
    secrets.auth = kept;
    out = { ...out, auth: kept.type === "basic" ? { ...kept, password: SECRET_PLACEHOLDER } : { ...kept, token: SECRET_PLACEHOLDER } };
  }
  if (steps?.some(secretStep)) {
    const values: Record<string, string> = {};
    const masked = steps.map((s, i) => {
      if (!secretStep(s)) return s;
      // The placeholder sent back keeps the secret stored for the step at the same position.
      values[i] = s.value === SECRET_PLACEHOLDER && previous.step_values?.[i] !== undefined ? previous.step_values[i]! : s.value;
      return { ...s, value: SECRET_PLACEHOLDER };
    });
    secrets.step_values = values;
    out = { ...out, steps: masked };
  }
  return { config: out, secretsEnc: box.encrypt(JSON.stringify(secrets)) };
}

/** The runnable config: placeholders replaced by the decrypted secrets. */
export function mergeSecrets(config: Record<string, unknown>, secretsEnc: string | null, box: SecretBox): Record<string, unknown> {
  if (!secretsEnc) return config;
  const secrets = JSON.parse(box.decrypt(secretsEnc)) as Secrets;
  let out = secrets.auth ? { ...config, auth: secrets.auth } : config;
  const values = secrets.step_values;
  if (values && Array.isArray(out.steps)) {
    out = { ...out, steps: (out.steps as unknown[]).map((s, i) => (secretStep(s) && values[i] !== undefined ? { ...s, value: values[i] } : s)) };
  }
  return out;
}
