import { rmSync } from "node:fs";
import { WEB_DIST, webBuildOptions } from "../api/web/build.ts";

/** `bun scripts/build-web.ts`: bundles web/ into web/dist (the API serves it at /). */
rmSync(WEB_DIST, { recursive: true, force: true });
const out = await Bun.build({ ...webBuildOptions, entrypoints: [...webBuildOptions.entrypoints], outdir: WEB_DIST });
if (!out.success) {
  for (const log of out.logs) console.error(log);
  process.exit(1);
}
for (const o of out.outputs) console.log(`${o.path}  ${(o.size / 1024).toFixed(1)} KB`);
