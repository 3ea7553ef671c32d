import { generateSchemaTypes, SCHEMA_PATH } from "./openapi-types.ts";

/** `bun scripts/gen-api-types.ts`: regenerates web/src/api/schema.gen.ts from the in-process API. */
await Bun.write(SCHEMA_PATH, await generateSchemaTypes());
console.log(`wrote ${SCHEMA_PATH}`);
process.exit(0);
