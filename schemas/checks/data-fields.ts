import { Type, type TObject, type TSchema } from "@sinclair/typebox";

/** A measured field: its value, or null when the check could not measure it. */
export const nullable = <S extends TSchema>(schema: S, description: string) => Type.Union([schema, Type.Null()], { description });

export const msField = (description: string) => nullable(Type.Number({ minimum: 0 }), description);
export const intField = (description: string) => nullable(Type.Integer(), description);
export const textField = (description: string) => nullable(Type.String(), description);
export const flagField = (description: string) => nullable(Type.Boolean(), description);
export const listField = (description: string) => nullable(Type.Array(Type.String()), description);

/**
 * The `data` of a check type's results: every field is always present (null when not measured),
 * and no other key appears. Also the OpenAPI component <Type>Data.
 */
export const dataObject = <P extends Record<string, TSchema>>(title: string, properties: P, description?: string) =>
  Type.Object(properties, { additionalProperties: false, title, ...(description ? { description } : {}) });

/** Field name → description, as the Check interface lists them. */
export function describeFields(schema: TObject): Readonly<Record<string, string>> {
  return Object.fromEntries(Object.entries(schema.properties).map(([name, s]) => [name, (s as { description?: string }).description ?? ""]));
}
