import createClient, { type Middleware } from "openapi-fetch";
import type { paths } from "../../web/src/api/schema.gen.ts";
import { CliError, EXIT } from "./errors.ts";
import { readCredentials } from "./credentials.ts";

export type ApiClient = ReturnType<typeof createClient<paths>>;

export interface Connection {
  url: string;
  apiKey: string;
}

/** The server's address: no trailing slash, and the API's own prefix dropped (`…/api/v1` names the same server). */
const base = (url: string) => url.replace(/\/+$/, "").replace(/\/api\/v1$/, "");

/** Where and as whom to call: WATCHPOST_URL / WATCHPOST_API_KEY first, then the file `watchpost login` wrote. */
export function resolveConnection(env: NodeJS.ProcessEnv = process.env): Connection {
  const stored = readCredentials(env);
  const url = env.WATCHPOST_URL || stored?.url;
  // The stored key belongs to the server it was stored for: never send it to another one named by WATCHPOST_URL.
  if (env.WATCHPOST_URL && !env.WATCHPOST_API_KEY && stored && base(stored.url) !== base(env.WATCHPOST_URL))
    throw new CliError(`WATCHPOST_URL is ${base(env.WATCHPOST_URL)} but the stored login is for ${base(stored.url)}: set WATCHPOST_API_KEY too, or run \`watchpost login --url ${base(env.WATCHPOST_URL)}\``, "UNAUTHENTICATED");
  const apiKey = env.WATCHPOST_API_KEY || stored?.api_key;
  if (!url || !apiKey) throw new CliError("Not logged in: run `watchpost login --url URL` or set WATCHPOST_URL and WATCHPOST_API_KEY", "UNAUTHENTICATED");
  return { url: checkedUrl(base(url), env.WATCHPOST_URL ? "WATCHPOST_URL" : "the stored login's URL"), apiKey };
}

function checkedUrl(url: string, source: string): string {
  const parsed = URL.parse(url);
  if (!parsed || !["http:", "https:"].includes(parsed.protocol)) throw new CliError(`${source} "${url}" is not an http(s) address (https://watchpost.example.com)`, "USAGE", EXIT.usage);
  return url;
}

const notWatchpost = (url: string, response: Response) =>
  new CliError(`${url} did not answer as a Watchpost API (HTTP ${response.status}, ${response.headers.get("content-type") ?? "no content type"}): is it the server's address, as in the browser?`, "NOT_WATCHPOST");

/** The API's error body `{ error, code, details }` as a CliError; anything else says the address is not a Watchpost API. */
async function errorOf(url: string, response: Response): Promise<CliError> {
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { error?: string; code?: string; details?: Record<string, unknown> } | null;
  if (typeof body?.error !== "string" || typeof body.code !== "string") return notWatchpost(url, response);
  if (response.status === 401) return new CliError(`${url} refused the API key: ${body.error} (check WATCHPOST_API_KEY, or run \`watchpost login\` again)`, body.code, 1, body.details ?? {});
  return new CliError(body.error, body.code, 1, body.details ?? {});
}

/** Failures as CliErrors naming the server: nothing answering, something else answering, the API's error body. */
function checked(url: string): Middleware {
  return {
    async onResponse({ response }) {
      if (!response.ok) throw await errorOf(url, response);
      // Every operation the CLI calls answers JSON (or nothing); a web page or plain text is another server.
      const type = response.headers.get("content-type") ?? "";
      if (response.status !== 204 && type && !type.includes("json")) throw notWatchpost(url, response);
      return response;
    },
    onError({ error }) {
      throw new CliError(`Cannot reach the Watchpost API at ${url}: ${(error as Error)?.message ?? error}`, "UNREACHABLE");
    },
  };
}

/** A typed client of the public REST API (types generated from its OpenAPI document); failures throw CliError. */
export function apiClient(conn: Connection): ApiClient {
  const client = createClient<paths>({ baseUrl: base(conn.url), headers: { authorization: `Bearer ${conn.apiKey}`, "user-agent": "watchpost-cli" } });
  client.use(checked(base(conn.url)));
  return client;
}

/** A client without credentials (sign-in during login). */
export function anonymousClient(url: string): ApiClient {
  const client = createClient<paths>({ baseUrl: base(url), headers: { "user-agent": "watchpost-cli" } });
  client.use(checked(base(url)));
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
