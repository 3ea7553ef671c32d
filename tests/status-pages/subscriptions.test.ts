import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { SecretBox } from "../../core/crypto/secrets.ts";
import { signSubscriberToken } from "../../domain/status-pages/tokens.ts";
import { startTestApi, TEST_SECRET_KEY, type TestApi } from "../support/api.ts";
import { eventually, orgWithPage } from "./support.ts";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api.stop();
});

const box = new SecretBox(TEST_SECRET_KEY);
const linkIn = (text: string, pattern: RegExp) => pattern.exec(text)?.[0] ?? "";
/** Mail sent to `to` so far; queued mail is delivered first (the outbox). */
const mailsTo = async (to: string) => {
  await api.flushMail();
  return api.mailer.sent.filter((m) => m.to === to);
};

async function subscribeAndConfirm(slug: string, email: string) {
  const res = await fetch(`${api.url}/status/${slug}/subscribe`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ email }) });
  expect(res.status).toBe(200);
  expect(await res.text()).toContain("Check your inbox");
  await confirmFromMail(email);
}

/** Follows the confirmation email's link and presses its button. */
async function confirmFromMail(email: string) {
  const mail = (await mailsTo(email)).at(-1)!;
  expect(mail.subject).toContain("Confirm your subscription");
  expect(mail.headers?.["List-Unsubscribe"]).toMatch(/^<http:\/\/.+\/api\/v1\/unsubscribe\?token=.+>$/);
  const confirm = linkIn(mail.text, /http:\/\/\S+\/confirm\?token=\S+/);
  // The link asks; the button on the page (a POST to the same address) confirms.
  expect((await fetch(confirm, { headers: { accept: "text/html" } })).status).toBe(200);
  const confirmed = await fetch(confirm, { method: "POST", headers: { accept: "text/html", "content-type": "application/x-www-form-urlencoded" }, body: "" });
  expect(confirmed.status).toBe(200);
  expect(await confirmed.text()).toContain("Subscribed");
}

/** The form of an HTML page: its method, action (resolved against `base`) and hidden fields. */
function formOf(html: string, base: string) {
  const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/.exec(html);
  if (!form) return null;
  const attr = (name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(form[1]!)?.[1]?.replace(/&amp;/g, "&") ?? "";
  const fields = new URLSearchParams();
  for (const m of form[2]!.matchAll(/<input\b[^>]*type="hidden"[^>]*>/g)) {
    const name = /\bname="([^"]*)"/.exec(m[0])?.[1];
    if (name) fields.set(name, /\bvalue="([^"]*)"/.exec(m[0])?.[1] ?? "");
  }
  return { method: attr("method").toUpperCase(), action: new URL(attr("action"), base).toString(), fields, button: /<button\b[^>]*>([^<]*)<\/button>/.exec(form[2]!)?.[1] ?? "" };
}

