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

/**
 * Secret box for values that must be readable again (channel secrets, monitor auth, TOTP seeds):
 * AES-256-GCM with a key derived from SECRET_KEY. Output: "v1.<iv>.<tag>.<ciphertext>" in base64url.
 */
export class SecretBox {
  private readonly encKey: Buffer;
  private readonly macKey: Buffer;

  constructor(secretKey: string) {
    const ikm = Buffer.from(secretKey);
    this.encKey = Buffer.from(hkdfSync("sha256", ikm, "watchpost", "secret-box-v1", 32));
    this.macKey = Buffer.from(hkdfSync("sha256", ikm, "watchpost", "signing-v1", 32));
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.encKey, iv);
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".");
  }

  decrypt(box: string): string {
    const [version, iv, tag, body] = box.split(".");
    if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("unrecognised secret box");
    const decipher = createDecipheriv("aes-256-gcm", this.encKey, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  }

  /** HMAC-SHA256 signature (base64url) for signed tokens such as unsubscribe links and status-page cookies. */
  sign(data: string): string {
    return createHmac("sha256", this.macKey).update(data).digest("base64url");
  }

  verify(data: string, signature: string): boolean {
    return safeEqual(this.sign(data), signature);
  }
}
