import { JetStreamApiError, JetStreamError } from "@nats-io/jetstream";
import { ClosedConnectionError, ConnectionError, DrainingConnectionError, NoRespondersError, RequestError, TimeoutError } from "@nats-io/transport-node";
import { BusUnavailableError } from "./types.ts";

/**
 * Whether a NATS client error means the server could not be reached or did not answer: disconnected or reconnecting
 * (a request timed out, was cut off or found no JetStream to answer it), restarting (JetStream's "server shutdown",
 * missed heartbeats of a pull) or temporarily unavailable (a JetStream API answer with status 503). Not an outage: the
 * server answering that something is wrong (a stream not found, a bad request), which retrying would not change.
 */
export function isNatsOutage(err: unknown): boolean {
  if (err instanceof JetStreamApiError) return err.status === 503;
  // JetStreamError covers JetStreamStatusError (a pull's status: server shutdown, 503, 408, 409) and "heartbeats missed".
  if (err instanceof JetStreamError) return true;
  if (err instanceof TimeoutError || err instanceof RequestError || err instanceof NoRespondersError) return true;
  if (err instanceof ConnectionError || err instanceof ClosedConnectionError || err instanceof DrainingConnectionError) return true;
  // JetStreamNotEnabled (no responder on the JetStream API while the server starts) is a plain Error by name.
  return err instanceof Error && (err.name === "JetStreamNotEnabled" || isNatsOutage(err.cause));
}

/** Runs one round trip to NATS; an outage rejects with BusUnavailableError (its cause the client's error), the rest as thrown. */
export async function duringOutage<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw isNatsOutage(err) ? new BusUnavailableError(operation, { cause: err }) : err;
  }
}
