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
  // One port for both: TCP's from the kernel, then UDP on the same number (free for UDP nearly always; else another).
  // Taking UDP's first and asking TCP for it raced with any connection that had that port as its own.
  let udp: dgram.Socket | undefined;
  let port = 0;
  for (let attempt = 0; !udp; attempt++) {
    await new Promise<void>((resolve, reject) => {
      tcp.once("error", reject);
      tcp.listen(0, "127.0.0.1", () => {
        tcp.off("error", reject);
        resolve();
      });
    });
    port = (tcp.address() as net.AddressInfo).port;
    const socket = dgram.createSocket("udp4");
    const bound = await new Promise<boolean>((resolve) => {
      socket.once("error", () => resolve(false));
      socket.bind(port, "127.0.0.1", () => resolve(true));
    });
    if (bound) udp = socket;
    else {
      socket.close();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
      if (attempt >= 20) throw new Error("test DNS server: no port free for both TCP and UDP");
    }
  }
  const udpSocket = udp;
  udpSocket.on("message", (message, peer) => {
    const response = answer(message, false);
    if (response) udpSocket.send(response, peer.port, peer.address);
  });

  return {
    address: `127.0.0.1:${port}`,
    stop: async () => {
      await new Promise<void>((resolve) => udpSocket.close(() => resolve()));
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}
