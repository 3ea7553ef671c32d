import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";

/** Tokens (API keys, session and runner tokens) are stored as SHA-256 digests only. */
export function hashToken(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

export function safeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

interface DerivedKeys {
  enc: Buffer;
  mac: Buffer;
}

function derive(secretKey: string): DerivedKeys {
  const ikm = Buffer.from(secretKey);
  return {
    enc: Buffer.from(hkdfSync("sha256", ikm, "watchpost", "secret-box-v1", 32)),
    mac: Buffer.from(hkdfSync("sha256", ikm, "watchpost", "signing-v1", 32)),
  };
}

/**
 * Secret box for values that must be readable again (channel secrets, monitor auth, TOTP seeds):
 * AES-256-GCM with a key derived from SECRET_KEY. Output: "v1.<iv>.<tag>.<ciphertext>" in base64url.
 * While SECRET_KEY is rotated, the previous keys (SECRET_KEY_PREVIOUS) still decrypt and verify;
 * everything new is encrypted and signed with the current key.
 */
export class SecretBox {
  private readonly current: DerivedKeys;
  private readonly previous: DerivedKeys[];

  constructor(secretKey: string, previousKeys: string[] = []) {
    this.current = derive(secretKey);
    this.previous = previousKeys.filter((k) => k && k !== secretKey).map(derive);
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.current.enc, iv);
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".");
  }

  decrypt(box: string): string {
    const [version, iv, tag, body] = box.split(".");
    if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("unrecognised secret box");
    let failure: unknown;
    for (const keys of [this.current, ...this.previous]) {
      try {
        const decipher = createDecipheriv("aes-256-gcm", keys.enc, Buffer.from(iv, "base64url"));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
      } catch (err) {
        failure = err; // the authentication tag does not match this key: try the next one
      }
    }
    throw failure;
  }

  /** Whether `box` was encrypted with the current key (false: a previous key, or none of ours). */
  isCurrent(box: string): boolean {
    const [version, iv, tag, body] = box.split(".");
    if (version !== "v1" || !iv || !tag || body === undefined) return false;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.current.enc, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      decipher.update(Buffer.from(body, "base64url"));
      decipher.final();
      return true;
    } catch {
      return false;
    }
  }

  /** HMAC-SHA256 signature (base64url) for signed tokens such as unsubscribe links and status-page cookies. */
  sign(data: string): string {
    return createHmac("sha256", this.current.mac).update(data).digest("base64url");
  }

  verify(data: string, signature: string): boolean {
    let ok = false;
    // Every key is tried, so the time taken does not say which one matched.
    for (const keys of [this.current, ...this.previous]) ok = safeEqual(createHmac("sha256", keys.mac).update(data).digest("base64url"), signature) || ok;
    return ok;
  }
}
