/**
 * Browser-facing headers every answer carries (docs/security.md, "Headers"). Pages set their own
 * Content-Security-Policy (the dashboard's, the status pages'); everything else gets one that lets
 * nothing load or run, so a JSON, feed or SVG answer opened as a document cannot become a page.
 */

/** The dashboard: script, style, fonts and API calls from its own origin only; no inline script; never framed. */
const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** The dashboard's other headers: its window shares no browsing context group with pages that open it. */
export const DASHBOARD_HEADERS = { "content-security-policy": DASHBOARD_CSP, "cross-origin-opener-policy": "same-origin" };

/**
 * The API reference (/docs, Scalar): the dashboard's policy, except for styles. <style> elements need
 * this page load's nonce (the page's script gives it to those it creates: api/web/docs.ts); style
 * attributes are allowed, as Scalar's Vue components set some (they cannot run script, and the images
 * CSS may fetch stay under img-src). Its "Test request" client calls this origin only (connect-src 'self').
 */
export function docsHeaders(nonce: string) {
  const styles = `style-src 'self' 'nonce-${nonce}'; style-src-elem 'self' 'nonce-${nonce}'; style-src-attr 'unsafe-inline'`;
  const csp = DASHBOARD_CSP.replace("style-src 'self'", styles);
  return { "content-security-policy": csp, "cross-origin-opener-policy": "same-origin" };
}

/** Answers that are not pages: JSON, feeds, badges, assets, plain-text errors. */
const NO_CONTENT_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** A year, the preload lists' minimum; only ever sent when the public address is https. */
const HSTS = "max-age=31536000; includeSubDomains";

const DEFAULTS: [string, string][] = [
  ["x-content-type-options", "nosniff"],
  ["x-frame-options", "DENY"],
  ["referrer-policy", "strict-origin-when-cross-origin"],
  ["content-security-policy", NO_CONTENT_CSP],
];

/**
 * Adds the headers a route did not set itself; `https`: the deployment is reached over TLS
 * (PUBLIC_BASE_URL). API answers are per caller and may hold a secret shown once (a new key, a 2FA
 * secret): no cache keeps them unless the route says otherwise.
 */
export function securityHeaders(o: { https: boolean }) {
  const apply = (h: Headers, api: boolean) => {
    for (const [name, value] of DEFAULTS) if (!h.has(name)) h.set(name, value);
    if (api && !h.has("cache-control")) h.set("cache-control", "no-store");
    if (o.https) h.set("strict-transport-security", HSTS);
  };
  /** `request` absent (the server's last-resort error answer): treated as an API answer. */
  return (response: Response, request?: Request): Response => {
    const api = !request || isApiPath(request.url);
    try {
      apply(response.headers, api);
      return response;
    } catch {
      // A Response whose headers are immutable (one passed through from fetch): copy it.
      const copy = new Response(response.body, response);
      apply(copy.headers, api);
      return copy;
    }
  };
}

function isApiPath(url: string): boolean {
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  return url.startsWith("/api/v1/", pathStart);
}
