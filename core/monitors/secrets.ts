import type { SecretBox } from "../crypto/secrets.ts";

/** What the API shows in place of a stored secret; sending it back on PATCH keeps the secret. */
export const SECRET_PLACEHOLDER = "••••••••";

type Auth = { type: "basic"; username: string; password: string } | { type: "bearer"; token: string };
type Secrets = { auth?: Auth };

/** Moves secrets (HTTP auth) out of a config: the config keeps placeholders, the secrets go encrypted. */
export function splitSecrets(config: Record<string, unknown>, box: SecretBox, previousEnc: string | null): { config: Record<string, unknown>; secretsEnc: string | null } {
  const auth = config.auth as Auth | undefined;
  if (!auth) return { config, secretsEnc: null };
  const previous = previousEnc ? (JSON.parse(box.decrypt(previousEnc)) as Secrets) : {};
  const kept: Auth =
    auth.type === "basic"
      ? { ...auth, password: auth.password === SECRET_PLACEHOLDER && previous.auth?.type === "basic" ? previous.auth.password : auth.password }
      : { ...auth, token: auth.token === SECRET_PLACEHOLDER && previous.auth?.type === "bearer" ? previous.auth.token : auth.token };
  const masked = kept.type === "basic" ? { ...kept, password: SECRET_PLACEHOLDER } : { ...kept, token: SECRET_PLACEHOLDER };
  return { config: { ...config, auth: masked }, secretsEnc: box.encrypt(JSON.stringify({ auth: kept } satisfies Secrets)) };
}

/** The runnable config: placeholders replaced by the decrypted secrets. */
export function mergeSecrets(config: Record<string, unknown>, secretsEnc: string | null, box: SecretBox): Record<string, unknown> {
  if (!secretsEnc) return config;
  const secrets = JSON.parse(box.decrypt(secretsEnc)) as Secrets;
  return secrets.auth ? { ...config, auth: secrets.auth } : config;
}