describe("subscriptions", () => {
  it("double opt-in: an unconfirmed address gets no incident mail; a confirmed one does", async () => {
    const { slug, call, pageId, componentIds } = await orgWithPage(api);
    const pending = `pending-${Date.now()}@example.test`;
    await fetch(`${api.url}/status/${slug}/subscribe`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `email=${encodeURIComponent(pending)}` });
    const confirmed = `reader-${Date.now()}@example.test`;
    await subscribeAndConfirm(slug, confirmed);
    const subs = await call("GET", `/api/v1/status-pages/${pageId}/subscribers`);
    expect(subs.body.data.map((s: { email: string; confirmed: boolean }) => [s.email, s.confirmed]).sort()).toEqual([[confirmed, true], [pending, false]].sort());

    await call("POST", "/api/v1/incidents", { title: "Database failover", impact: "critical", message: "Primary is down", component_ids: [componentIds[0]] });
    const mails = await eventually(async () => (await mailsTo(confirmed)).filter((m) => m.subject.includes("Database failover")), (m) => m.length === 1);
    expect(mails[0]!.subject).toBe("[Acme Status] New incident: Database failover");
    expect(mails[0]!.headers).toMatchObject({ "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" });
    expect((await mailsTo(pending)).filter((m) => m.subject.includes("Database failover"))).toHaveLength(0);
  });

  it("confirms nothing on a GET of the confirmation link (a mail scanner's prefetch); the page's button confirms", async () => {
    const { slug, call, pageId } = await orgWithPage(api);
    const email = `prefetched-${Date.now()}@example.test`;
    await fetch(`${api.url}/status/${slug}/subscribe`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ email }) });
    const link = linkIn((await mailsTo(email)).at(-1)!.text, /http:\/\/\S+\/confirm\?token=\S+/);
    const confirmed = async () => ((await call("GET", `/api/v1/status-pages/${pageId}/subscribers`)).body.data as { email: string; confirmed: boolean }[]).find((s) => s.email === email)!.confirmed;
    for (const accept of ["text/html", "*/*"]) expect((await fetch(link, { headers: { accept } })).status).toBe(200);
    expect((await fetch(link, { method: "HEAD" })).status).toBe(200);
    expect(await confirmed()).toBe(false);
    const page = await (await fetch(link, { headers: { accept: "text/html" } })).text();
    const form = formOf(page, link)!;
    expect(form).toMatchObject({ method: "POST", action: link, button: "Confirm subscription" });
    const res = await fetch(form.action, { method: "POST", headers: { accept: "text/html", "content-type": "application/x-www-form-urlencoded" }, body: form.fields });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Subscribed");
    expect(await confirmed()).toBe(true);
  });

  it("refuses a confirmation link that was tampered with", async () => {
    const { slug } = await orgWithPage(api);
    expect((await fetch(`${api.url}/status/${slug}/confirm?token=abc.def`)).status).toBe(400);
    expect((await fetch(`${api.url}/status/${slug}/confirm?token=abc.def`, { method: "POST" })).status).toBe(400);
  });

  it("lets the organisation list and remove subscribers, and add a webhook subscriber", async () => {
    const { call, pageId } = await orgWithPage(api);
    const hook = await call("POST", `/api/v1/status-pages/${pageId}/subscribers`, { webhook_url: "https://hooks.example.com/status" });
    expect(hook.status).toBe(201);
    expect(hook.body).toMatchObject({ kind: "webhook", confirmed: true });
    const both = await call("POST", `/api/v1/status-pages/${pageId}/subscribers`, { webhook_url: "https://x.example", email: "a@b.example" });
    expect(both.status).toBe(400);
    expect((await call("DELETE", `/api/v1/status-pages/${pageId}/subscribers/${hook.body.id}`)).status).toBe(204);
    expect((await call("GET", `/api/v1/status-pages/${pageId}/subscribers`)).body.data).toHaveLength(0);
  });
});

