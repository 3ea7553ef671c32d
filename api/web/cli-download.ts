import { Elysia } from "elysia";
import { join } from "node:path";

/** The `watchpost` CLI's entry point (the repository's `bin`). */
const CLI_ENTRY = join(import.meta.dir, "..", "..", "cli", "watchpost", "main.ts");
const CLI_DOWNLOAD_PATH = "/cli/watchpost.js";

/** The CLI and everything it imports as one file for Bun (a shebang first), built once per process on first request. */
async function bundleCli(): Promise<string> {
  const out = await Bun.build({ entrypoints: [CLI_ENTRY], target: "bun", minify: true });
  if (!out.success || !out.outputs[0]) throw new AggregateError(out.logs, "building the CLI bundle failed");
  return out.outputs[0].text();
}

/**
 * `GET /cli/watchpost.js`: the `watchpost` CLI of this server's version as one file, run with `bun watchpost.js`. It is
 * not published to a package registry, so CI jobs and other machines take it from the server they talk to
 * (docs/cli.md). Public: it holds no secret, only the code of this repository.
 */
export function cliDownload() {
  let bundle: Promise<string> | null = null;
  return new Elysia({ name: "cli-download" }).get(
    CLI_DOWNLOAD_PATH,
    async () => {
      const text = await (bundle ??= bundleCli().catch((err) => {
        bundle = null;
        throw err;
      }));
      return new Response(text, {
        headers: { "content-type": "text/javascript; charset=utf-8", "content-disposition": 'attachment; filename="watchpost.js"', "cache-control": "no-cache" },
      });
    },
    { detail: { hide: true } },
  );
}
