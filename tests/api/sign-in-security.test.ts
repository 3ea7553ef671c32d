import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import * as OTPAuth from "otpauth";
import { client, signUp, startTestApi, type TestApi } from "../support/api.ts";
import { orgWithPage } from "../status-pages/support.ts";

// TRUST_PROXY lets each request claim its own client address: the attacker below is distributed.
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ TRUST_PROXY: "true" });
});
afterAll(() => api.stop());

let ipCounter = 0;
const anotherIp = () => `198.51.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;

async function signIn(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await fetch(`${api.url}/api/v1/auth/signin`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": anotherIp(), ...headers },
    body: JSON.stringify(body),
  });
  const parsed = (await res.json()) as any;
  const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  return { status: res.status, body: parsed, headers: res.headers, cookie, call: client(api.url, { cookie, csrf: parsed.csrf_token }) };
}

/** Moves every per-account throttle of this email as far back in time as `seconds`: a wait without waiting. */
async function letTimePass(email: string, seconds: number) {
  const key = createHash("sha256").update(email.trim().toLowerCase()).digest();
  await api.sql`
    update sign_in_throttles set blocked_until = blocked_until - make_interval(secs => ${seconds}),
      last_attempt_at = last_attempt_at - make_interval(secs => ${seconds}) where account_key = ${key}`;
}

/** Waits while the current 30 s TOTP step has under 6 s left, so step t-1, t and t+1 stay valid through a test. */
async function awayFromStepEdge() {
  while (30 - ((Date.now() / 1000) % 30) < 6) await Bun.sleep(500);
}

const totpFor = (secret: string) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: "SHA1" });
const codeAt = (totp: OTPAuth.TOTP, steps: number) => totp.generate({ timestamp: Date.now() + steps * 30_000 });
const wrongCode = (totp: OTPAuth.TOTP) => {
  const valid = new Set([-1, 0, 1].map((s) => codeAt(totp, s)));
  let n = 123456;
  while (valid.has(String(n))) n++;
  return String(n);
};

/** A signed-up user with 2FA on, enabled with the code of the previous step (so the current and next are unused). */
async function userWithTwoFactor() {
  await awayFromStepEdge();
  const user = await signUp(api.url);
  const setup = await user.call("POST", "/api/v1/user/2fa/setup");
  const totp = totpFor(setup.body.secret);
  const enabled = await user.call("POST", "/api/v1/user/2fa/enable", { code: codeAt(totp, -1) });
  expect(enabled.status).toBe(200);
  return { ...user, totp, recoveryCodes: enabled.body.recovery_codes as string[] };
}

describe("per-account sign-in throttle", () => {
  it("delays an account after five wrong passwords from five different addresses, with 429 and Retry-After, even for the right password", async () => {
    const user = await signUp(api.url);
    for (let i = 0; i < 5; i++) expect((await signIn({ email: user.email, password: `wrong guess ${i}` })).status).toBe(401);
    const refused = await signIn({ email: user.email, password: user.password });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("RATE_LIMIT_EXCEEDED");
    expect(refused.body.details.retryAfterSeconds).toBeGreaterThan(0);
    expect(refused.body.details.retryAfterSeconds).toBeLessThanOrEqual(15);
    expect(Number(refused.headers.get("retry-after"))).toBe(refused.body.details.retryAfterSeconds);
    expect(refused.headers.getSetCookie()).toEqual([]);
  });

  it("lets no more than five of twenty parallel guesses be checked", async () => {
    const user = await signUp(api.url);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => signIn({ email: user.email, password: `parallel guess ${i}` })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
  });

  it("doubles the delay with each further failure up to five minutes, and a successful sign-in clears it", async () => {
    const user = await signUp(api.url);
    for (let i = 0; i < 5; i++) await signIn({ email: user.email, password: "wrong guess" });
    const delays: number[] = [];
    for (let i = 0; i < 7; i++) {
      await letTimePass(user.email, 400);
      expect((await signIn({ email: user.email, password: "wrong guess" })).status).toBe(401);
      delays.push((await signIn({ email: user.email, password: "wrong guess" })).body.details.retryAfterSeconds);
    }
    // Retry-After counts down from the failure: a loaded machine may take a second between the two requests.
    const expected = [30, 60, 120, 240, 300, 300, 300];
    delays.forEach((d, i) => expect(expected[i]! - d).toBeWithin(0, 3));

    await letTimePass(user.email, 400);
    expect((await signIn({ email: user.email, password: user.password })).status).toBe(200);
    // Cleared: four wrong passwords in a row are answered 401 again, not 429.
    for (let i = 0; i < 4; i++) expect((await signIn({ email: user.email, password: "wrong again" })).status).toBe(401);
    expect((await signIn({ email: user.email, password: user.password })).status).toBe(200);
  });

  it("forgets old failures after fifteen quiet minutes", async () => {
    const user = await signUp(api.url);
    for (let i = 0; i < 4; i++) await signIn({ email: user.email, password: "wrong guess" });
    await letTimePass(user.email, 15 * 60 + 1);
    for (let i = 0; i < 4; i++) expect((await signIn({ email: user.email, password: "wrong guess" })).status).toBe(401);
    expect((await signIn({ email: user.email, password: user.password })).status).toBe(200);
  });

  it("counts wrong TOTP codes and recovery codes too", async () => {
    const user = await userWithTwoFactor();
    for (let i = 0; i < 4; i++) expect((await signIn({ email: user.email, password: user.password, totp_code: wrongCode(user.totp) })).status).toBe(401);
    expect((await signIn({ email: user.email, password: user.password, recovery_code: "aaaa-bbbb-cccc-dddd" })).status).toBe(401);
    const refused = await signIn({ email: user.email, password: user.password, totp_code: codeAt(user.totp, 0) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).not.toBeNull();
  });

  it("throttles an email without an account exactly like one with an account", async () => {
    const email = `nobody-${Date.now().toString(36)}@example.test`;
    for (let i = 0; i < 5; i++) expect((await signIn({ email, password: "whatever it is" })).status).toBe(401);
    expect((await signIn({ email: email.toUpperCase(), password: "whatever it is" })).status).toBe(429);
  });

  it("throttles password guesses through a stolen session: the current password of a profile change", async () => {
    const user = await signUp(api.url);
    for (let i = 0; i < 5; i++) {
      expect((await user.call("PATCH", "/api/v1/user", { email: `new-${i}-${user.email}`, current_password: `wrong guess ${i}` })).status).toBe(400);
    }
    const refused = await user.call("PATCH", "/api/v1/user", { email: `new-${user.email}`, current_password: user.password });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).not.toBeNull();
    expect((await signIn({ email: user.email, password: user.password })).status).toBe(429);
  });

  it("lets a password reset clear the delay", async () => {
    const user = await signUp(api.url);
    for (let i = 0; i < 6; i++) await signIn({ email: user.email, password: "wrong guess" });
    const before = api.mailer.sent.length;
    await client(api.url)("POST", "/api/v1/auth/password-reset/request", { email: user.email });
    await api.flushMail();
    const token = api.mailer.sent.slice(before)[0]!.text.match(/token[^:]*: (\S+)/)![1]!;
    expect((await client(api.url)("POST", "/api/v1/auth/password-reset/confirm", { token, password: "a brand new password" })).status).toBe(200);
    expect((await signIn({ email: user.email, password: "a brand new password" })).status).toBe(200);
  });
});

describe("TOTP codes are single-use", () => {
  it("refuses a code that was already accepted for sign-in, within its window", async () => {
    const user = await userWithTwoFactor();
    const code = codeAt(user.totp, 0);
    expect((await signIn({ email: user.email, password: user.password, totp_code: code })).status).toBe(200);
    const replay = await signIn({ email: user.email, password: user.password, totp_code: code });
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe("UNAUTHENTICATED");
    // Nor an older step than the last accepted one.
    expect((await signIn({ email: user.email, password: user.password, totp_code: codeAt(user.totp, -1) })).status).toBe(401);
    expect((await signIn({ email: user.email, password: user.password, totp_code: codeAt(user.totp, 1) })).status).toBe(200);
  });

  it("refuses at sign-in the code that turned 2FA on, and at disable a code used to sign in", async () => {
    await awayFromStepEdge();
    const user = await signUp(api.url);
    const totp = totpFor((await user.call("POST", "/api/v1/user/2fa/setup")).body.secret);
    const code = codeAt(totp, 0);
    expect((await user.call("POST", "/api/v1/user/2fa/enable", { code })).status).toBe(200);
    expect((await signIn({ email: user.email, password: user.password, totp_code: code })).status).toBe(401);
    const next = codeAt(totp, 1);
    const session = await signIn({ email: user.email, password: user.password, totp_code: next });
    expect(session.status).toBe(200);
    expect((await session.call("POST", "/api/v1/user/2fa/disable", { code: next })).status).toBe(400);
  });
});

describe("recovery codes", () => {
  it("issues ten distinct codes once when 2FA is turned on, stored only as digests", async () => {
    const user = await userWithTwoFactor();
    expect(user.recoveryCodes).toHaveLength(10);
    expect(new Set(user.recoveryCodes).size).toBe(10);
    for (const c of user.recoveryCodes) expect(c).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
    const rows = await api.sql<{ code_hash: Buffer }[]>`select code_hash from recovery_codes where user_id = ${user.userId}`;
    expect(rows).toHaveLength(10);
    const stored = JSON.stringify(await api.sql`select * from recovery_codes where user_id = ${user.userId}`);
    for (const c of user.recoveryCodes) expect(stored).not.toContain(c.replaceAll("-", ""));
    expect(JSON.stringify((await user.call("GET", "/api/v1/user")).body)).not.toContain(user.recoveryCodes[0]!);
  });

  it("signs in with a recovery code in place of a TOTP code, once per code, however it is typed", async () => {
    const user = await userWithTwoFactor();
    const [first, second] = user.recoveryCodes as [string, string];
    const ok = await signIn({ email: user.email, password: user.password, recovery_code: first });
    expect(ok.status).toBe(200);
    expect(ok.body.user.two_factor_enabled).toBe(true);
    expect((await signIn({ email: user.email, password: user.password, recovery_code: first })).status).toBe(401);
    expect((await signIn({ email: user.email, password: user.password, recovery_code: ` ${second.toUpperCase().replaceAll("-", " ")} ` })).status).toBe(200);
    // The right password is still needed with a recovery code.
    expect((await signIn({ email: user.email, password: "not the password", recovery_code: user.recoveryCodes[2] })).status).toBe(401);
    expect((await signIn({ email: user.email, password: user.password, recovery_code: user.recoveryCodes[2] })).status).toBe(200);
  });

  it("refuses a body with both a TOTP code and a recovery code", async () => {
    const user = await userWithTwoFactor();
    const res = await signIn({ email: user.email, password: user.password, totp_code: codeAt(user.totp, 0), recovery_code: user.recoveryCodes[0] });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
  });

  it("regenerates ten new codes with the password or a TOTP code, and the old ones stop working", async () => {
    const user = await userWithTwoFactor();
    const wrong = await user.call("POST", "/api/v1/user/2fa/recovery-codes", { password: "not the password" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe("VALIDATION_ERROR");
    expect((await user.call("POST", "/api/v1/user/2fa/recovery-codes", {})).status).toBe(400);

    const byPassword = await user.call("POST", "/api/v1/user/2fa/recovery-codes", { password: user.password });
    expect(byPassword.status).toBe(200);
    expect(byPassword.body.recovery_codes).toHaveLength(10);
    expect(byPassword.body.recovery_codes).not.toContain(user.recoveryCodes[0]);
    expect((await signIn({ email: user.email, password: user.password, recovery_code: user.recoveryCodes[0] })).status).toBe(401);

    const code = codeAt(user.totp, 0);
    const byCode = await user.call("POST", "/api/v1/user/2fa/recovery-codes", { code });
    expect(byCode.status).toBe(200);
    expect((await user.call("POST", "/api/v1/user/2fa/recovery-codes", { code })).status).toBe(400);
    expect((await signIn({ email: user.email, password: user.password, recovery_code: byPassword.body.recovery_codes[0] })).status).toBe(401);
    expect((await signIn({ email: user.email, password: user.password, recovery_code: byCode.body.recovery_codes[0] })).status).toBe(200);
  });

  it("refuses to regenerate without 2FA, and drops the codes when 2FA is turned off with a recovery code", async () => {
    const plain = await signUp(api.url);
    expect((await plain.call("POST", "/api/v1/user/2fa/recovery-codes", { password: plain.password })).status).toBe(409);

    const user = await userWithTwoFactor();
    const off = await user.call("POST", "/api/v1/user/2fa/disable", { recovery_code: user.recoveryCodes[0] });
    expect(off.status).toBe(200);
    expect(off.body.two_factor_enabled).toBe(false);
    expect((await api.sql`select 1 from recovery_codes where user_id = ${user.userId}`).length).toBe(0);
  });
});

describe("login CSRF", () => {
  const evil = { origin: "https://evil.example", "sec-fetch-site": "cross-site" };

  it("refuses sign-in and sign-up from another site's form, without setting a cookie", async () => {
    const user = await signUp(api.url);
    const variants: Record<string, string>[] = [evil, { origin: "https://evil.example" }, { "sec-fetch-site": "cross-site" }, { origin: "null" }];
    for (const headers of variants) {
      const res = await signIn({ email: user.email, password: user.password }, headers);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: "PERMISSION_DENIED", details: { reason: "cross_site" } });
      expect(res.headers.getSetCookie()).toEqual([]);
    }
    const up = await fetch(`${api.url}/api/v1/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...evil },
      body: `email=victim-${Date.now()}%40example.test&password=attacker+password&name=X`,
    });
    expect(up.status).toBe(403);
    expect(up.headers.getSetCookie()).toEqual([]);
  });

  it("accepts sign-in from the dashboard's own origin and from clients that send no browser headers", async () => {
    const user = await signUp(api.url);
    expect((await signIn({ email: user.email, password: user.password }, { origin: api.url, "sec-fetch-site": "same-origin" })).status).toBe(200);
    expect((await signIn({ email: user.email, password: user.password }, { "sec-fetch-site": "none" })).status).toBe(200);
    expect((await signIn({ email: user.email, password: user.password })).status).toBe(200);
  });

  it("refuses a cross-site cookie write even with the CSRF token, and a cross-site 2FA step", async () => {
    const user = await userWithTwoFactor();
    const write = await user.call("PATCH", "/api/v1/user", { name: "Renamed" }, evil);
    expect(write.status).toBe(403);
    expect(write.body.details.reason).toBe("cross_site");
    const second = await signIn({ email: user.email, password: user.password, totp_code: codeAt(user.totp, 0) }, evil);
    expect(second.status).toBe(403);
    // The refused attempt neither used the code nor counted against the account.
    expect((await signIn({ email: user.email, password: user.password, totp_code: codeAt(user.totp, 0) })).status).toBe(200);
  });
});

describe("a status page's password (the same defects on the other sign-in form)", () => {
  const login = (slug: string, password: string, headers: Record<string, string> = {}) =>
    fetch(`${api.url}/status/${slug}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": anotherIp(), ...headers },
      body: new URLSearchParams({ password }),
      redirect: "manual",
    });

  it("delays a page after five wrong passwords from five addresses, then even the right one, with Retry-After", async () => {
    const { slug } = await orgWithPage(api, { access: { mode: "password", password: "open sesame" } });
    for (let i = 0; i < 5; i++) expect((await login(slug, `wrong ${i}`)).status).toBe(401);
    const refused = await login(slug, "open sesame");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("set-cookie")).toBeNull();
  });

  it("refuses a password form posted from another site", async () => {
    const { slug } = await orgWithPage(api, { access: { mode: "password", password: "open sesame" } });
    const res = await login(slug, "open sesame", { origin: "https://evil.example", "sec-fetch-site": "cross-site" });
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect((await login(slug, "open sesame", { origin: new URL(api.url).origin, "sec-fetch-site": "same-origin" })).status).toBe(303);
  });
});
