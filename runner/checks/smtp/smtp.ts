import type net from "node:net";
import tls, { type TLSSocket } from "node:tls";
import { isIpLiteral, stripBrackets } from "../../../core/net-guard/index.ts";
import { defineCheck } from "../shared/define-check.ts";
import { openConnection } from "../shared/open-connection.ts";
import { daysUntil, ms } from "../shared/timing.ts";
import { SMTP_DEFAULTS, smtpSpec } from "./smtp-schema.ts";

interface Reply {
  code: number;
  /** Text of every line, without the code. */
  lines: string[];
}

/** An SMTP reply the dialogue did not expect: the check is down with the server's own words. */
class SmtpReplyError extends Error {}

/**
 * Reads SMTP replies (RFC 5321 4.2: "250-..." lines continue, "250 ..." ends) from one socket.
 * A small reader of our own rather than nodemailer's SMTPConnection: the check times the greeting,
 * EHLO and STARTTLS separately and reads the upgraded socket's certificate (docs/decisions.md).
 */
function replyReader(socket: net.Socket | TLSSocket) {
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
        failed = new SmtpReplyError(`not an SMTP reply: ${line.slice(0, 100)}`);
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
    failed ??= new SmtpReplyError("the server closed the connection");
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

const describeReply = (r: Reply) => `${r.code} ${r.lines.join(" ").slice(0, 200)}`;

export const smtpCheck = defineCheck(smtpSpec, {
  async probe(config, ctx) {
    const started = performance.now();
    const host = stripBrackets(config.host);
    const ehloName = config.ehlo_name ?? SMTP_DEFAULTS.ehlo_name;
    const mode = config.starttls ?? SMTP_DEFAULTS.starttls;
    const conn = await openConnection({ host: config.host, port: config.port ?? SMTP_DEFAULTS.port, guard: ctx.guardOptions, measurements: ctx.data });
    let socket: net.Socket | TLSSocket = conn.socket;
    const close = () => socket.destroy();
    ctx.signal.addEventListener("abort", close, { once: true });
    try {
      let reader = replyReader(socket);
      const send = async (command: string) => {
        socket.write(`${command}\r\n`);
        return reader.next();
      };

      let t = performance.now();
      ctx.waitingFor = "SMTP greeting (220)";
      const banner = await reader.next();
      ctx.data.banner_ms = ms(performance.now() - t);
      ctx.data.banner = describeReply(banner).slice(0, 200);
      if (banner.code !== 220) return { status: "down", error: `the server greeted with ${describeReply(banner)}` };

      t = performance.now();
      ctx.waitingFor = "reply to EHLO";
      let ehlo = await send(`EHLO ${ehloName}`);
      ctx.data.ehlo_ms = ms(performance.now() - t);
      if (ehlo.code !== 250) return { status: "down", error: `EHLO refused: ${describeReply(ehlo)}` };

      const offered = ehlo.lines.some((l) => /^STARTTLS\b/i.test(l));
      if (mode === "required" && !offered) return { status: "down", error: "the server does not offer STARTTLS (starttls: required)" };
      let certDays: number | null = null;
      if (mode !== "off" && offered) {
        t = performance.now();
        ctx.waitingFor = "reply to STARTTLS";
        const go = await send("STARTTLS");
        if (go.code !== 220) return { status: "down", error: `STARTTLS refused: ${describeReply(go)}` };
        reader.detach();
        ctx.waitingFor = "TLS handshake after STARTTLS";
        const secure = await upgrade(socket as net.Socket, isIpLiteral(host) ? undefined : host, ctx.endpoints?.trustedCa, ctx.signal);
        socket = secure;
        ctx.data.starttls_ms = ms(performance.now() - t);
        ctx.data.tls_version = secure.getProtocol() ?? null;
        const cert = secure.getPeerCertificate(false);
        if (cert?.valid_to) {
          const validTo = new Date(cert.valid_to);
          certDays = daysUntil(validTo);
          ctx.data.cert_expires_at = validTo.toISOString();
          ctx.data.cert_days_left = certDays;
        }
        if (config.tls_verify ?? SMTP_DEFAULTS.tls_verify) {
          const why = !cert?.valid_to ? "no certificate" : !secure.authorized ? String(secure.authorizationError) : tls.checkServerIdentity(host, cert)?.message;
          if (why) return { status: "down", error: `the STARTTLS certificate is not trusted (${why})` };
        }
        reader = replyReader(socket);
        ctx.waitingFor = "reply to EHLO after STARTTLS";
        ehlo = await send(`EHLO ${ehloName}`);
        if (ehlo.code !== 250) return { status: "down", error: `EHLO after STARTTLS refused: ${describeReply(ehlo)}` };
      }
      socket.write("QUIT\r\n");

      if (certDays !== null && config.cert_expiry_days !== undefined && certDays <= config.cert_expiry_days) {
        return { status: "degraded", error: `STARTTLS certificate expires in ${certDays} days on ${ctx.data.cert_expires_at} (cert_expiry_days ${config.cert_expiry_days})` };
      }
      const took = ms(performance.now() - started);
      if (config.degraded_above_ms !== undefined && took > config.degraded_above_ms) {
        return { status: "degraded", error: `the dialogue took ${took} ms (degraded_above_ms ${config.degraded_above_ms})` };
      }
      return { status: "up" };
    } finally {
      ctx.signal.removeEventListener("abort", close);
      socket.destroy();
    }
  },
});

/** Runs the TLS handshake on the connected socket; verification is judged by the caller. */
function upgrade(socket: net.Socket, servername: string | undefined, extraCa: string[] | undefined, signal: AbortSignal): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const secure = tls.connect({ socket, servername, rejectUnauthorized: false, ca: extraCa?.length ? [...tls.rootCertificates, ...extraCa] : undefined });
    const fail = (err: Error) => {
      signal.removeEventListener("abort", onAbort);
      secure.destroy();
      reject(err);
    };
    const onAbort = () => fail(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    secure.once("error", fail);
    secure.once("secureConnect", () => {
      signal.removeEventListener("abort", onAbort);
      secure.off("error", fail);
      secure.on("error", () => {});
      resolve(secure);
    });
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
