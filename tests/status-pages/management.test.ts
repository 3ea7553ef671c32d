import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import * as packet from "dns-packet";
import { domainResolver } from "../../domain/status-pages/domain.ts";
import { startDnsServer, type TestDnsServer } from "../../runner/checks/test-support/dns-server.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";
import { eventually, orgWithPage } from "./support.ts";

let api: TestApi;
let dns: TestDnsServer;
const zone: Record<string, packet.Answer[]> = {};
beforeAll(async () => {
  api = await startTestApi();
  dns = await startDnsServer(zone);
  domainResolver.servers = [dns.address];
});
afterAll(async () => {
  domainResolver.servers = null;
  await dns.stop();
  await api.stop();
});

describe("status pages API", () => {
  it("creates, reads, lists, updates and deletes a page", async () => {
    const org = await makeOrg(api.sql, "pro");
    const call = client(api.url, { key: org.api_key });
    const slug = `crud-${Date.now().toString(36)}`;
    const created = await call("POST", "/api/v1/status-pages", { name: "Acme", slug, theme_id: "dark", access: { mode: "password", password: "a good password" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Acme", slug, theme_id: "dark", access: { mode: "password", password_set: true, ip_allowlist: [] }, custom_domain: null, suspended: false });
    expect(JSON.stringify(created.body)).not.toContain("a good password");
    expect((await call("GET", `/api/v1/status-pages/${created.body.id}`)).body.name).toBe("Acme");
    expect((await call("GET", "/api/v1/status-pages")).body.pagination.total).toBe(1);
    const patched = await call("PATCH", `/api/v1/status-pages/${created.body.id}`, { name: "Acme Inc", access: { mode: "public" } });
    expect(patched.body).toMatchObject({ name: "Acme Inc", access: { mode: "public", password_set: false } });
    expect((await call("DELETE", `/api/v1/status-pages/${created.body.id}`)).status).toBe(204);
    expect((await call("GET", `/api/v1/status-pages/${created.body.id}`)).status).toBe(404);
  });

  it("answers 409 CONFLICT for a slug another organisation already uses", async () => {
    const { slug } = await orgWithPage(api);
    const other = await makeOrg(api.sql, "pro");
    const r = await client(api.url, { key: other.api_key })("POST", "/api/v1/status-pages", { name: "Mine", slug });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("CONFLICT");
  });

  it("refuses a password page without a password and an unknown theme", async () => {
    const org = await makeOrg(api.sql, "pro");
    const call = client(api.url, { key: org.api_key });
    expect((await call("POST", "/api/v1/status-pages", { name: "x", slug: `np-${Date.now()}`, access: { mode: "password" } })).status).toBe(400);
    expect((await call("POST", "/api/v1/status-pages", { name: "x", slug: `nt-${Date.now()}`, theme_id: "neon" })).status).toBe(400);
  });

  it("enforces the plan's status-page quota", async () => {
    const org = await makeOrg(api.sql, "free");
    const call = client(api.url, { key: org.api_key });
    expect((await call("POST", "/api/v1/status-pages", { name: "one", slug: `q1-${Date.now()}` })).status).toBe(201);
    const second = await call("POST", "/api/v1/status-pages", { name: "two", slug: `q2-${Date.now()}` });
    expect(second.status).toBe(403);
    expect(second.body.code).toBe("ENTITLEMENT_REQUIRED");
  });

  it("keeps component ids across a layout change and refuses foreign monitors", async () => {
    const { call, pageId, componentIds, apiMon } = await orgWithPage(api);
    const layout = await call("PUT", `/api/v1/status-pages/${pageId}/layout`, {
      sections: [{ name: "Only", components: [{ id: componentIds[1], monitor_id: apiMon, display_name: "Renamed" }, { tag: "core", display_name: "New group" }] }],
    });
    expect(layout.status).toBe(200);
    expect(layout.body.sections[0].components[0]).toMatchObject({ id: componentIds[1], display_name: "Renamed" });
    expect(layout.body.sections[0].components[1].id).toStartWith("spc_");
    const other = await orgWithPage(api);
    const bad = await call("PUT", `/api/v1/status-pages/${pageId}/layout`, { sections: [{ name: "x", components: [{ monitor_id: other.apiMon, display_name: "theirs" }] }] });
    expect(bad.status).toBe(400);
    const both = await call("PUT", `/api/v1/status-pages/${pageId}/layout`, { sections: [{ name: "x", components: [{ monitor_id: apiMon, tag: "core", display_name: "both" }] }] });
    expect(both.status).toBe(400);
  });

  it("another organisation's page answers 404", async () => {
    const { pageId } = await orgWithPage(api);
    const other = await makeOrg(api.sql, "pro");
    expect((await client(api.url, { key: other.api_key })("GET", `/api/v1/status-pages/${pageId}`)).status).toBe(404);
  });
});

describe("custom domains", () => {
  it("refuses a custom domain on the Free plan", async () => {
    const { call, pageId } = await orgWithPage(api, { plan: "free" });
    const r = await call("POST", `/api/v1/status-pages/${pageId}/domain`, { domain: "status.free.example" });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("ENTITLEMENT_REQUIRED");
  });

  it("verifies the TXT record, then serves the page on its domain; a downgrade to Free stops it", async () => {
    const { call, pageId, org } = await orgWithPage(api, { plan: "pro" });
    const domain = `status-${Date.now().toString(36)}.acme.example`;
    const set = await call("POST", `/api/v1/status-pages/${pageId}/domain`, { domain });
    expect(set.status).toBe(200);
    const txt = set.body.custom_domain.txt_record;
    expect(txt).toMatchObject({ type: "TXT", name: `_watchpost-verify.${domain}` });
    expect(set.body.custom_domain.verified).toBe(false);

    const early = await call("POST", `/api/v1/status-pages/${pageId}/domain/verify`);
    expect(early.status).toBe(409);
    const viaHost = () => fetch(`${api.url}/`, { headers: { host: domain } });
    expect(await (await viaHost()).text()).not.toContain("Acme Status");

    zone[txt.name] = [{ type: "TXT", name: txt.name, ttl: 60, data: [txt.value] } as packet.Answer];
    const ok = await call("POST", `/api/v1/status-pages/${pageId}/domain/verify`);
    expect(ok.status).toBe(200);
    expect(ok.body.custom_domain).toMatchObject({ verified: true, active: true });

    const page = await viaHost();
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Acme Status");
    expect(html).toContain('action="/subscribe"');
    expect((await (await fetch(`${api.url}/index.json`, { headers: { host: domain } })).json()).page.name).toBe("Acme Status");
    // A confirmation link on the domain asks (GET) and its button posts to the domain's own /confirm.
    const email = `dom-${Date.now()}@example.test`;
    await fetch(`${api.url}/subscribe`, { method: "POST", headers: { host: domain, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ email }) });
    await api.flushMail();
    const token = /confirm\?token=(\S+)/.exec(api.mailer.sent.filter((m) => m.to === email).at(-1)!.text)![1]!;
    const ask = await (await fetch(`${api.url}/confirm?token=${token}`, { headers: { host: domain } })).text();
    expect(ask).toContain(`action="/confirm?token=${token}"`);
    const subscribers = async () => (await call("GET", `/api/v1/status-pages/${pageId}/subscribers`)).body.data as { confirmed: boolean }[];
    expect((await subscribers())[0]!.confirmed).toBe(false);
    expect(await (await fetch(`${api.url}/confirm?token=${token}`, { method: "POST", headers: { host: domain } })).text()).toContain("Subscribed");
    expect((await subscribers())[0]!.confirmed).toBe(true);

    await api.sql`update organisations set plan_id = 'free' where id = ${org.org_id}`;
    const after = await eventually(viaHost, (r) => r.status !== 200 || !r.headers.get("content-type")?.includes("text/html"));
    expect((await after.text()).includes("Acme Status")).toBe(false);
  });

  it("refuses a domain another page already uses", async () => {
    const a = await orgWithPage(api, { plan: "pro" });
    const b = await orgWithPage(api, { plan: "pro" });
    const domain = `dup-${Date.now().toString(36)}.example.org`;
    expect((await a.call("POST", `/api/v1/status-pages/${a.pageId}/domain`, { domain })).status).toBe(200);
    expect((await b.call("POST", `/api/v1/status-pages/${b.pageId}/domain`, { domain })).status).toBe(409);
  });
});

describe("themes", () => {
  it("lists the built-in themes, which are read-only", async () => {
    const org = await makeOrg(api.sql, "pro");
    const call = client(api.url, { key: org.api_key });
    const list = await call("GET", "/api/v1/themes");
    expect(list.body.data.map((t: { id: string }) => t.id)).toEqual(["light", "dark", "high-contrast"]);
    expect((await call("PATCH", "/api/v1/themes/dark", { name: "x" })).status).toBe(403);
  });

  it("refuses unsafe custom CSS and applies a safe theme to the page", async () => {
    const { call, pageId, slug } = await orgWithPage(api);
    for (const css of [
      "@import url(https://evil.example/x.css);",
      "body{background:url(javascript:alert(1))}",
      "div{width:expression(alert(1))}",
      "</style><script>alert(1)</script>",
      "body{behavior:url(x.htc)}",
      "body{background:url(\"java\\73 cript:alert(1)\")}",
    ]) {
      const r = await call("POST", "/api/v1/themes", { name: "bad", custom_css: css });
      expect(r.status, css).toBe(400);
    }
    const theme = await call("POST", "/api/v1/themes", {
      name: "Brand",
      colors: { accent: "#ff6600", background: "#fafafa" },
      logo_url: "https://cdn.example.com/logo.png",
      custom_css: "h1{letter-spacing:.02em;background:url(https://cdn.example.com/bg.png)}",
    });
    expect(theme.status).toBe(201);
    expect((await call("PATCH", `/api/v1/status-pages/${pageId}`, { theme_id: theme.body.id })).status).toBe(200);
    const html = await eventually(async () => (await fetch(`${api.url}/status/${slug}`)).text(), (h) => h.includes("--wp-accent:#ff6600"));
    expect(html).toContain("--wp-accent:#ff6600");
    expect(html).toContain("letter-spacing:.02em");
    expect(html).toContain('src="https://cdn.example.com/logo.png"');
    expect((await call("DELETE", `/api/v1/themes/${theme.body.id}`)).status).toBe(409);
  });
});

describe("incidents", () => {
  it("creates, updates, resolves and lists incidents with their timeline and live events", async () => {
    const { call, pageId, componentIds, org } = await orgWithPage(api);
    const events: { type: string; data: { id: string } }[] = [];
    const off = api.bus.subscribeEvents<{ type: string; data: { id: string } }>(`events.${org.org_id}`, (e) => void events.push(e));
    const created = await call("POST", "/api/v1/incidents", { title: "Slow API", impact: "minor", message: "We are investigating", component_ids: [componentIds[0]] });
    expect(created.status).toBe(201);
    // page_ids are the pages named on their own; shown_page_ids adds the pages of the affected components.
    expect(created.body).toMatchObject({ status: "investigating", page_ids: [], shown_page_ids: [pageId], component_ids: [componentIds[0]] });
    const id = created.body.id;
    const upd = await call("POST", `/api/v1/incidents/${id}/updates`, { status: "identified", message: "Found a bad deploy" });
    expect(upd.status).toBe(201);
    expect(upd.body.updates.map((u: { status: string }) => u.status)).toEqual(["identified", "investigating"]);
    expect((await call("GET", "/api/v1/incidents?status=active")).body.data.map((i: { id: string }) => i.id)).toContain(id);
    const resolved = await call("POST", `/api/v1/incidents/${id}/resolve`, { message: "Rolled back" });
    expect(resolved.status).toBe(200);
    expect(resolved.body.status).toBe("resolved");
    expect(resolved.body.resolved_at).toBeTruthy();
    const list = await call("GET", `/api/v1/incidents?page_id=${pageId}&status=resolved&limit=5`);
    expect(list.body.data[0].id).toBe(id);
    expect(list.body.data[0].updates).toHaveLength(3);
    expect((await call("GET", "/api/v1/incidents?status=active")).body.data.map((i: { id: string }) => i.id)).not.toContain(id);
    await eventually(async () => events.length, (n) => n >= 3);
    off();
    expect(events.map((e) => e.type)).toEqual(["incident.created", "incident.updated", "incident.resolved"]);
  });

  it("keeps the pages named apart from the components' pages: taking the component off takes the page off", async () => {
    const { call, pageId, componentIds } = await orgWithPage(api);
    const created = await call("POST", "/api/v1/incidents", { title: "Slow API", impact: "minor", message: "m", component_ids: [componentIds[0]] });
    const moved = await call("PATCH", `/api/v1/incidents/${created.body.id}`, { component_ids: [] });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ page_ids: [], shown_page_ids: [], component_ids: [] });
    expect((await call("GET", `/api/v1/incidents?page_id=${pageId}`)).body.data).toEqual([]);
    // Named on its own, the page stays when the component goes.
    const named = await call("POST", "/api/v1/incidents", { title: "Maintenance", impact: "none", message: "m", component_ids: [componentIds[0]], page_ids: [pageId] });
    expect(named.body).toMatchObject({ page_ids: [pageId], shown_page_ids: [pageId] });
    const kept = await call("PATCH", `/api/v1/incidents/${named.body.id}`, { component_ids: [] });
    expect(kept.body).toMatchObject({ page_ids: [pageId], shown_page_ids: [pageId], component_ids: [] });
  });

  it("refuses components of another organisation", async () => {
    const a = await orgWithPage(api);
    const b = await orgWithPage(api);
    const r = await a.call("POST", "/api/v1/incidents", { title: "x", impact: "none", message: "m", component_ids: [b.componentIds[0]] });
    expect(r.status).toBe(400);
  });
});
