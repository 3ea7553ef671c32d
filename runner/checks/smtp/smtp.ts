import type net from "node:net";
import tls, { type TLSSocket } from "node:tls";
import { isIpLiteral, stripBrackets } from "../../../core/net-guard/index.ts";
import { defineCheck } from "../shared/define-check.ts";
import { openConnection } from "../shared/open-connection.ts";
import { daysUntil, ms } from "../shared/timing.ts";
import { describeReply, describeDialogueFailure, replyReader } from "./smtp-replies.ts";
import { SMTP_DEFAULTS, smtpSpec } from "./smtp-schema.ts";

export const smtpCheck = defineCheck(smtpSpec, {
  async probe(config, ctx) {
    const started = performance.now();
    const host = stripBrackets(config.host);
    const ehloName = config.ehlo_name ?? SMTP_DEFAULTS.ehlo_name;
    const mode = config.starttls ?? SMTP_DEFAULTS.starttls;
    const port = config.port ?? SMTP_DEFAULTS.port;
    const conn = await openConnection({ host: config.host, port, guard: ctx.guardOptions, measurements: ctx.data, progress: ctx });
    const peer = { address: conn.address, port };
    let socket: net.Socket | TLSSocket = conn.socket;
    const close = () => socket.destroy();
    ctx.signal.addEventListener("abort", close, { once: true });
    /** One step of the dialogue: a timeout names it, and a failure says what happened while waiting for it. */
    const step = async <T>(waitingFor: string, work: () => Promise<T>, upgradedBy?: string): Promise<T> => {
      ctx.waitingFor = waitingFor;
      try {
        return await work();
      } catch (err) {
        throw ctx.signal.aborted ? err : new Error(describeDialogueFailure(err, waitingFor, peer, upgradedBy));
      }
    };
    try {
      let reader = replyReader(socket);
      const send = (waitingFor: string, command: string) =>
        step(waitingFor, () => {
          socket.write(`${command}\r\n`);
          return reader.next();
        });

      let t = performance.now();
      const banner = await step("SMTP greeting (220)", () => reader.next());
      ctx.data.banner_ms = ms(performance.now() - t);
      ctx.data.banner = describeReply(banner).slice(0, 200);
      if (banner.code !== 220) return { status: "down", error: `the server greeted with ${describeReply(banner)}` };

      t = performance.now();
      let ehlo = await send("reply to EHLO", `EHLO ${ehloName}`);
      ctx.data.ehlo_ms = ms(performance.now() - t);
      if (ehlo.code !== 250) return { status: "down", error: `EHLO refused: ${describeReply(ehlo)}` };

      const offered = ehlo.lines.some((l) => /^STARTTLS\b/i.test(l));
      if (mode === "required" && !offered) return { status: "down", error: "the server does not offer STARTTLS (starttls: required)" };
      let certDays: number | null = null;
      if (mode !== "off" && offered) {
        t = performance.now();
        const go = await send("reply to STARTTLS", "STARTTLS");
        if (go.code !== 220) return { status: "down", error: `STARTTLS refused: ${describeReply(go)}` };
        reader.detach();
        const plain = socket as net.Socket;
        const secure = await step("TLS handshake after STARTTLS", () => upgrade(plain, isIpLiteral(host) ? undefined : host, ctx.endpoints?.trustedCa, ctx.signal), "STARTTLS");
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
        ehlo = await send("reply to EHLO after STARTTLS", `EHLO ${ehloName}`);
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
