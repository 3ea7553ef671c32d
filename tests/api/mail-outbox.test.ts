/**
 * Transactional mail goes through an outbox: the API only writes rows (in the transaction of the change),
 * and the alerting role's deliverer sends them with retries (#19). A message that carries a token is
 * sealed at rest, and its body is cleared once sent.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { deliverMail } from "../../alerting/outbox/mail-outbox.ts";
import { silentLogger } from "../../core/log.ts";
import { SecretBox } from "../../core/crypto/secrets.ts";
import type { Mailer } from "../../core/mail/mailer.ts";
import { enqueueMail } from "../../domain/mail/enqueue.ts";
import { client, signUp, startTestApi, TEST_SECRET_KEY, type TestApi } from "../support/api.ts";
import { createTestDatabase } from "../support/db.ts";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
}, 60_000);
afterAll(async () => {
  await api.stop();
}, 60_000);

const rowsTo = async (to: string, sql = api.sql) => [...(await sql`select kind, status, attempts, sealed, text_body, last_error from mail_outbox where to_addr = ${to} order by created_at`)];

describe("mail outbox", () => {
  it("queues a password reset in the outbox, sealed; the API sends nothing itself", async () => {
    const user = await signUp(api.url);
    const before = api.mailer.sent.length;
    expect((await client(api.url)("POST", "/api/v1/auth/password-reset/request", { email: user.email })).status).toBe(202);
    const [row] = await rowsTo(user.email);
    expect(row).toMatchObject({ kind: "password_reset", sealed: true });
    expect(row!.text_body).not.toContain("token");
    await api.flushMail();
    const mails = api.mailer.sent.slice(before).filter((m) => m.to === user.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toMatch(/token[^:]*: \S+/);
    expect(await rowsTo(user.email)).toEqual([{ kind: "password_reset", status: "sent", attempts: 1, sealed: true, text_body: "", last_error: null }]);
  });

  it("retries a failed send after a backoff and gives up on a permanent failure", async () => {
    // A database of its own: no deliverer runs on it but the passes below.
    const db = await createTestDatabase();
    const box = new SecretBox(TEST_SECRET_KEY);
    const to = `retry-${Date.now()}@example.test`;
    const bad = `bad-${Date.now()}@example.test`;
    await enqueueMail(db.sql, { kind: "billing_reminder", to, subject: "s", text: "t" });
    await enqueueMail(db.sql, { kind: "billing_reminder", to: bad, subject: "s", text: "t" });
    const sent: string[] = [];
    let failNext = true;
    const mailer: Mailer = {
      async send(m) {
        if (m.to === bad) throw Object.assign(new Error("mailbox unavailable"), { responseCode: 550 });
        if (m.to === to && failNext) {
          failNext = false;
          throw Object.assign(new Error("try later"), { responseCode: 451 });
        }
        sent.push(m.to);
      },
    };
    const policy = { attempts: 3, baseMs: 1, maxMs: 1 };
    const deps = { sql: db.sql, box, mailer, log: silentLogger };
    await deliverMail(deps, { policy });
    expect(await rowsTo(bad, db.sql)).toEqual([{ kind: "billing_reminder", status: "failed", attempts: 1, sealed: false, text_body: "", last_error: "SMTP: mailbox unavailable" }]);
    expect((await rowsTo(to, db.sql))[0]).toMatchObject({ status: "pending", attempts: 1, last_error: "SMTP: try later" });
    await Bun.sleep(20);
    await deliverMail(deps, { policy });
    expect(sent).toEqual([to]);
    expect((await rowsTo(to, db.sql))[0]).toMatchObject({ status: "sent", attempts: 2, last_error: null });
    await db.drop();
  });
});
