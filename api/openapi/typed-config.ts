type Schema = { type?: string; required?: string[]; properties?: Record<string, Schema>; [k: string]: unknown };

/**
 * A body whose `config` depends on its `type` is validated in code against the type's schema; the
 * document says so exactly: on create, one variant per type (`type` fixed, `config` that type's
 * component); on change (type optional), `config` is one of the types' configs (the monitor's own).
 */
export function typeConfigBody(body: Schema, refsByRegistry: Record<string, Record<string, string>>): Schema {
  const config = body.properties?.config;
  const registry = config?.["x-config-of"] as string | undefined;
  if (!config || !registry) return body;
  const refs = refsByRegistry[registry] ?? {};
  const { "x-config-of": _, ...plain } = config;
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  if (!body.required?.includes("type")) {
    return { ...body, properties: { ...body.properties, config: { description: plain.description, anyOf: Object.values(refs).map(ref) } } };
  }
  const { properties, ...rest } = body;
  return {
    ...(rest.title ? { title: rest.title } : {}),
    ...(rest.description ? { description: rest.description } : {}),
    oneOf: Object.entries(refs).map(([type, name]) => ({
      ...rest,
      title: undefined,
      properties: { ...properties, type: { type: "string", const: type }, config: { ...ref(name), description: plain.description } },
    })),
    discriminator: { propertyName: "type" },
  };
}
