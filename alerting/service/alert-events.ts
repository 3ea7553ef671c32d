import type { Bus } from "../../core/bus/index.ts";
import { publishLiveEvent } from "../../domain/events/publish-live-event.ts";
import type { AlertBusEvent } from "../engine/decide.ts";

/** Puts alert events on the live stream (`events.<orgId>`, the LiveEvent envelope with these fields as data). */
export function publishAlertEvents(bus: Bus, events: AlertBusEvent[]): void {
  for (const { type, org_id, ...data } of events) publishLiveEvent(bus, org_id, type, data);
}
