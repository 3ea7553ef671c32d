/** Test support: a real SMTP server on loopback that records and parses what it receives. */
import type { AddressInfo } from "node:net";
import PostalMime, { type Email } from "postal-mime";
import { SMTPServer } from "smtp-server";
import type { ContractReceiver } from "../testing.ts";
import type { SmtpSettings } from "../../../core/mail/smtp-transport.ts";

interface ReceivedMail {
  envelope: { from: string; to: string[] };
  raw: string;
  parsed: Email;
}

export interface SmtpReceiver extends ContractReceiver {
  settings: SmtpSettings;
  mails: ReceivedMail[];
  last(): ReceivedMail;
}

const smtpError = (message: string, responseCode: number) => Object.assign(new Error(message), { responseCode });

/** Requires AUTH with `auth` (plain text is fine on loopback); refuses RCPT TO for addresses starting "nobody@". */
export async function startSmtpReceiver(auth = { user: "mailer", pass: "mailer-password" }): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  const failures: number[] = [];
  const server = new SMTPServer({
    logger: false,
    disableReverseLookup: true,
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    onAuth(a, _session, callback) {
      if (a.username === auth.user && a.password === auth.pass) return callback(null, { user: a.username });
      callback(smtpError("Invalid username or password", 535));
    },
    onRcptTo(address, _session, callback) {
      callback(address.address.startsWith("nobody@") ? smtpError("No such user here", 550) : null);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", async () => {
        const code = failures.shift();
        if (code) return callback(smtpError(code >= 500 ? "Message rejected" : "Try again later", code));
        const raw = Buffer.concat(chunks).toString("utf8");
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
        };
        mails.push({ envelope, raw, parsed: await PostalMime.parse(raw) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  const settings: SmtpSettings = { host: "127.0.0.1", port, secure: false, auth, from: "Watchpost <alerts@watchpost.example>" };
  return {
    settings,
    mails,
    ctx: { smtp: settings },
    get messages() {
      return mails.map((m) => `${m.parsed.subject}\n${m.parsed.text}`);
    },
    last() {
      const m = mails.at(-1);
      if (!m) throw new Error("the SMTP receiver has not received anything");
      return m;
    },
    failNext(kind) {
      const code = kind === "retryable" ? 451 : 550;
      failures.push(code);
      return code;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
