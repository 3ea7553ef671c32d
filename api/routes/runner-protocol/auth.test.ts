import { describe, expect, it } from "bun:test";
import { runnerTransportAllowed } from "./auth.ts";

const plain = { url: "http://127.0.0.1:3000/api/v1/runner/session", forwardedProto: null, peer: "127.0.0.1", host: "127.0.0.1", trustProxy: false };

describe("runner traffic must arrive over TLS", () => {
  it("accepts a request that reached a TLS listener", () => {
    expect(runnerTransportAllowed({ ...plain, url: "https://api.watchpost.example/api/v1/runner/session", peer: "203.0.113.9", host: "0.0.0.0" })).toBe(true);
  });

  it("accepts plain HTTP only on the local development listener: bound to loopback, reached from loopback", () => {
    expect(runnerTransportAllowed(plain)).toBe(true);
    expect(runnerTransportAllowed({ ...plain, host: "::1", peer: "::1" })).toBe(true);
    expect(runnerTransportAllowed({ ...plain, host: "localhost", peer: "::ffff:127.0.0.1" })).toBe(true);
    expect(runnerTransportAllowed({ ...plain, host: "0.0.0.0" })).toBe(false);
    expect(runnerTransportAllowed({ ...plain, host: "198.51.100.10", peer: "198.51.100.20" })).toBe(false);
    expect(runnerTransportAllowed({ ...plain, peer: "unknown" })).toBe(false);
  });

  it("behind a trusted proxy believes only X-Forwarded-Proto, loopback or not", () => {
    expect(runnerTransportAllowed({ ...plain, trustProxy: true, forwardedProto: "https" })).toBe(true);
    expect(runnerTransportAllowed({ ...plain, trustProxy: true, forwardedProto: "http" })).toBe(false);
    expect(runnerTransportAllowed({ ...plain, trustProxy: true, forwardedProto: null })).toBe(false);
  });
});
