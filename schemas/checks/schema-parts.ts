import { Type } from "@sinclair/typebox";

/** A host name or an IP literal (IPv6 with or without brackets); resolution and the guard judge it further. */
export const hostSchema = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern: "^[A-Za-z0-9._:\\[\\]-]+$",
  description: "Host name or IP address",
});

export const portSchema = Type.Integer({ minimum: 1, maximum: 65535 });

export const httpUrlSchema = Type.String({
  minLength: 8,
  maxLength: 2048,
  pattern: "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$",
  description: "http:// or https:// URL",
});
