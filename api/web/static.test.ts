import { describe, expect, it } from "bun:test";
import { Elysia } from "elysia";
import { silentLogger } from "../../core/log.ts";
import { errorsPlugin } from "../middleware/errors.ts";
import { webStatic } from "./static.ts";

const app = new Elysia().use(errorsPlugin(silentLogger)).use(webStatic());
const get = (path: string, accept = "text/html,application/xhtml+xml,*/*;q=0.8") => app.handle(new Request(`http://localhost${path}`, { headers: { accept } }));

describe("web static plugin", () => {
  it("answers index.html for / and for any app path, revalidated on every load", async () => {
    for (const path of ["/", "/monitors", "/monitors/mon_123/edit"]) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/html");
      expect(res.headers.get("cache-control")).toBe("no-cache");
      expect(await res.text()).toContain('<div id="root">');
    }
  });

  it("serves hashed assets with a year-long immutable cache", async () => {
    const html = await (await get("/")).text();
    const script = html.match(/src="([^"]+\.js)"/)![1]!;
    const res = await get(script);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("content-type")).toContain("javascript");
  });

  it("keeps the JSON 404 for clients that do not ask for HTML", async () => {
    const res = await get("/nothing", "*/*");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "Route not found", code: "NOT_FOUND" });
  });

  it("leaves API paths and missing files to the JSON 404", async () => {
    for (const path of ["/api/v1/nothing-here", "/healthz/x", "/missing-abcdefgh.js"]) {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect((await res.json()).code).toBe("NOT_FOUND");
    }
  });
});
