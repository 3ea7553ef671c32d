import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { startTestApi, type TestApi, signUp } from "../support/api.ts";
import { eventually, orgWithPage, signIn, storeRun } from "./support.ts";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api.stop();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${api.url}${path}`, { headers, redirect: "manual" });

describe("public status page", () => {
  it("renders a public page with components, statuses and 90 daily bars", async () => {
    const { slug, org, apiMon } = await orgWithPage(api);
    await storeRun(api, org.org_id, apiMon, "up", 3);
    const res = await get(`/status/${slug}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("etag")).toBeTruthy();
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).toContain("<html lang=\"en\">");
    expect(html).toContain("Public API");
    expect(html).toContain("Core platform");
    expect(html).toContain("All systems operational");
    expect(html).not.toContain("<script");
    expect(html.match(/<ol class="bars"/g)?.length).toBe(3);
    expect(html.match(/<li class="b?\d?" title="\d{4}-\d{2}-\d{2}: /g)?.length).toBe(270);
    expect(html).toContain('<p class="sr">90-day uptime 100.00%. No day below 99.9%.</p>');
    expect(html).toContain('action="/status/' + slug + '/subscribe"');
  });

  it("answers 304 to a matching If-None-Match", async () => {
    const { slug } = await orgWithPage(api);
    const first = await get(`/status/${slug}`);
    const again = await get(`/status/${slug}`, { "if-none-match": first.headers.get("etag")! });
    expect(again.status).toBe(304);
  });

  it("serves the same data as JSON, RSS and Atom", async () => {
    const { slug, call, componentIds } = await orgWithPage(api);
    await call("POST", "/api/v1/incidents", { title: "API errors", impact: "major", message: "Looking into it", component_ids: [componentIds[0]] });
    const json = await (await get(`/status/${slug}/index.json`)).json();
    expect(json.page.slug).toBe(slug);
    expect(json.status.indicator).toBe("partial_outage");
    expect(json.sections[0].components[0]).toMatchObject({ name: "Public API", status: "partial_outage" });
    expect(json.sections[0].components[0].bars).toHaveLength(90);
    expect(json.incidents.active[0]).toMatchObject({ title: "API errors", impact: "major", status: "investigating" });
    const rss = await (await get(`/status/${slug}/feed.rss`)).text();
    expect(rss).toContain("<rss version=\"2.0\"");
    expect(rss).toContain("API errors (investigating)");
    const atom = await get(`/status/${slug}/feed.atom`);
    expect(atom.headers.get("content-type")).toContain("application/atom+xml");
    expect(await atom.text()).toContain("<feed xmlns=\"http://www.w3.org/2005/Atom\">");
  });

  it("shows a monitor's status change at once despite the render cache", async () => {
    const { slug, org, webMon } = await orgWithPage(api);
    const before = await (await get(`/status/${slug}/index.json`)).json();
    expect(before.sections[0].components[1].status).toBe("operational");
    await storeRun(api, org.org_id, webMon, "down", 2);
    const after = await eventually(
      async () => (await get(`/status/${slug}/index.json`)).json(),
      (j) => j.sections[0].components[1].status === "major_outage",
    );
    expect(after.sections[0].components[1].status).toBe("major_outage");
    expect(after.sections[1].components[0].status).toBe("partial_outage");
    expect(after.status.indicator).toBe("major_outage");
  });

  it("shows upcoming and active maintenance of the page's monitors, and not other windows", async () => {
    const { slug, call, apiMon, webMon } = await orgWithPage(api);
    const at = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString();
    const upcoming = await call("POST", "/api/v1/maintenance-windows", { name: "Database upgrade", description: "Short read-only period", starts_at: at(48), ends_at: at(50), monitor_ids: [apiMon] });
    expect(upcoming.status).toBe(201);
    await call("POST", "/api/v1/maintenance-windows", { name: "Unrelated", starts_at: at(24), ends_at: at(25), tags: ["elsewhere"] });
    await call("POST", "/api/v1/maintenance-windows", { name: "CDN switch", starts_at: at(-1), ends_at: at(1), monitor_ids: [webMon] });
    const json = await eventually(async () => (await get(`/status/${slug}/index.json`)).json(), (j) => j.maintenance.length === 2);
    expect(json.maintenance.map((m: { name: string; state: string }) => [m.name, m.state])).toEqual([
      ["CDN switch", "active"],
      ["Database upgrade", "upcoming"],
    ]);
    expect(Math.abs(Date.parse(json.maintenance[1].starts_at) - Date.now() - 48 * 3_600_000)).toBeLessThan(60_000);
    expect(json.sections[0].components[1].status).toBe("maintenance");
    const html = await (await get(`/status/${slug}`)).text();
    expect(html).toContain("Scheduled maintenance");
    expect(html).toContain("Database upgrade");
    expect(html).not.toContain("Unrelated");
  });

  it("shows a suspension notice instead of a page suspended over the plan's quota", async () => {
    const { slug, pageId, apiMon } = await orgWithPage(api);
    expect((await get(`/status/${slug}`)).status).toBe(200);
    await api.sql`update status_pages set suspended = true where id = ${pageId}`;
    const notice = await eventually(() => get(`/status/${slug}`), (r) => r.status === 503);
    expect(notice.status).toBe(503);
    expect(notice.headers.get("cache-control")).toBe("no-store");
    expect(await notice.text()).toContain("This status page is suspended");
    const json = await get(`/status/${slug}/index.json`);
    expect(json.status).toBe(503);
    expect(((await json.json()) as { code: string }).code).toBe("STATUS_PAGE_SUSPENDED");
    expect((await get(`/badge/${apiMon}/status.svg`)).status).toBe(404);
    await api.sql`update status_pages set suspended = false where id = ${pageId}`;
    expect((await eventually(() => get(`/status/${slug}`), (r) => r.status === 200)).status).toBe(200);
  });

  it("keeps a suspended password-protected page hidden (404), as before", async () => {
    const { slug, pageId } = await orgWithPage(api, { access: { mode: "password", password: "open sesame" } });
    await api.sql`update status_pages set suspended = true where id = ${pageId}`;
    expect((await eventually(() => get(`/status/${slug}`), (r) => r.status === 404)).status).toBe(404);
  });

  it("answers 404 for an unknown slug", async () => {
    expect((await get("/status/no-such-page")).status).toBe(404);
  });
});

