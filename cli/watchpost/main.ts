#!/usr/bin/env bun
import { runCli } from "./program.ts";

/** `watchpost` — the user CLI (docs/cli.md). It talks only to the public REST API. */
process.exit(await runCli(process.argv.slice(2)));
