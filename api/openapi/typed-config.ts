type Schema = { type?: string; required?: string[]; properties?: Record<string, Schema>; [k: string]: unknown };

/** `browser_flow` → `BrowserFlow`: how a registry's type names its components (HttpConfig, HttpMonitor, WebhookAlertChannel). */
export const pascal = (s: string) => s.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());

/**
 * A body whose `config` depends on its `type` is validated in code against the type's schema; the
 * document says so exactly: on create, one variant per type (`type` fixed, `config` that type's
 * component); on change (type optional), `config` is one of the types' configs (the monitor's own).
 */
export function typeConfigBody(body: Schema, refsByRegistry: Record<string, Record<string, string>>): Schema {
  body = typeMarkedProperties(typeArrayItems(body, refsByRegistry), refsByRegistry);
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

/**
 * An answer (a component such as Monitor or AlertChannel) whose `config` depends on its `type`: one named
 * component per type (`HttpMonitor`: `type` fixed, `config` the type's component), and the component itself
 * a `oneOf` of them discriminated by `type`, so a generated client narrows `config` by checking `type`.
 * Marked properties (an alert rule's `scope` and `condition`) become discriminated unions as in bodies.
 */
export function typeConfigView(name: string, view: Schema, refsByRegistry: Record<string, Record<string, string>>): Record<string, Schema> {
  view = typeMarkedProperties(view, refsByRegistry);
  const config = view.properties?.config;
  const registry = config?.["x-config-of"] as string | undefined;
  if (!config || !registry) return { [name]: view };
  const { "x-config-of": _, ...plain } = config;
  const { title: __, description, ...rest } = view;
  const variants = Object.entries(refsByRegistry[registry] ?? {}).map(([type, ref]) => {
    const variant = `${pascal(type)}${name}`;
    const schema: Schema = {
      ...rest,
      title: variant,
      properties: { ...view.properties, type: { type: "string", const: type }, config: { description: plain.description, $ref: `#/components/schemas/${ref}` } },
    };
    return [type, variant, schema] as const;
  });
  return {
    [name]: {
      title: name,
      ...(description ? { description } : {}),
      oneOf: variants.map(([, variant]) => ({ $ref: `#/components/schemas/${variant}` })),
      discriminator: { propertyName: "type", mapping: Object.fromEntries(variants.map(([type, variant]) => [type, `#/components/schemas/${variant}`])) },
    },
    ...Object.fromEntries(variants.map(([, variant, schema]) => [variant, schema])),
  };
}

/** A property checked in code against one of a registry's schemas (alert-rule scope and condition) says which ones. */
function typeMarkedProperties(body: Schema, refsByRegistry: Record<string, Record<string, string>>): Schema {
  if (!body.properties || !Object.values(body.properties).some((p) => p["x-one-of"])) return body;
  const properties = Object.fromEntries(
    Object.entries(body.properties).map(([name, p]) => {
      const registry = p["x-one-of"] as string | undefined;
      if (!registry) return [name, p];
      const byType = Object.entries(refsByRegistry[registry] ?? {}).map(([type, ref]) => [type, `#/components/schemas/${ref}`] as const);
      // The mapping names each variant by its `type` value (without one, generators take the component's name for it).
      const discriminator = { propertyName: "type", mapping: Object.fromEntries(byType) };
      return [name, { description: p.description, oneOf: byType.map(([, $ref]) => ({ $ref })), discriminator }];
    }),
  );
  return { ...body, properties };
}

/** A list of such bodies (POST /monitors/bulk: `{ monitors: [...] }`): each item is typed the same way. */
function typeArrayItems(body: Schema, refsByRegistry: Record<string, Record<string, string>>): Schema {
  const typed = (p: Schema) => p.type === "array" && (p.items as Schema | undefined)?.properties?.config?.["x-config-of"] !== undefined;
  if (!body.properties || !Object.values(body.properties).some(typed)) return body;
  const properties = Object.fromEntries(Object.entries(body.properties).map(([name, p]) => [name, typed(p) ? { ...p, items: typeConfigBody(p.items as Schema, refsByRegistry) } : p]));
  return { ...body, properties };
}
