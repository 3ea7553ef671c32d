import { type Static, Type } from "@sinclair/typebox";
import { defineChannelSpec } from "../../../schemas/channels/channel-spec.ts";

const Address = Type.String({ pattern: "^[^\\s@<>(),;:\"\\[\\]\\\\]+@[^\\s@<>(),;:\"\\[\\]\\\\]+\\.[^\\s@<>(),;:\"\\[\\]\\\\]+$", maxLength: 254 });

/** Settings of an email channel; browser-safe, so the dashboard validates with it too. */
export const emailConfig = Type.Object(
  { to: Type.Union([Address, Type.Array(Address, { minItems: 1, maxItems: 20, uniqueItems: true })], { description: "Recipient address or list of addresses (at most 20)" }) },
  { additionalProperties: false },
);
export type EmailConfig = Static<typeof emailConfig>;

/** The email channel type, as the registry (schemas/channel-types.ts) lists it. */
export const emailSpec = defineChannelSpec({
  type: "email",
  label: "Email",
  help: "Sends an email to one or more addresses.",
  config: emailConfig,
  secretFields: [],
  messageFormat: { title: "plain", body: "html" },
});
