import { type IntegerOptions, type TProperties, type TSchema, Type } from "@sinclair/typebox";
import { t } from "elysia";
import "../../schemas/formats.ts";

/** Objects reject unknown fields: a client object is never spread into a row. */
export const Obj = <P extends TProperties>(properties: P, options: { description?: string; title?: string; minProperties?: number } = {}) =>
  t.Object(properties, { additionalProperties: false, ...options });

/**
 * An integer in a JSON body or answer: a JSON number only. Elysia's t.Integer also takes any text that
 * `+text` turns into one ("1e3", " 60", "0x10"); that leniency is for query strings, which are all text.
 */
export const Int = (options: IntegerOptions = {}) => Type.Integer(options);

export const Id = t.String({ minLength: 1, maxLength: 64 });
export const IdParams = Obj({ id: Id });
export const Timestamp = t.String({ format: "date-time" });

/**
 * A name or title people read: at least one visible character (not only spaces or zero-width
 * characters, which make an entry impossible to tell apart or click) and no control characters.
 */
export const VISIBLE_TEXT = "^(?=.*[^\\s\\u200B-\\u200D\\u2060\\uFEFF\\u00AD])[^\\u0000-\\u001F\\u007F]*$";
/** A time of day, HH:MM on a 24-hour clock. */
export const TIME_OF_DAY = "^([01][0-9]|2[0-3]):[0-5][0-9]$";
/** A process's exit status as a path segment: 0 to 255, no sign, no leading zero. */
export const EXIT_STATUS = "^(0|[1-9][0-9]?|1[0-9][0-9]|2[0-4][0-9]|25[0-5])$";
export const DisplayName = (maxLength: number, options: { description?: string } = {}) =>
  t.String({ minLength: 1, maxLength, pattern: VISIBLE_TEXT, ...options });

const MAX_PAGE = 100_000;

export const PaginationQuery = {
  // The bound keeps the row offset (page × limit) far inside PostgreSQL's bigint.
  page: t.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: `Page number, 1 to ${MAX_PAGE}` }),
  limit: t.Integer({ minimum: 1, maximum: 100, default: 20, description: "Page size, 1 to 100" }),
};

/** The `pagination` of every collection (component `Pagination` in the OpenAPI document). */
export const PaginationMeta = t.Object({
  page: Int(),
  limit: Int(),
  total: Int(),
  totalPages: Int(),
  hasMore: t.Boolean(),
});

export const paginated = <S extends TSchema>(item: S) => t.Object({ data: t.Array(item), pagination: PaginationMeta });

export interface Page<T> {
  data: T[];
  pagination: { page: number; limit: number; total: number; totalPages: number; hasMore: boolean };
}

export function toPage<T>(rows: T[], total: number, page: number, limit: number): Page<T> {
  const totalPages = Math.ceil(total / limit);
  return { data: rows, pagination: { page, limit, total, totalPages, hasMore: page < totalPages } };
}
