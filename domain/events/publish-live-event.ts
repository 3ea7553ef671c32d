import type { Bus } from "../../core/bus/index.ts";
import { type LiveEvent, type LiveEventType, newEventId } from "../../schemas/events/live-event-types.ts";

/** Publishes one live event for an organisation (core NATS or in-process; not persisted). */
export function publishLiveEvent<T>(bus: Bus, orgId: string, type: LiveEventType, data: T): LiveEvent<T> {
  const event: LiveEvent<T> = { id: newEventId(), type, org_id: orgId, at: new Date().toISOString(), data };
  bus.publishEvent(`events.${orgId}`, event);
  return event;
}
