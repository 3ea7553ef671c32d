import type { Logger } from "../log.ts";
import { RemoteError, type RpcReply } from "./types.ts";

/** Runs a request handler and turns its outcome into the wire reply; a thrown error keeps its code, details and status. */
export async function replyOf<T>(run: () => Promise<T> | T, log: Logger, subject: string): Promise<RpcReply<T>> {
  try {
    return { ok: true, value: (await run()) ?? (null as T) };
  } catch (err) {
    const e = (err ?? {}) as { message?: unknown; code?: unknown; details?: unknown; status?: unknown };
    const error: Extract<RpcReply<T>, { ok: false }>["error"] = { message: typeof e.message === "string" ? e.message : String(err) };
    if (typeof e.code === "string") error.code = e.code;
    if (e.details && typeof e.details === "object") error.details = e.details as Record<string, unknown>;
    if (typeof e.status === "number") error.status = e.status;
    if (error.status === undefined || error.status >= 500) log.warn({ op: "bus.rpc", err, subject }, "request handler failed");
    return { ok: false, error };
  }
}

/** The value of a reply, or the RemoteError it carries. */
export function unwrapReply<T>(reply: RpcReply<T>): T {
  if (reply.ok) return reply.value;
  const { message, code, details, status } = reply.error;
  throw new RemoteError(message, code, details, status);
}
