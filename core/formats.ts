import { FormatRegistry } from "@sinclair/typebox";

/** String formats TypeBox's Value.Check needs outside Elysia (which registers its own). */
const formats: Record<string, (value: string) => boolean> = {
  "date-time": (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v)),
  email: (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v),
  uri: (v) => URL.canParse(v),
};

for (const [name, check] of Object.entries(formats)) if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check);
