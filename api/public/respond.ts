import { createHash } from "node:crypto";

/**
 * No script runs on these pages. The theme is the page's one inline <style> element (documentShell),
 * allowed by its SHA-256 alone: a <style> or style attribute that found its way in any other way does not apply.
 */
function htmlCsp(body: string): string {
  const open = body.indexOf("<style>");
  const close = open === -1 ? -1 : body.indexOf("</style>", open);
  const style = close === -1 ? "'none'" : `'sha256-${createHash("sha256").update(body.slice(open + 7, close)).digest("base64")}'`;
  return `default-src 'none'; style-src ${style}; img-src https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
}

export interface Rendered {
  body: string;
  etag: string;
  /** The Content-Security-Policy of an HTML body (its own stylesheet's hash); null for other types. */
  csp: string | null;
  gzip: Uint8Array<ArrayBuffer>;
  type: string;
}

export function rendered(body: string, type: string): Rendered {
  return { body, type, csp: type.startsWith("text/html") ? htmlCsp(body) : null, etag: `"${createHash("sha1").update(body).digest("base64url").slice(0, 22)}"`, gzip: Bun.gzipSync(body) as Uint8Array<ArrayBuffer> };
}

/** 200 (gzip when accepted) or 304 on a matching If-None-Match; `shared` false for pages behind an access check. */
export function serveRendered(request: Request, r: Rendered, shared: boolean, maxAge = 0): Response {
  const headers: Record<string, string> = {
    "content-type": r.type,
    etag: r.etag,
    "cache-control": shared ? `public, max-age=${maxAge}, must-revalidate` : "private, no-cache",
    vary: "Accept-Encoding, Cookie",
    "x-content-type-options": "nosniff",
  };
  if (r.csp) {
    headers["content-security-policy"] = r.csp;
    headers["referrer-policy"] = "same-origin";
  }
  const inm = request.headers.get("if-none-match");
  if (inm && inm.split(",").some((t) => t.trim().replace(/^W\//, "") === r.etag)) return new Response(null, { status: 304, headers });
  if (request.method !== "HEAD" && /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "")) {
    return new Response(r.gzip, { headers: { ...headers, "content-encoding": "gzip" } });
  }
  return new Response(request.method === "HEAD" ? null : r.body, { headers });
}

export function html(status: number, body: string, extra: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "content-security-policy": htmlCsp(body), "x-content-type-options": "nosniff", "referrer-policy": "same-origin", ...extra },
  });
}

export function notFoundResponse(request: Request): Response {
  const accept = request.headers.get("accept") ?? "";
  if (accept.includes("text/html")) return html(404, "<!doctype html><html lang=\"en\"><title>Not found</title><h1>Not found</h1></html>");
  return new Response(JSON.stringify({ error: "Status page not found", code: "NOT_FOUND" }), { status: 404, headers: { "content-type": "application/json", "cache-control": "no-store" } });
}

export function cookieReader(request: Request): (name: string) => string | null {
  const header = request.headers.get("cookie");
  let parsed: Map<string, string> | null = null;
  return (name) => {
    if (!header) return null;
    if (!parsed) {
      parsed = new Map();
      for (const part of header.split(";")) {
        const eq = part.indexOf("=");
        if (eq > 0) {
          try {
            parsed.set(part.slice(0, eq).trim(), decodeURIComponent(part.slice(eq + 1).trim()));
          } catch {}
        }
      }
    }
    return parsed.get(name) ?? null;
  };
}
