import dgram from "node:dgram";
import net from "node:net";
import { randomInt } from "node:crypto";
import * as packet from "dns-packet";

export interface DnsServer {
  address: string;
  port: number;
  family: 4 | 6;
}

export interface DnsAnswer {
  rcode: string;
  answers: packet.Answer[];
  server: DnsServer;
}

const RESEND_MS = 1000;
const UDP_PAYLOAD = 1232;

/**
 * One recursive query over UDP (EDNS, resent every second, rotating through the servers, a
 * server whose port is closed skipped at once), retried over TCP when the answer comes back truncated. Runs until it has an answer or
 * `signal` fires. node:dns is not used because Bun's version reports NODATA as NXDOMAIN
 * and splits multi-string TXT records.
 */
export async function queryDns(servers: DnsServer[], name: string, type: packet.RecordType, signal: AbortSignal): Promise<DnsAnswer> {
  if (servers.length === 0) throw new Error("no DNS server to ask");
  const id = randomInt(0, 65536);
  const query = packet.encode({
    type: "query",
    id,
    flags: packet.RECURSION_DESIRED,
    questions: [{ type, name, class: "IN" }],
    additionals: [{ type: "OPT", name: ".", udpPayloadSize: UDP_PAYLOAD } as packet.Answer],
  });
  const udp = await queryUdp(servers, id, query, signal);
  if (!udp.response.flag_tc) return answerOf(udp.response, udp.server);
  const tcp = await queryTcp(udp.server, id, name, type, signal);
  return answerOf(tcp, udp.server);
}

function answerOf(response: packet.DecodedPacket, server: DnsServer): DnsAnswer {
  return { rcode: (response as { rcode?: string }).rcode ?? "NOERROR", answers: response.answers ?? [], server };
}

/** "ip:port", or "[ipv6]:port". */
export function formatDnsServer(s: DnsServer): string {
  return s.family === 6 ? `[${s.address}]:${s.port}` : `${s.address}:${s.port}`;
}

function refusedError(servers: DnsServer[]): Error {
  const list = servers.map(formatDnsServer).join(", ");
  return new Error(`DNS server${servers.length > 1 ? "s" : ""} ${list} refused the query (port closed)`);
}

/**
 * One connected UDP socket per server asked: the kernel reports an ICMP port unreachable on a
 * connected socket only (ECONNREFUSED), so a closed resolver port moves on to the next server at
 * once, and fails the query when every server refused, instead of waiting for the deadline.
 */
function queryUdp(servers: DnsServer[], id: number, query: Buffer, signal: AbortSignal): Promise<{ response: packet.DecodedPacket; server: DnsServer }> {
  return new Promise((resolve, reject) => {
    const sockets: Array<dgram.Socket | undefined> = [];
    const refused = new Set<number>();
    let done = false;
    let attempt = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (err: Error | null, value?: { response: packet.DecodedPacket; server: DnsServer }) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      for (const socket of sockets) socket?.close();
      if (err) reject(err);
      else resolve(value!);
    };
    const onAbort = () => finish(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    const onError = (index: number, err: Error) => {
      if ((err as { code?: string }).code !== "ECONNREFUSED") return finish(err);
      if (done || refused.has(index)) return;
      refused.add(index);
      sockets[index]?.close();
      sockets[index] = undefined;
      send();
    };
    const open = (index: number) => {
      const server = servers[index];
      const socket = dgram.createSocket(server.family === 6 ? "udp6" : "udp4");
      socket.on("error", (err) => onError(index, err));
      socket.on("message", (message) => {
        let response: packet.DecodedPacket;
        try {
          response = packet.decode(message);
        } catch {
          return;
        }
        if (response.id === id && response.type === "response") finish(null, { response, server });
      });
      // A connected socket takes no address in send, and cannot send before it is connected.
      socket.connect(server.port, server.address, () => {
        if (!done && sockets[index] === socket) socket.send(query);
      });
      sockets[index] = socket;
    };
    const send = () => {
      clearTimeout(timer);
      if (refused.size === servers.length) return finish(refusedError(servers));
      let index = attempt++ % servers.length;
      while (refused.has(index)) index = attempt++ % servers.length;
      const socket = sockets[index];
      if (socket) socket.send(query);
      else open(index);
      timer = setTimeout(send, RESEND_MS);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) return onAbort();
    send();
  });
}

function queryTcp(server: DnsServer, id: number, name: string, type: packet.RecordType, signal: AbortSignal): Promise<packet.DecodedPacket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: server.address, port: server.port });
    let buffered = Buffer.alloc(0);
    const finish = (err: Error | null, response?: packet.DecodedPacket) => {
      signal.removeEventListener("abort", onAbort);
      socket.destroy();
      if (err) reject(err);
      else resolve(response!);
    };
    const onAbort = () => finish(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    socket.on("error", (err) => finish(err));
    socket.on("connect", () => {
      socket.write(packet.streamEncode({ type: "query", id, flags: packet.RECURSION_DESIRED, questions: [{ type, name, class: "IN" }] }));
    });
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < 2 || buffered.length < 2 + buffered.readUInt16BE(0)) return;
      try {
        finish(null, packet.decode(buffered.subarray(2, 2 + buffered.readUInt16BE(0))));
      } catch (err) {
        finish(err as Error);
      }
    });
    socket.on("end", () => finish(new Error("the DNS server closed the TCP connection without an answer")));
  });
}
