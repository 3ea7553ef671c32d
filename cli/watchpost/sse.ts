/** One Server-Sent Events message. */
export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

/** Reads an event stream (text/event-stream) message by message; comments and `retry:` lines are skipped. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = "";
  let msg: SseMessage = { id: null, event: "message", data: "" };
  let hasData = false;
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl = buffer.search(/\r?\n/);
    while (nl >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(buffer[nl] === "\r" ? nl + 2 : nl + 1);
      if (line === "") {
        if (hasData) yield msg;
        msg = { id: null, event: "message", data: "" };
        hasData = false;
      } else if (!line.startsWith(":")) {
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") {
          msg.data = hasData ? `${msg.data}\n${value}` : value;
          hasData = true;
        } else if (field === "event") msg.event = value;
        else if (field === "id") msg.id = value;
      }
      nl = buffer.search(/\r?\n/);
    }
  }
}
