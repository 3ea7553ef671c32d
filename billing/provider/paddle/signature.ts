import { createHmac, timingSafeEqual } from "node:crypto";
import { WebhookRejected } from "../types.ts";

/** `Paddle-Signature: ts=<unix seconds>;h1=<hex HMAC-SHA256 of "ts:rawBody">` (several h1 during secret rotation). */
export function signPaddle(rawBody: string, secret: string, ts: number): string {
  return `ts=${ts};h1=${createHmac("sha256", secret).update(`${ts}:${rawBody}`).digest("hex")}`;
}

/**
 * Verifies a Paddle-style signature against any of `secrets` (old and new during rotation),
 * with a timing-safe compare and a replay window around `now`.
 */
export function verifyPaddleSignature(rawBody: string, header: string | null, secrets: string[], now: Date, windowSeconds = 300): void {
  if (!header) throw new WebhookRejected("missing Paddle-Signature header");
  let ts: number | null = null;
  const h1: string[] = [];
  for (const part of header.split(";")) {
    const [k, v] = part.split("=", 2).map((s) => s.trim());
    if (k === "ts" && v && /^\d+$/.test(v)) ts = Number(v);
    else if (k === "h1" && v) h1.push(v);
  }
  if (ts === null || h1.length === 0) throw new WebhookRejected("malformed Paddle-Signature header");
  if (Math.abs(now.getTime() / 1000 - ts) > windowSeconds) throw new WebhookRejected("signature timestamp outside the replay window");
  for (const secret of secrets) {
    const expected = createHmac("sha256", secret).update(`${ts}:${rawBody}`).digest();
    for (const candidate of h1) {
      const got = /^[0-9a-f]+$/i.test(candidate) ? Buffer.from(candidate, "hex") : Buffer.alloc(0);
      if (got.length === expected.length && timingSafeEqual(got, expected)) return;
    }
  }
  throw new WebhookRejected("signature does not match");
}
