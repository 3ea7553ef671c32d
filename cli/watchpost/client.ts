import createClient, { type Middleware } from "openapi-fetch";
import type { paths } from "../../web/src/api/schema.gen.ts";
import { CliError } from "./errors.ts";
import { readCredentials } from "./credentials.ts";


export type ApiClient = ReturnType<typeof createClient<paths>>;

export interface Connection {
  url: string;
  apiKey: string;
}

const base = (url: string) => url.replace(/\/+$/, "");

/** Where and as whom to call: WATCHPOST_URL / WATCHPOST_API_KEY first, then the file `watchpost login` wrote. */
export function resolveConnection(env: NodeJS.ProcessEnv = process.env): Connection {
  const stored = readCredentials(env);
  const url = env.WATCHPOST_URL || stored?.url;
  // The stored key belongs to the server it was stored for: never send it to another one named by WATCHPOST_URL.
  if (env.WATCHPOST_URL && !env.WATCHPOST_API_KEY && stored && base(stored.url) !== base(env.WATCHPOST_URL))
    throw new CliError(`WATCHPOST_URL is ${base(env.WATCHPOST_URL)} but the stored login is for ${base(stored.url)}: set WATCHPOST_API_KEY too, or run \`watchpost login --url ${base(env.WATCHPOST_URL)}\``, "UNAUTHENTICATED");
  const apiKey = env.WATCHPOST_API_KEY || stored?.api_key;
  if (!url || !apiKey) throw new CliError("Not logged in: run `watchpost login --url URL` or set WATCHPOST_URL and WATCHPOST_API_KEY", "UNAUTHENTICATED");
  return { url: base(url), apiKey };
}

/** The API's error body `{ error, code, details }` as a CliError. */
async function errorOf(response: Response): Promise<CliError> {
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { error?: string; code?: string; details?: Record<string, unknown> } | null;
  return new CliError(body?.error ?? `${response.status} ${response.statusText}`, body?.code ?? `HTTP_${response.status}`, 1, body?.details ?? {});
}

const throwOnError: Middleware = {
  async onResponse({ response }) {
    if (response.ok) return response;
    throw await errorOf(response);
  },
};

/** A typed client of the public REST API (types generated from its OpenAPI document); failures throw CliError. */
export function apiClient(conn: Connection): ApiClient {
  const client = createClient<paths>({ baseUrl: base(conn.url), headers: { authorization: `Bearer ${conn.apiKey}`, "user-agent": "watchpost-cli" } });
  client.use(throwOnError);
  return client;
}

/** A client without credentials (sign-in during login). */
export function anonymousClient(url: string): ApiClient {
  const client = createClient<paths>({ baseUrl: base(url), headers: { "user-agent": "watchpost-cli" } });
  client.use(throwOnError);
  return client;
}

/** The data of an openapi-fetch result (errors were thrown by the middleware). */
export function data<T>(result: { data?: T }): T {
  return result.data as T;
}

/** Every page of a paginated list (limit 100). */
export async function allPages<T>(fetchPage: (page: number) => Promise<{ data?: { data: T[]; pagination: { total: number } } }>): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; ; page++) {
    const body = data(await fetchPage(page));
    out.push(...body.data);
    if (body.data.length === 0 || out.length >= body.pagination.total) return out;
  }
}