describe("access modes", () => {
  it("asks for the password, refuses a wrong one and accepts the right one", async () => {
    const { slug } = await orgWithPage(api, { access: { mode: "password", password: "open sesame" } });
    const form = await get(`/status/${slug}`);
    expect(form.status).toBe(401);
    const formHtml = await form.text();
    expect(formHtml).toContain('type="password"');
    expect(formHtml).not.toContain("Public API");
    expect((await get(`/status/${slug}/index.json`)).status).toBe(401);
    expect((await get(`/status/${slug}/feed.rss`)).status).toBe(401);

    const post = (password: string) =>
      fetch(`${api.url}/status/${slug}/login`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ password }), redirect: "manual" });
    const wrong = await post("wrong password");
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("That password is not right");
    expect(wrong.headers.get("set-cookie")).toBeNull();

    const right = await post("open sesame");
    expect(right.status).toBe(303);
    const cookie = right.headers.get("set-cookie")!;
    expect(cookie).toContain("HttpOnly");
    const pair = cookie.split(";")[0]!;
    const page = await get(`/status/${slug}`, { cookie: pair });
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toContain("private");
    expect(await page.text()).toContain("Public API");
    expect((await get(`/status/${slug}/index.json`, { cookie: pair })).status).toBe(200);
    // A tampered cookie is worthless.
    expect((await get(`/status/${slug}`, { cookie: `${pair}x` })).status).toBe(401);
  });

  it("changing the password invalidates existing access cookies", async () => {
    const { slug, call, pageId } = await orgWithPage(api, { access: { mode: "password", password: "first password" } });
    const login = await fetch(`${api.url}/status/${slug}/login`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "password=first+password", redirect: "manual" });
    const pair = login.headers.get("set-cookie")!.split(";")[0]!;
    expect((await get(`/status/${slug}`, { cookie: pair })).status).toBe(200);
    await call("PATCH", `/api/v1/status-pages/${pageId}`, { access: { mode: "password", password: "second password" } });
    const after = await eventually(() => get(`/status/${slug}`, { cookie: pair }), (r) => r.status === 401);
    expect(after.status).toBe(401);
  });

  it("shows a members-only page to members of the organisation and 404 to everyone else", async () => {
    const { slug, org } = await orgWithPage(api, { access: { mode: "members" } });
    expect((await get(`/status/${slug}`)).status).toBe(404);
    expect((await get(`/status/${slug}/index.json`)).status).toBe(404);
    const stranger = await signUp(api.url);
    expect((await get(`/status/${slug}`, { cookie: stranger.cookie })).status).toBe(404);
    const member = await signIn(api.url, org.email, org.password);
    const res = await get(`/status/${slug}`, { cookie: member });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Public API");
  });

  it("hides a page from addresses outside its IP allow-list", async () => {
    const { slug, call, pageId } = await orgWithPage(api, { access: { mode: "public", ip_allowlist: ["10.0.0.0/8"] } });
    expect((await get(`/status/${slug}`)).status).toBe(404);
    const patched = await call("PATCH", `/api/v1/status-pages/${pageId}`, { access: { mode: "public", ip_allowlist: ["127.0.0.0/8", "::1/128"] } });
    expect(patched.status).toBe(200);
    const ok = await eventually(() => get(`/status/${slug}`), (r) => r.status === 200);
    expect(ok.status).toBe(200);
  });

  it("refuses an allow-list entry that is not an address or range", async () => {
    const { call, pageId } = await orgWithPage(api);
    const r = await call("PATCH", `/api/v1/status-pages/${pageId}`, { access: { mode: "public", ip_allowlist: ["10.0.0.0/33"] } });
    expect(r.status).toBe(400);
  });
});