describe("unsubscribe", () => {
  async function twoSubscribers() {
    const { call, pageId } = await orgWithPage(api);
    const a = `a-${Date.now()}@example.test`;
    const b = `b-${Date.now()}@example.test`;
    // Added by the organisation (the public form allows 10 a minute from one address), confirmed by mail.
    for (const email of [a, b]) {
      expect((await call("POST", `/api/v1/status-pages/${pageId}/subscribers`, { email })).status).toBe(201);
      await confirmFromMail(email);
    }
    const list = (await call("GET", `/api/v1/status-pages/${pageId}/subscribers`)).body.data as { id: string; email: string }[];
    return { call, pageId, a, b, subA: list.find((s) => s.email === a)!, list: async () => ((await call("GET", `/api/v1/status-pages/${pageId}/subscribers`)).body.data as { email: string }[]).map((s) => s.email) };
  }

  it("a good token removes exactly that subscription, and a second click still succeeds", async () => {
    const { a, b, list } = await twoSubscribers();
    const url = /<(.+)>/.exec((await mailsTo(a)).at(-1)!.headers!["List-Unsubscribe"]!)![1]!;
    const first = await fetch(url, { method: "POST" });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ unsubscribed: true, removed: true, page: "Acme Status" });
    expect(await list()).toEqual([b]);
    const again = await fetch(url, { method: "POST" });
    expect(again.status).toBe(200);
    expect((await again.json()).removed).toBe(false);
    expect(await list()).toEqual([b]);
  });

  it("supports RFC 8058 one-click POST and answers browsers with a page", async () => {
    const { a, b, list } = await twoSubscribers();
    const url = /<(.+)>/.exec((await mailsTo(b)).at(-1)!.headers!["List-Unsubscribe"]!)![1]!;
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
    expect(res.status).toBe(200);
    expect(await list()).toEqual([a]);
    // The link followed afterwards says so, and offers nothing more to click.
    const browser = await fetch(url, { headers: { accept: "text/html" } });
    expect(browser.status).toBe(200);
    const text = await browser.text();
    expect(text).toContain("not subscribed");
    expect(formOf(text, url)).toBeNull();
  });

  it("removes nothing on a GET of the link (a mail scanner's prefetch): it asks, and the page's button unsubscribes", async () => {
    const { a, b, list } = await twoSubscribers();
    const mail = (await mailsTo(a)).at(-1)!;
    const url = /<(.+)>/.exec(mail.headers!["List-Unsubscribe"]!)![1]!;
    // RFC 8058: the one-click header pair, so mail clients POST instead of following the link.
    expect(mail.headers).toMatchObject({ "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" });
    const asJson = await fetch(url);
    expect(asJson.status).toBe(200);
    expect(await asJson.json()).toEqual({ unsubscribed: false, subscribed: true, page: "Acme Status" });
    expect((await fetch(url, { method: "HEAD" })).status).toBe(200);
    const asked = await fetch(url, { headers: { accept: "text/html" } });
    expect(asked.status).toBe(200);
    expect(asked.headers.get("cache-control")).toBe("no-store");
    const form = formOf(await asked.text(), url)!;
    expect(form).toMatchObject({ method: "POST", action: url, button: "Unsubscribe" });
    expect(form.fields.get("List-Unsubscribe")).toBe("One-Click");
    expect((await list()).sort()).toEqual([a, b].sort());
    const done = await fetch(form.action, { method: "POST", headers: { accept: "text/html", "content-type": "application/x-www-form-urlencoded" }, body: form.fields });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("Unsubscribed");
    expect(await list()).toEqual([b]);
  });

  it("refuses a forged token, a token signed for confirmation, and an expired token", async () => {
    const { pageId, subA, a, list } = await twoSubscribers();
    const exp = Math.floor(Date.now() / 1000) + 3600;
    const forged = signSubscriberToken(new SecretBox("another-secret-key-0123456789abcdef0123"), "unsubscribe", { subscriberId: subA.id, pageId, exp });
    const wrongPurpose = signSubscriberToken(box, "confirm", { subscriberId: subA.id, pageId, exp });
    const expired = signSubscriberToken(box, "unsubscribe", { subscriberId: subA.id, pageId, exp: Math.floor(Date.now() / 1000) - 1 });
    const good = signSubscriberToken(box, "unsubscribe", { subscriberId: subA.id, pageId, exp });
    const [payload, sig] = good.split(".");
    const tampered = `${Buffer.from(`${subA.id}x:${pageId}:${exp}`).toString("base64url")}.${sig}`;
    for (const token of [forged, wrongPurpose, expired, tampered, `${payload}.`, "garbage"]) {
      for (const method of ["GET", "POST"]) {
        const r = await fetch(`${api.url}/api/v1/unsubscribe?token=${encodeURIComponent(token)}`, { method });
        expect(r.status, `${method} ${token}`).toBe(400);
        expect((await r.json()).code).toBe("VALIDATION_ERROR");
      }
    }
    expect((await list()).sort()).toContain(a);
    expect((await fetch(`${api.url}/api/v1/unsubscribe`)).status).toBe(400);
  });
});
