import dgram from "node:dgram";
import net from "node:net";
import * as packet from "dns-packet";

type ZoneAnswer = packet.Answer;
/** Records, a response code, "silent" (never answer), or records served over TCP only (UDP answers truncated). */
export type ZoneEntry = ZoneAnswer[] | keyof typeof RCODE | "silent" | { tcpOnly: ZoneAnswer[] };

export interface TestDnsServer {
  /** "127.0.0.1:port", as a dns check's resolver field takes it. */
  address: string;
  stop(): Promise<void>;
}

const RCODE = { NXDOMAIN: 3, SERVFAIL: 2, REFUSED: 5 } as const;

/**
 * A tiny authoritative DNS server on one loopback port, UDP and TCP. Names missing from
 * `zone` are NXDOMAIN.
 */
export async function startDnsServer(zone: Record<string, ZoneEntry>): Promise<TestDnsServer> {
  const answer = (message: Buffer, overTcp: boolean): Buffer | null => {
    const query = packet.decode(message);
    const question = query.questions?.[0];
    if (!question) return null;
    const entry = zone[question.name.toLowerCase()] ?? "NXDOMAIN";
    if (entry === "silent") return null;
    let flags = packet.AUTHORITATIVE_ANSWER | packet.RECURSION_DESIRED;
    let records: ZoneAnswer[] = [];
    if (typeof entry === "string") flags |= RCODE[entry];
    else if (Array.isArray(entry)) records = entry;
    else if (overTcp) records = entry.tcpOnly;
    else flags |= packet.TRUNCATED_RESPONSE;
    const answers = records.filter((a) => a.type === question.type);
    return packet.encode({ type: "response", id: query.id, flags, questions: query.questions, answers });
  };

  const udp = dgram.createSocket("udp4");
  udp.on("message", (message, peer) => {
    const response = answer(message, false);
    if (response) udp.send(response, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
  const port = udp.address().port;

  const tcp = net.createServer((socket) => {
    socket.on("error", () => {});
    let buffered = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < 2 || buffered.length < 2 + buffered.readUInt16BE(0)) return;
      const response = answer(buffered.subarray(2, 2 + buffered.readUInt16BE(0)), true);
      if (!response) return;
      const length = Buffer.alloc(2);
      length.writeUInt16BE(response.length);
      socket.end(Buffer.concat([length, response]));
    });
  });
  await new Promise<void>((resolve) => tcp.listen(port, "127.0.0.1", resolve));

  return {
    address: `127.0.0.1:${port}`,
    stop: async () => {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}
