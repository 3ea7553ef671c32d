import createClient, { type Middleware } from "openapi-fetch";
import type { paths } from "./schema.gen";

export type { paths };
export const ORG_KEY = "wp_org";

/** The error body every API failure carries: `{ error, code, details }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
  /** Field messages from VALIDATION_ERROR, keyed by the issue path (`body.config.url`). */
  get issues(): Record<string, string> {
    const list = (this.details.issues ?? []) as { path: string; message: string }[];
    return Object.fromEntries(list.map((i) => [i.path, i.message]));
  }
}

export const csrfToken = () => document.cookie.match(/(?:^|;\s*)wp_csrf=([^;]+)/)?.[1];
export const selectedOrg = () => localStorage.getItem(ORG_KEY);

/** Headers every call sends: the selected organisation, and the CSRF token on writes. */
export function authHeaders(method = "GET"): Record<string, string> {
  const h: Record<string, string> = {};
  const org = selectedOrg();
  if (org) h["x-org-id"] = org;
  const csrf = csrfToken();
  if (csrf && method !== "GET" && method !== "HEAD") h["x-csrf-token"] = decodeURIComponent(csrf);
  return h;
}

/** Reads (GET) refused with 429 wait out Retry-After and go again, this many times at most. */
const RATE_LIMIT_RETRIES = 4;
const MAX_WAIT_S = 60;

/**
 * When the API last refused a read for the rate limit and until when the dashboard waits (ms since
 * the epoch; 0 when it is not waiting): the banner reads it (useSyncExternalStore).
 */
export const rateLimitWait = (() => {
  let until = 0;
  const listeners = new Set<() => void>();
  const set = (v: number) => {
    until = v;
    for (const l of listeners) l();
  };
  return {
    until: () => until,
    set,
    subscribe(l: () => void) {
      listeners.add(l);
      return () => void listeners.delete(l);
    },
  };
})();

/** Seconds a 429 asks to wait: Retry-After, else the body's details.retryAfterSeconds, else 5; at most a minute. */
async function retryAfterOf(response: Response): Promise<number> {
  const header = Number(response.headers.get("retry-after"));
  if (Number.isFinite(header) && header > 0) return Math.min(MAX_WAIT_S, header);
  const body = (await response.clone().json().catch(() => null)) as { details?: { retryAfterSeconds?: number } } | null;
  const fromBody = Number(body?.details?.retryAfterSeconds);
  return Math.min(MAX_WAIT_S, Number.isFinite(fromBody) && fromBody > 0 ? fromBody : 5);
}

const session: Middleware = {
  onRequest({ request }) {
    for (const [k, v] of Object.entries(authHeaders(request.method))) request.headers.set(k, v);
    return request;
  },
  async onResponse({ request, response }) {
    // A read refused by the rate limit is tried again after Retry-After (a banner says so); never a sign-out.
    for (let i = 0; response.status === 429 && (request.method === "GET" || request.method === "HEAD") && i < RATE_LIMIT_RETRIES; i++) {
      const wait = await retryAfterOf(response);
      rateLimitWait.set(Date.now() + wait * 1000);
      await new Promise((r) => setTimeout(r, wait * 1000));
      response = await fetch(request.clone());
    }
    if (response.status !== 429 && rateLimitWait.until()) rateLimitWait.set(0);
    if (response.ok) return response;
    throw await apiErrorOf(response);
  },
};

/** The ApiError a failed response's error body describes (or a plain one when it has none). */
async function apiErrorOf(response: Response): Promise<ApiError> {
  const body = (await response.clone().json().catch(() => null)) as { error?: string; code?: string; details?: Record<string, unknown> } | null;
  return new ApiError(response.status, body?.code ?? "HTTP_ERROR", body?.error ?? `The server answered ${response.status}`, body?.details ?? {});
}

/** Downloads a file the API streams (exports), with the session's headers, under the server's file name. */
export async function downloadFile(path: string, fallbackName: string): Promise<void> {
  const res = await fetch(path, { headers: authHeaders(), credentials: "include" });
  if (!res.ok) throw await apiErrorOf(res);
  const name = res.headers.get("content-disposition")?.match(/filename="?([^";]+)"?/)?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await res.blob());
  const a = Object.assign(document.createElement("a"), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export const api = createClient<paths>({ baseUrl: "", credentials: "include" });
api.use(session);

/** Unwraps an openapi-fetch answer: the middleware has already thrown on errors. */
export function data<T>(res: { data?: T }): T {
  return res.data as T;
}
