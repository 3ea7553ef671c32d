import * as oidc from "openid-client";
import type { HttpFetch } from "../../core/http/guarded-fetch.ts";

/** How the API reaches identity providers: through the platform's net guard, with a time limit. */
export interface SsoNetwork {
  fetch: HttpFetch;
  /** SSO_ALLOW_HTTP_ISSUER: accept http:// issuers that are not on loopback (never in production). */
  allowHttpIssuer: boolean;
  timeoutSeconds: number;
}

const LOOPBACK_HOSTS = new Set(["localhost", "[::1]"]);
const isLoopback = (host: string) => LOOPBACK_HOSTS.has(host) || /^127(\.\d{1,3}){3}$/.test(host);

/** Why an issuer URL is refused, or null. https always; http only on loopback (tests) or with SSO_ALLOW_HTTP_ISSUER. */
export function issuerProblem(issuer: string, allowHttp: boolean): string | null {
  if (!URL.canParse(issuer)) return "must be an absolute URL";
  const url = new URL(issuer);
  if (url.username || url.password || url.search || url.hash) return "must not carry credentials, a query or a fragment";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && (allowHttp || isLoopback(url.hostname))) return null;
  return "must use https (http only for an issuer on loopback, or with SSO_ALLOW_HTTP_ISSUER=true)";
}

/** Our guarded fetcher in the shape openid-client calls; it hands back undici's Response. */
const customFetchOf =
  (fetch: HttpFetch): oidc.CustomFetch =>
  (url, options) =>
    fetch(url, {
      method: options.method,
      headers: options.headers,
      body: options.body === undefined || options.body === null ? undefined : String(options.body),
      signal: options.signal,
      redirect: "manual",
    }) as unknown as Promise<Response>;

/**
 * The provider's configuration as discovered from `<issuer>/.well-known/openid-configuration`, for our
 * client. Client authentication at the token endpoint: client_secret_basic unless the provider
 * only lists client_secret_post.
 */
export async function discoverProvider(net: SsoNetwork, c: { issuer: string; clientId: string; clientSecret: string }): Promise<oidc.Configuration> {
  const http = new URL(c.issuer).protocol === "http:";
  const fetch = customFetchOf(net.fetch);
  const discovered = await oidc.discovery(new URL(c.issuer), c.clientId, undefined, oidc.ClientSecretBasic(c.clientSecret), {
    [oidc.customFetch]: fetch,
    timeout: net.timeoutSeconds,
    execute: http ? [oidc.allowInsecureRequests] : [],
  });
  const methods = discovered.serverMetadata().token_endpoint_auth_methods_supported;
  if (!methods || methods.includes("client_secret_basic") || !methods.includes("client_secret_post")) return discovered;
  const config = new oidc.Configuration(discovered.serverMetadata(), c.clientId, undefined, oidc.ClientSecretPost(c.clientSecret));
  config[oidc.customFetch] = fetch;
  config.timeout = net.timeoutSeconds;
  if (http) oidc.allowInsecureRequests(config);
  return config;
}

/** A failure talking to the provider, in words for the person configuring it (never the secret). */
export function providerFailure(err: unknown): string {
  if (err instanceof oidc.ResponseBodyError) return `the provider answered ${err.error}${err.error_description ? `: ${err.error_description}` : ""}`;
  if (err instanceof oidc.AuthorizationResponseError) return `the provider refused: ${err.error}${err.error_description ? `: ${err.error_description}` : ""}`;
  const e = err as Error & { cause?: Error & { code?: string } };
  const cause = e.cause?.message && e.cause.message !== e.message ? ` (${e.cause.message})` : "";
  return `${e.message ?? String(err)}${cause}`;
}
