import type { Static, TObject } from "@sinclair/typebox";
import type { Issue } from "../validation.ts";
import type { MessageFormat } from "./message-template.ts";

/** What a channel is told: a new alert, its escalation or reminder, its recovery or acknowledgement, or a test send. */
export type AlertEventKind = "alert" | "escalation" | "reminder" | "recovery" | "acknowledgement" | "test";
export const alertEventKinds: readonly AlertEventKind[] = ["alert", "escalation", "reminder", "recovery", "acknowledgement", "test"];

/**
 * Everything the rest of the system knows about a channel type, declared once in
 * `alerting/channels/<type>/<type>-schema.ts` and listed once in `schemas/channel-types.ts`.
 */
export interface ChannelSpec<T extends string = string, C extends TObject = TObject> {
  type: T;
  /** Display name. */
  label: string;
  /** One sentence for the channel form and docs/channels.md's table. */
  help: string;
  /** The channel's settings; unknown keys are rejected. */
  config: C;
  /** Config keys holding secrets: encrypted at rest, masked on read. */
  secretFields: readonly string[];
  /**
   * Secret rotation: `{ previous_secret: "secret" }` lets an update send, in `previous_secret`, the
   * masked form of the stored `secret`, which then keeps that secret (unmasked) as the previous one.
   */
  rotatesFrom?: Readonly<Record<string, string>>;
  /**
   * Where a message template's output lands and how its values are escaped there
   * (schemas/channels/message-template.ts): the title's and the body's markup.
   */
  messageFormat: { title: MessageFormat; body: MessageFormat };
  /** Paging providers: their incidents follow our alert state, so they also get `acknowledgement`. */
  paging?: boolean;
  /** Checks the schema cannot express; runs only on a config the schema accepted. */
  validate?(config: Static<C>): Issue[];
}

export const defineChannelSpec = <const T extends string, C extends TObject>(spec: ChannelSpec<T, C>): ChannelSpec<T, C> => spec;
