import { Elysia } from "elysia";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { notFound } from "../../core/errors.ts";
import { docsHeaders } from "../edge/security-headers.ts";

/** @scalar/api-reference's standalone browser bundle, shipped inside the npm package: served from here, never from a CDN. */
const SCALAR_DIST = join(dirname(fileURLToPath(import.meta.resolve("@scalar/api-reference"))), "browser", "standalone.js");
const SCALAR_VERSION = (JSON.parse(readFileSync(join(dirname(SCALAR_DIST), "..", "..", "package.json"), "utf8")) as { version: string }).version;

/** The bundle's URL names its version, so a browser keeps it for a year and an upgrade is a new URL. */
const SCALAR_PATH = `/docs/scalar-${SCALAR_VERSION}.js`;
const PRELUDE_PATH = `/docs/prelude-${SCALAR_VERSION}.js`;
const INIT_PATH = `/docs/init-${SCALAR_VERSION}.js`;
const IMMUTABLE = "public, max-age=31536000, immutable";

/**
 * Runs before the bundle. Its stylesheets are <style> elements made by script (its own injector reads
 * the page's nonce; a second one, the theme's and a library's do not): each <style> made by
 * document.createElement gets this page load's nonce, so script from this origin can style the page
 * but a <style> in markup (a description rendered as HTML) still cannot. Zod's one-time probe for
 * eval is turned off (it would be refused: script-src has no 'unsafe-eval').
 */
const PRELUDE = `(() => {
  const nonce = document.querySelector('meta[property="csp-nonce"]').content;
  const create = Document.prototype.createElement;
  Document.prototype.createElement = function (name, options) {
    const el = create.call(this, name, options);
    if (String(name).toLowerCase() === "style") el.nonce = nonce;
    return el;
  };
  globalThis.__zod_globalConfig = Object.assign(globalThis.__zod_globalConfig || {}, { jitless: true });
})();
`;

/**
 * The reference reads the document the API serves; nothing that would call out is on: no web
 * fonts (fonts.scalar.com), no telemetry, no AI agent or MCP panel. Requests sent from it go to this origin.
 */
const INIT = `Scalar.createApiReference("#app", ${JSON.stringify({
  url: "/openapi.json",
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
  // No request proxy configured: "Test Request" calls this server directly (connect-src 'self' allows nothing else).
  proxyUrl: "",
  hideClientButton: false,
  metaData: { title: "Watchpost API reference" },
})});\n`;

const page = (nonce: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta property="csp-nonce" content="${nonce}">
<title>Watchpost API reference</title>
<link rel="icon" href="data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 viewBox=%220 0 16 16%22%3E%3Ccircle cx=%228%22 cy=%228%22 r=%227%22 fill=%22%23047857%22/%3E%3C/svg%3E">
</head>
<body>
<div id="app"></div>
<script src="${PRELUDE_PATH}"></script>
<script src="${SCALAR_PATH}"></script>
<script src="${INIT_PATH}"></script>
</body>
</html>
`;

/**
 * The API reference at /docs (Scalar's): its page, its bundle and the script that points it at
 * /openapi.json. Outside /api/v1, so the API's rate limits do not apply, as for the dashboard's files.
 * The bundle injects its stylesheet as one <style> element carrying the nonce of the page's
 * `csp-nonce` meta tag: each page load gets a fresh nonce, named in its CSP (docsHeaders).
 */
export function apiReference() {
  let bundle: Promise<Uint8Array<ArrayBuffer>> | null = null;
  const js = (body: string | Uint8Array<ArrayBuffer>) => new Response(body, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": IMMUTABLE } });
  return new Elysia({ name: "api-reference" })
    .get(
      "/docs",
      () => {
        const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
        return new Response(page(nonce), { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", ...docsHeaders(nonce) } });
      },
      { detail: { hide: true } },
    )
    .get(
      "/docs/:file",
      async ({ params }) => {
        if (`/docs/${params.file}` === PRELUDE_PATH) return js(PRELUDE);
        if (`/docs/${params.file}` === INIT_PATH) return js(INIT);
        if (`/docs/${params.file}` !== SCALAR_PATH) throw notFound("Route");
        const body = await (bundle ??= Bun.file(SCALAR_DIST)
          .bytes()
          .catch((err) => {
            bundle = null;
            throw err;
          }));
        return js(body);
      },
      { detail: { hide: true } },
    );
}
