import { storeResults } from "../../domain/results/ingest.ts";
import { makeResult } from "../../domain/results/test-fixtures.ts";
import type { ResultStatus } from "../../domain/results/types.ts";
import { client, makeOrg, type TestApi } from "../support/api.ts";

export type Call = ReturnType<typeof client>;

/** An organisation with two http monitors ("api" tagged core, "web" tagged core) and a public page showing them. */
export async function orgWithPage(api: TestApi, opts: { plan?: string; slug?: string; access?: Record<string, unknown> } = {}) {
  const org = await makeOrg(api.sql, opts.plan ?? "business");
  const call = client(api.url, { key: org.api_key });
  const mk = async (name: string) => {
    const r = await call("POST", "/api/v1/monitors", { name, type: "http", config: { url: "https://example.com" }, interval_seconds: 300, tags: ["core"], paused: true });
    if (r.status !== 201) throw new Error(`monitor: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.id as string;
  };
  const apiMon = await mk("API");
  const webMon = await mk("Website");
  await api.sql`update monitors set paused = false, status = 'up' where id = any(${[apiMon, webMon]})`;
  const slug = opts.slug ?? `p-${Math.random().toString(36).slice(2, 10)}`;
  const page = await call("POST", "/api/v1/status-pages", { name: "Acme Status", slug, description: "Our services", ...(opts.access ? { access: opts.access } : {}) });
  if (page.status !== 201) throw new Error(`page: ${page.status} ${JSON.stringify(page.body)}`);
  const layout = await call("PUT", `/api/v1/status-pages/${page.body.id}/layout`, {
    sections: [
      { name: "Services", components: [{ monitor_id: apiMon, display_name: "Public API", description: "REST API" }, { monitor_id: webMon, display_name: "Website" }] },
      { name: "Groups", components: [{ tag: "core", display_name: "Core platform" }] },
    ],
  });
  if (layout.status !== 200) throw new Error(`layout: ${layout.status} ${JSON.stringify(layout.body)}`);
  const componentIds = layout.body.sections.flatMap((s: { components: { id: string }[] }) => s.components.map((c) => c.id)) as string[];
  return { org, call, apiMon, webMon, slug, pageId: page.body.id as string, componentIds };
}

/** Stores `n` results of one status for a monitor, one a minute ending now (updates rollups and status). */
export async function storeRun(api: TestApi, orgId: string, monitorId: string, status: ResultStatus, n = 5, durationMs = 120) {
  const now = Date.now();
  await storeResults(api.sql, Array.from({ length: n }, (_, i) => makeResult(orgId, monitorId, new Date(now - (n - i) * 60_000), status, { duration_ms: durationMs })));
}

/** Polls until `check` passes (cache invalidation arrives by NOTIFY, a few milliseconds later). */
export async function eventually<T>(fn: () => Promise<T>, check: (v: T) => boolean, timeoutMs = 3000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (check(v) || Date.now() > until) return v;
    await Bun.sleep(25);
  }
}

export async function signIn(baseUrl: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${baseUrl}/api/v1/auth/signin`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) });
  if (res.status !== 200) throw new Error(`signin ${res.status} ${await res.text()}`);
  return res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
}
