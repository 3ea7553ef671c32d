/**
 * A page's access mode holds on every public surface, not only its HTML: the JSON form, both
 * feeds, the subscribe form and the badges of its monitors and components.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { signUp, startTestApi, type TestApi } from "../support/api.ts";
import { orgWithPage, signIn } from "./support.ts";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
}, 60_000);
afterAll(() => api.stop(), 60_000);

type Page = Awaited<ReturnType<typeof orgWithPage>>;
const surfaces = (p: Page) => [
  `/status/${p.slug}`,
  `/status/${p.slug}/index.json`,
  `/status/${p.slug}/feed.rss`,
  `/status/${p.slug}/feed.atom`,
  `/badge/${p.apiMon}/status.svg`,
  `/badge/${p.apiMon}/uptime.svg?period=7d`,
  `/badge/${p.apiMon}/response-time.svg`,
  `/badge/${p.componentIds[0]}/status.svg`,
  `/badge/${p.componentIds[2]}/uptime.svg`,
];
/** Every surface's status for one caller, plus whether anything of the page leaked into a refusal. */
async function statuses(p: Page, cookie?: string) {
  const out: Record<string, number> = {};
  for (const path of surfaces(p)) {
    const res = await fetch(`${api.url}${path}`, { headers: cookie ? { cookie } : {}, redirect: "manual" });
    const body = await res.text();
    out[path] = res.status;
    if (res.status !== 200) expect(body, path).not.toContain("Public API");
  }
  const sub = await fetch(`${api.url}/status/${p.slug}/subscribe`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}) },
    body: "email=reader%40example.test",
  });
  out.subscribe = sub.status;
  return out;
}
const all = (p: Page, status: number, overrides: Record<string, number> = {}) => ({
  ...Object.fromEntries(surfaces(p).map((s) => [s, status])),
  subscribe: status,
  ...overrides,
});

describe("access modes on every public surface", () => {
  it("public: everything answers", async () => {
    const p = await orgWithPage(api);
    expect(await statuses(p)).toEqual(all(p, 200));
  });

  it("password: the page asks for it, data and feeds answer 401, badges and subscribe 404, until the password is given", async () => {
    const p = await orgWithPage(api, { access: { mode: "password", password: "open sesame" } });
    const [html, json, rss, atom] = surfaces(p);
    const locked = await statuses(p);
    expect(locked).toEqual(all(p, 404, { [html!]: 401, [json!]: 401, [rss!]: 401, [atom!]: 401 }));
    const login = await fetch(`${api.url}/status/${p.slug}/login`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "password=open+sesame", redirect: "manual" });
    expect(login.status).toBe(303);
    const cookie = login.headers.get("set-cookie")!;
    expect(cookie).toContain("Path=/;");
    expect(await statuses(p, cookie.split(";")[0])).toEqual(all(p, 200));
  });

  it("members: 404 everywhere for strangers and other organisations' users, everything for members", async () => {
    const p = await orgWithPage(api, { access: { mode: "members" } });
    expect(await statuses(p)).toEqual(all(p, 404));
    const stranger = await signUp(api.url);
    expect(await statuses(p, stranger.cookie)).toEqual(all(p, 404));
    const member = await signIn(api.url, p.org.email, p.org.password);
    expect(await statuses(p, member)).toEqual(all(p, 200));
  });

  it("IP allow-list: 404 everywhere from an address outside it, even with the password", async () => {
    const p = await orgWithPage(api, { access: { mode: "public", ip_allowlist: ["10.0.0.0/8", "2001:db8::/32"] } });
    expect(await statuses(p)).toEqual(all(p, 404));
    const member = await signIn(api.url, p.org.email, p.org.password);
    expect(await statuses(p, member)).toEqual(all(p, 404));
  });
});
