import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiClient, resolveConnection } from "./client.ts";
import { CliError } from "./errors.ts";
import { writeCredentials } from "./credentials.ts";

const loggedIn = () => {
  const env = { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), "wp-cli-")) };
  writeCredentials({ url: "https://prod.example.com", api_key: "wp_live_prod_key" }, env);
  return env;
};

describe("resolveConnection", () => {
  it("never sends the stored key to another server named by WATCHPOST_URL alone", () => {
    const env = { ...loggedIn(), WATCHPOST_URL: "http://127.0.0.1:18083" };
    expect(() => resolveConnection(env)).toThrow(/WATCHPOST_API_KEY/);
  });

  it("uses the stored key with WATCHPOST_URL naming the server it was stored for", () => {
    const env = { ...loggedIn(), WATCHPOST_URL: "https://prod.example.com/" };
    expect(resolveConnection(env)).toEqual({ url: "https://prod.example.com", apiKey: "wp_live_prod_key" });
  });

  it("uses WATCHPOST_URL and WATCHPOST_API_KEY together, and the stored login alone", () => {
    expect(resolveConnection({ ...loggedIn(), WATCHPOST_URL: "http://127.0.0.1:3311", WATCHPOST_API_KEY: "wp_live_ci" })).toEqual({ url: "http://127.0.0.1:3311", apiKey: "wp_live_ci" });
    expect(resolveConnection(loggedIn())).toEqual({ url: "https://prod.example.com", apiKey: "wp_live_prod_key" });
  });
});

describe("the errors a wrong address or key gives", () => {
  const servers: ReturnType<typeof Bun.serve>[] = [];
  const serve = (fetch: (r: Request) => Response) => {
    const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch });
    servers.push(s);
    return `http://127.0.0.1:${s.port}`;
  };
  const call = async (url: string, apiKey = "wp_live_x") => {
    try {
      await apiClient({ url, apiKey }).GET("/api/v1/monitors", { params: { query: {} } });
      return null;
    } catch (err) {
      return err as CliError;
    }
  };
  afterAll(() => servers.forEach((s) => s.stop(true)));

  it("names the address when nothing answers there", async () => {
    const url = serve(() => new Response("x"));
    servers.pop()!.stop(true);
    const err = await call(url);
    expect(err).toBeInstanceOf(CliError);
    expect(err!.code).toBe("UNREACHABLE");
    expect(err!.message).toContain(`Cannot reach the Watchpost API at ${url}`);
  });

  it("says the address is not a Watchpost API when something else answers there", async () => {
    const url = serve(() => new Response("hello", { headers: { "content-type": "text/plain" } }));
    const err = await call(url);
    expect(err!.code).toBe("NOT_WATCHPOST");
    expect(err!.message).toContain(`${url} did not answer as a Watchpost API`);
    const html = serve(() => new Response("<html>nope</html>", { status: 404, headers: { "content-type": "text/html" } }));
    expect((await call(html))!.code).toBe("NOT_WATCHPOST");
  });

  it("names the server that refused the key", async () => {
    const url = serve(() => Response.json({ error: "Authentication required", code: "UNAUTHENTICATED", details: {} }, { status: 401 }));
    const err = await call(url);
    expect(err!.code).toBe("UNAUTHENTICATED");
    expect(err!.message).toContain(`${url} refused the API key`);
  });

  it("takes the API's address with /api/v1 as the server's, and refuses an address that is not http(s)", () => {
    expect(resolveConnection({ WATCHPOST_URL: "http://127.0.0.1:3311/api/v1/", WATCHPOST_API_KEY: "k" }).url).toBe("http://127.0.0.1:3311");
    expect(() => resolveConnection({ WATCHPOST_URL: "not-a-url", WATCHPOST_API_KEY: "k" })).toThrow(/WATCHPOST_URL "not-a-url" is not an http\(s\) address/);
  });
});
