/** Argon2id through Bun.password; the parameters live in the hash, so they can be raised later. */
export const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: "argon2id", memoryCost: 19456, timeCost: 2 });

export const verifyPassword = (password: string, hash: string) => Bun.password.verify(password, hash).catch(() => false);

/** A hash of a random password: sign-in against an unknown email costs the same time as a real one. */
export const DUMMY_HASH = await hashPassword(crypto.randomUUID());
