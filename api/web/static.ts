import { Elysia } from "elysia";
import { join, normalize } from "node:path";
import { notFound } from "../../core/errors.ts";
import { DASHBOARD_HEADERS } from "../edge/security-headers.ts";
import { buildWebInMemory, distIsStale, WEB_DIST } from "./build.ts";

const IMMUTABLE = "public, max-age=31536000, immutable";
const HASHED = /-[a-z0-9]{8}\.[a-z0-9]+$/;
const NOT_WEB = /^\/(api|healthz|readyz|metrics|openapi\.json|docs|cli)(\/|$)/;

type Source = (path: string) => Promise<Blob | null>;

/** web/dist when it is fresh; otherwise one in-memory build per process (never written, so processes cannot race). */
async function openSource(): Promise<Source> {
  if (!distIsStale()) {
    return async (path) => {
      const file = Bun.file(join(WEB_DIST, normalize(path).replace(/^(\.\.[/\\])+/, "")));
      return (await file.exists()) ? file : null;
    };
  }
  const files = await buildWebInMemory();
  return async (path) => files.get(path) ?? null;
}

/**
 * The dashboard at `/`: hashed assets cached for a year, index.html revalidated, and every other
 * browser GET (Accept: text/html) that is not an API path answered with index.html so the single-page app can route it.
 */
export function webStatic() {
  let source: Promise<Source> | null = null;
  return new Elysia({ name: "web-static" }).get(
    "/*",
    async ({ request }) => {
      const path = new URL(request.url).pathname;
      if (NOT_WEB.test(path)) throw notFound("Route");
      const open = (source ??= openSource().catch((err) => {
        source = null;
        throw err;
      }));
      const read = await open;
      const asset = path !== "/" && path !== "/index.html" ? await read(path) : null;
      if (asset) return new Response(asset, { headers: { "cache-control": HASHED.test(path) ? IMMUTABLE : "no-cache", "content-type": asset.type } });
      // Browsers navigating ask for text/html; API clients asking for anything else keep the JSON 404.
      if (/\.[a-z0-9]+$/i.test(path) || !request.headers.get("accept")?.includes("text/html")) throw notFound("Route");
      const index = await read("/index.html");
      if (!index) throw notFound("Route");
      return new Response(index, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache", ...DASHBOARD_HEADERS } });
    },
    { detail: { hide: true } },
  );
}
