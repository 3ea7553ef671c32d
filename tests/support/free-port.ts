import { readFileSync } from "node:fs";

/** The kernel's range for the local ports of outgoing connections (and of `port: 0` listeners). */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    if (low! > 0 && high! >= low!) return [low!, high!];
  } catch {}
  return [32768, 60999];
}

const [EPHEMERAL_LOW] = ephemeralRange();
/** Below the ephemeral range and above the ports services usually take (PostgreSQL 5432, Redis 6379, NATS 4222/8222). */
const LOW = 10_000;
const handedOut = new Set<number>();

function listensNow(port: number): boolean {
  try {
    Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } }).stop(true);
    return false;
  } catch {
    return true;
  }
}

/**
 * A loopback port nothing listens on now, for a process a test starts later; never the same twice in this process.
 * Picked below the kernel's ephemeral range: a port from `port: 0` can be taken in the meantime by any outgoing
 * connection's local end (a test's API once exited with "PORT is taken by another process" that way), one outside
 * the range only by another listener.
 */
export function freePort(): number {
  if (EPHEMERAL_LOW - LOW >= 1_000) {
    for (let i = 0; i < 100; i++) {
      const port = LOW + Math.floor(Math.random() * (EPHEMERAL_LOW - LOW));
      if (handedOut.has(port) || listensNow(port)) continue;
      handedOut.add(port);
      return port;
    }
  }
  for (;;) {
    const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = s.port;
    s.stop(true);
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}
