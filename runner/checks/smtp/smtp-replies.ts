import type net from "node:net";
import type { TLSSocket } from "node:tls";
import { describeStepFailure, hostPort, ServerClosedError, type Peer } from "../shared/describe-error.ts";

export interface Reply {
  code: number;
  /** Text of every line, without the code. */
  lines: string[];
}

/** The server sent a line that is not an SMTP reply. */
class NotSmtpReplyError extends Error {
  constructor(readonly line: string) {
    super(`not an SMTP reply: ${JSON.stringify(line)}`);
  }
}

/**
 * Reads SMTP replies (RFC 5321 4.2: "250-..." lines continue, "250 ..." ends) from one socket.
 * A small reader of our own rather than nodemailer's SMTPConnection: the check times the greeting,
 * EHLO and STARTTLS separately and reads the upgraded socket's certificate (docs/decisions.md).
 * A failure is the first thing that went wrong: a line that is not a reply, the socket's error or its close.
 */
export function replyReader(socket: net.Socket | TLSSocket) {
  let buffer = "";
  let lines: string[] = [];
  let waiting: { resolve: (r: Reply) => void; reject: (e: Error) => void } | null = null;
  let failed: Error | null = null;
  const ready: Reply[] = [];
  const deliver = () => {
    if (!waiting) return;
    const w = waiting;
    if (ready.length) {
      waiting = null;
      w.resolve(ready.shift()!);
    } else if (failed) {
      waiting = null;
      w.reject(failed);
    }
  };
  const onData = (chunk: Buffer) => {
    buffer += chunk.toString("latin1");
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      const line = buffer.slice(0, nl).replace(/\r$/, "");
      buffer = buffer.slice(nl + 1);
      const m = /^(\d{3})([ -]?)(.*)$/.exec(line);
      if (!m) {
        failed ??= new NotSmtpReplyError(line.slice(0, 100));
        continue;
      }
      lines.push(m[3]!);
      if (m[2] !== "-") {
        ready.push({ code: Number(m[1]), lines });
        lines = [];
      }
    }
    deliver();
  };
  const onEnd = () => {
    failed ??= new ServerClosedError();
    deliver();
  };
  const onError = (err: Error) => {
    failed ??= err;
    deliver();
  };
  socket.on("data", onData);
  socket.on("end", onEnd);
  socket.on("close", onEnd);
  socket.on("error", onError);
  return {
    next: () => new Promise<Reply>((resolve, reject) => ((waiting = { resolve, reject }), deliver())),
    /** Stops reading, so the socket can be handed to TLS. */
    detach() {
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("close", onEnd);
      socket.off("error", onError);
    },
  };
}

export const describeReply = (r: Reply) => `${r.code} ${r.lines.join(" ").slice(0, 200)}`;

/**
 * What went wrong in one step of the dialogue, in words: what happened, where, and which answer was awaited
 * (the step's name is the one a timeout uses: `SMTP greeting (220)`, `reply to EHLO`...).
 */
export function describeDialogueFailure(err: unknown, waitingFor: string, peer: Peer, upgradedBy?: string): string {
  if (err instanceof NotSmtpReplyError) return `not an SMTP reply while waiting for the ${waitingFor}: ${JSON.stringify(err.line)} (${hostPort(peer.address, peer.port)})`;
  return describeStepFailure(err, waitingFor, peer, upgradedBy);
}
