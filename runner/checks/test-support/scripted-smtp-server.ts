import net, { type AddressInfo } from "node:net";
import type { Stoppable } from "./loopback-servers.ts";

/** What the server does with a command: a reply to write, or its own handling of the socket. */
type Answer = string | ((socket: net.Socket) => void);

/**
 * A TCP server for SMTP tests: on connect it writes `greeting` (or runs it on the socket), answers
 * each command whose verb it has an answer for, and is silent otherwise.
 */
export async function startScriptedServer(greeting: Answer | null, answers: Record<string, Answer>): Promise<Stoppable> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
    let buffered = "";
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString("latin1");
      for (let nl = buffered.indexOf("\r\n"); nl >= 0 && !socket.destroyed; nl = buffered.indexOf("\r\n")) {
        const answer = answers[buffered.slice(0, nl).split(" ")[0]!];
        buffered = buffered.slice(nl + 2);
        if (typeof answer === "string") socket.write(answer);
        else if (answer) {
          socket.off("data", onData);
          answer(socket);
        }
      }
    };
    socket.on("data", onData);
    if (typeof greeting === "string") socket.write(greeting);
    else greeting?.(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
