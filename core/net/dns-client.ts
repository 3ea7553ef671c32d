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
 * One recursive query over UDP (EDNS, resent every second, rotating through the servers),
 * retried over TCP when the answer comes back truncated. Runs until it has an answer or
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

function queryUdp(servers: DnsServer[], id: number, query: Buffer, signal: AbortSignal): Promise<{ response: packet.DecodedPacket; server: DnsServer }> {
  return new Promise((resolve, reject) => {
    const sockets = new Map<4 | 6, dgram.Socket>();
    let attempt = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (err: Error | null, value?: { response: packet.DecodedPacket; server: DnsServer }) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      for (const socket of sockets.values()) socket.close();
      sockets.clear();
      if (err) reject(err);
      else resolve(value!);
    };
    const onAbort = () => finish(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    const socketFor = (family: 4 | 6) => {
      let socket = sockets.get(family);
      if (!socket) {
        socket = dgram.createSocket(family === 6 ? "udp6" : "udp4");
        socket.on("error", (err) => finish(err));
        socket.on("message", (message, peer) => {
          const server = servers.find((s) => s.address === peer.address && s.port === peer.port);
          if (!server) return; // not from a server we asked
          let response: packet.DecodedPacket;
          try {
            response = packet.decode(message);
          } catch {
            return;
          }
          if (response.id === id && response.type === "response") finish(null, { response, server });
        });
        sockets.set(family, socket);
      }
      return socket;
    };
    const send = () => {
      const server = servers[attempt++ % servers.length];
      socketFor(server.family).send(query, server.port, server.address);
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
