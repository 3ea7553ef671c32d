import type { Identity } from "./identity.ts";

/** The caller of a service function acting inside one organisation. */
export interface Actor {
  orgId: string;
  userId: string;
  identity: Identity;
  ip: string;
}
