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

const session: Middleware = {
  onRequest({ request }) {
    for (const [k, v] of Object.entries(authHeaders(request.method))) request.headers.set(k, v);
    return request;
  },
  async onResponse({ response }) {
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
