import type { TObject, TProperties, TSchema } from "@sinclair/typebox";
import { t } from "elysia";

/** Objects reject unknown fields: a client object is never spread into a row. */
export const Obj = <P extends TProperties>(properties: P, options: { description?: string; title?: string } = {}) =>
  t.Object(properties, { additionalProperties: false, ...options });

export const Id = t.String({ minLength: 1, maxLength: 64 });
export const IdParams = Obj({ id: Id });
export const Timestamp = t.String({ format: "date-time" });

export const ErrorBody = t.Object(
  {
    error: t.String({ description: "Human-readable message" }),
    code: t.String({ description: "Stable machine-readable identifier" }),
    details: t.Optional(t.Record(t.String(), t.Unknown(), { description: "Structured context: validation issues, entitlement, retry timing" })),
  },
  { title: "ErrorBody" },
);

export const PaginationQuery = {
  page: t.Integer({ minimum: 1, default: 1, description: "Page number, at least 1" }),
  limit: t.Integer({ minimum: 1, maximum: 100, default: 20, description: "Page size, 1 to 100" }),
};

export const PaginationMeta = t.Object({
  page: t.Integer(),
  limit: t.Integer(),
  total: t.Integer(),
  totalPages: t.Integer(),
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

export type { TObject };
