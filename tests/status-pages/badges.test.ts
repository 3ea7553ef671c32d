import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { BADGE_COLORS } from "../../domain/status-pages/badges.ts";
import { startTestApi, type TestApi } from "../support/api.ts";
import { eventually, orgWithPage, storeRun } from "./support.ts";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api.stop();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${api.url}${path}`, { headers });

async function svg(path: string): Promise<{ label: string; text: string; res: Response }> {
  const res = await get(path);
  const text = await res.text();
  return { res, text, label: /aria-label="([^"]*)"/.exec(text)?.[1] ?? "" };
}

function expectSvg(text: string, res: Response) {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("image/svg+xml");
  expect(text).toStartWith('<svg xmlns="http://www.w3.org/2000/svg"');
  expect(text.trimEnd()).toEndWith("</svg>");
}

describe("badges", () => {
  it("draws a monitor's status, uptime and response time in the right colours", async () => {
    const { org, apiMon } = await orgWithPage(api);
    await storeRun(api, org.org_id, apiMon, "up", 3, 150);
    const status = await svg(`/badge/${apiMon}/status.svg`);
    expectSvg(status.text, status.res);
    expect(status.label).toBe("status: up");
    expect(status.text).toContain(`fill="${BADGE_COLORS.good}"`);
    expect(status.res.headers.get("cache-control")).toContain("public");
    expect(status.res.headers.get("etag")).toBeTruthy();

    await storeRun(api, org.org_id, apiMon, "down", 1, 150);
    const down = await eventually(() => svg(`/badge/${apiMon}/status.svg`), (b) => b.label === "status: down");
    expect(down.label).toBe("status: down");
    expect(down.text).toContain(`fill="${BADGE_COLORS.bad}"`);

    const uptime = await svg(`/badge/${apiMon}/uptime.svg?period=24h`);
    expectSvg(uptime.text, uptime.res);
    expect(uptime.label).toBe("uptime 24h: 75%");
    expect(uptime.text).toContain(`fill="${BADGE_COLORS.bad}"`);

    const rt = await svg(`/badge/${apiMon}/response-time.svg`);
    expectSvg(rt.text, rt.res);
    expect(rt.label).toBe("response time 24h: 150 ms");
    expect(rt.text).toContain(`fill="${BADGE_COLORS.good}"`);
  });

  it("draws a component badge (a tag group) and says no data without results", async () => {
    const { componentIds } = await orgWithPage(api);
    const group = await svg(`/badge/${componentIds[2]}/status.svg`);
    expectSvg(group.text, group.res);
    expect(group.label).toBe("status: operational");
    const uptime = await svg(`/badge/${componentIds[2]}/uptime.svg?period=90d`);
    expect(uptime.label).toBe("uptime 90d: no data");
    expect(uptime.text).toContain(`fill="${BADGE_COLORS.none}"`);
  });

  it("refuses an unknown period", async () => {
    const { apiMon } = await orgWithPage(api);
    expect((await get(`/badge/${apiMon}/uptime.svg?period=1y`)).status).toBe(400);
  });

  it("answers 404 for a monitor on no page, or only on pages the caller may not read", async () => {
    const { call, apiMon, pageId, componentIds } = await orgWithPage(api);
    const lone = await call("POST", "/api/v1/monitors", { name: "Hidden", type: "http", config: { url: "https://example.com" }, interval_seconds: 300, paused: true });
    expect((await get(`/badge/${lone.body.id}/status.svg`)).status).toBe(404);
    expect((await get(`/badge/mon_doesnotexist/status.svg`)).status).toBe(404);
    await call("PATCH", `/api/v1/status-pages/${pageId}`, { access: { mode: "members" } });
    await eventually(() => get(`/badge/${apiMon}/status.svg`), (r) => r.status === 404);
    expect((await get(`/badge/${apiMon}/status.svg`)).status).toBe(404);
    expect((await get(`/badge/${componentIds[0]}/status.svg`)).status).toBe(404);
  });
});
