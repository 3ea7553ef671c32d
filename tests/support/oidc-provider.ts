import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

/** Someone the test provider knows, by email: the subject it asserts and whether it vouches for the address. */
export interface TestAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Adds (or replaces) an account; the login form takes its email. */
  addAccount(a: TestAccount): void;
  stop(): Promise<void>;
}

const page = (body: string) => `<!doctype html><html lang="en"><head><title>Test IdP</title></head><body>${body}</body></html>`;

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return new URLSearchParams(text);
}

/**
 * A real OpenID Provider (npm oidc-provider) on a loopback port with one confidential client whose only
 * redirect URI is `redirectUri`. PKCE is required. Its login page (/interaction/:uid) asks for an email
 * and grants the requested scopes at once (no consent screen).
 */
export async function startTestOidcProvider(redirectUri: string): Promise<TestOidcProvider> {
  const accounts = new Map<string, TestAccount>();
  const bySub = new Map<string, TestAccount>();
  const clientId = "watchpost-test";
  const clientSecret = "test-client-secret-0123456789abcdef";
  let provider: Provider | undefined;

  async function interaction(req: IncomingMessage, res: ServerResponse) {
    const details = await provider!.interactionDetails(req, res);
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(
        page(
          `<h1>Test identity provider</h1><form method="post" action="/interaction/${details.uid}"><label>Email <input name="email" type="email" autofocus></label><button type="submit">Continue</button></form>`,
        ),
      );
      return;
    }
    const email = (await readForm(req)).get("email")?.toLowerCase() ?? "";
    const account = accounts.get(email);
    if (!account) {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(page(`<p role="alert">Unknown user ${email}</p>`));
      return;
    }
    const grant = new provider!.Grant({ accountId: account.sub, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    await provider!.interactionFinished(req, res, { login: { accountId: account.sub }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }

  const server = createServer((req, res) => {
    if (req.url?.startsWith("/interaction/")) {
      interaction(req, res).catch((err: Error) => {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end(err.message);
      });
      return;
    }
    provider!.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "client_secret_basic" }],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    scopes: ["openid", "email", "profile"],
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    cookies: { keys: ["watchpost-test-idp-cookie-key"] },
    ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    interactions: { url: (_ctx, i) => `/interaction/${i.uid}` },
    // ID tokens carry the claims, so the relying party needs no userinfo call.
    conformIdTokenClaims: false,
    async findAccount(_ctx, sub) {
      const a = bySub.get(sub);
      if (!a) return undefined;
      return { accountId: sub, claims: () => ({ sub, email: a.email, email_verified: a.email_verified, name: a.name }) };
    },
  });
  return {
    issuer,
    clientId,
    clientSecret,
    addAccount(a) {
      accounts.set(a.email.toLowerCase(), a);
      bySub.set(a.sub, a);
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A cookie jar of name → value for one host (enough for the provider's interaction and session cookies). */
class Jar {
  private readonly cookies = new Map<string, string>();
  take(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1);
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(c) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

/**
 * Signs in through the whole flow without a browser: POST /auth/sso/start, the provider's login form,
 * back to the callback. Answers the callback's redirect and the session cookies it set (if any).
 */
export async function ssoSignInByHttp(
  apiUrl: string,
  start: { email?: string; org_slug?: string },
  loginEmail: string,
  /** Another start: linking a signed-in account (`/api/v1/auth/sso/link` with its session's cookie and CSRF header). */
  via: { path: string; headers: Record<string, string> } = { path: "/api/v1/auth/sso/start", headers: {} },
) {
  const started = await fetch(`${apiUrl}${via.path}`, { method: "POST", headers: { "content-type": "application/json", ...via.headers }, body: JSON.stringify(start) });
  if (started.status !== 200) return { startStatus: started.status, startBody: (await started.json()) as any, location: null, cookie: "", csrf: "" };
  const flowCookie = started.headers.getSetCookie().find((c) => c.startsWith("wp_sso="))!.split(";")[0]!;
  const { redirect_url } = (await started.json()) as { redirect_url: string };
  const idp = new Jar();
  let url = redirect_url;
  // Follow the provider's redirects until it sends the browser back to the API.
  for (let hop = 0; hop < 10 && !url.startsWith(apiUrl); hop++) {
    let res = await fetch(url, { redirect: "manual", headers: { cookie: idp.header() } });
    idp.take(res);
    if (res.status === 200 && new URL(url).pathname.startsWith("/interaction/")) {
      res = await fetch(url, { method: "POST", redirect: "manual", headers: { cookie: idp.header(), "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ email: loginEmail }) });
      idp.take(res);
    }
    const next = res.headers.get("location");
    if (!next) throw new Error(`the provider stopped at ${url} with ${res.status}: ${(await res.text()).slice(0, 300)}`);
    url = new URL(next, url).href;
  }
  const back = await fetch(url, { redirect: "manual", headers: { cookie: flowCookie } });
  const cookies = back.headers.getSetCookie();
  const session = cookies.filter((c) => c.startsWith("wp_session=") || c.startsWith("wp_csrf=")).map((c) => c.split(";")[0]!);
  const csrf = session.find((c) => c.startsWith("wp_csrf="))?.slice("wp_csrf=".length) ?? "";
  return { startStatus: 200, startBody: null, status: back.status, location: back.headers.get("location"), cookie: session.join("; "), csrf, setCookies: cookies };
}
