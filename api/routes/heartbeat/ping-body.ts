import { PING_BODY_LIMIT } from "../../../runner/checks/heartbeat/heartbeat-schema.ts";
import type { PingBody } from "../../../domain/monitors/heartbeat.ts";

/**
 * The first PING_BODY_LIMIT bytes of a ping's body as text (the rest is not read); null when empty.
 * A multi-byte character cut at the limit is dropped, and NUL characters (which PostgreSQL's jsonb
 * refuses) are removed.
 */
export async function readPingBody(request: Request): Promise<PingBody | null> {
  if (!request.body) return null;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = PING_BODY_LIMIT - size;
    chunks.push(value.length > room ? value.subarray(0, room) : value);
    size += Math.min(value.length, room);
    if (value.length > room) {
      truncated = true;
      await reader.cancel();
      break;
    }
  }
  if (size === 0) return null;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.length;
  }
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes, { stream: truncated }).replaceAll("\u0000", "");
  return { text, truncated };
}
