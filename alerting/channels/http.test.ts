import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHttpFetch, cutBody, parseRetryAfter, postJson } from "./http.ts";
import { type HttpReceiver, startHttpReceiver, testContext } from "./testing.ts";
import { ChannelError } from "./types.ts";

describe("channel HTTP client", () => {
  let receiver: HttpReceiver;
  beforeAll(async () => void (receiver = await startHttpReceiver()));
  afterAll(() => receiver.close());
  const post = (ctx = testContext()) => postJson(ctx, "Test hook", `${receiver.url}/hook`, { a: 1 }).catch((e: ChannelError) => e);

  it("refuses loopback targets on a deployment that does not allow private addresses", async () => {
    const guarded = testContext({ fetch: createHttpFetch({ allowPrivateAddresses: false }) });
    const port = new URL(receiver.url).port;
    const before = receiver.requests.length;
    for (const [url, said] of [
      [`${receiver.url}/hook`, "refused: 127.0.0.1 (loopback address)"],
      [`http://localhost:${port}/hook`, "refused: localhost resolves to 127.0.0.1 (loopback address)"],
      [`http://[::ffff:127.0.0.1]:${port}/hook`, "(loopback address)"],
      [`http://[::1]:${port}/hook`, "(loopback address)"],
    ]) {
      const err = await postJson(guarded, "Test hook", url!, {}).catch((e) => e);
      expect(err).toBeInstanceOf(ChannelError);
      expect(err.permanent).toBe(true);
      expect(err.message).toContain(said!);
    }
    expect(receiver.requests.length).toBe(before);
  });

  it("connects through the guard over TLS and still checks the certificate against the host name", async () => {
    const dir = `${import.meta.dir}/testdata`;
    const [cert, key] = await Promise.all([Bun.file(`${dir}/localhost-cert.pem`).text(), Bun.file(`${dir}/localhost-key.pem`).text()]);
    const tls = Bun.serve({ hostname: "127.0.0.1", port: 0, tls: { cert, key }, fetch: (req) => new Response(`host ${req.headers.get("host")}`) });
    try {
      const ctx = testContext({ fetch: createHttpFetch({ allowPrivateAddresses: true, ca: [cert] }) });
      const res = await postJson(ctx, "TLS hook", `https://localhost:${tls.port}/hook`, {});
      expect(res).toEqual({ status: 200, text: `host localhost:${tls.port}` });
      // The same server by IP: the certificate names only localhost, so TLS must refuse it.
      const byIp = await postJson(ctx, "TLS hook", `https://127.0.0.1:${tls.port}/hook`, {}).catch((e) => e);
      expect(byIp).toMatchObject({ permanent: false });
      expect(byIp.message).toContain("ERR_TLS_CERT_ALTNAME_INVALID");
    } finally {
      await tls.stop(true);
    }
  });

  it("classifies statuses: 4xx permanent except 408 and 429; 5xx retryable", async () => {
    const seen: Record<number, boolean> = {};
    for (const status of [400, 401, 404, 408, 410, 413, 429, 500, 502, 503]) {
      receiver.respondNext(() => new Response("no", { status }));
      seen[status] = ((await post()) as ChannelError).permanent;
    }
    expect(seen).toEqual({ 400: true, 401: true, 404: true, 408: false, 410: true, 413: true, 429: false, 500: false, 502: false, 503: false });
  });

  it("does not follow redirects and says so permanently", async () => {
    receiver.respondNext(() => new Response(null, { status: 302, headers: { location: "http://127.0.0.1:1/elsewhere" } }));
    expect(await post()).toMatchObject({ permanent: true, status: 302 });
  });

  it("gives up on a receiver that does not answer in time, as retryable", async () => {
    receiver.respondNext(() => Bun.sleep(1000).then(() => new Response("late")));
    const err = (await post(testContext({ timeoutMs: 100 }))) as ChannelError;
    expect(err.permanent).toBe(false);
    expect(err.message).toBe(`Test hook (${new URL(receiver.url).host}) did not answer within 100 ms`);
  });

  it("puts the status and a cut-down body in the message", async () => {
    receiver.respondNext(() => new Response(`bad\n\n  request ${"x".repeat(1000)}`, { status: 422 }));
    const err = (await post()) as ChannelError;
    expect(err.message.startsWith(`Test hook (${new URL(receiver.url).host}) answered HTTP 422: bad request xxx`)).toBe(true);
    expect(err.body).toHaveLength(301);
    expect(cutBody("a  b\n c")).toBe("a b c");
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = new Date("2026-11-22T10:00:00Z");
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 10:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it("identifies itself with a Watchpost user agent", async () => {
    await post();
    expect(receiver.last().headers.get("user-agent")).toBe("Watchpost-Alerts/1");
  });
});
