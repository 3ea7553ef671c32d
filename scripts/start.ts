import { exitOnConfigError } from "../core/config/parse-env.ts";
import { runAllInOne } from "./all-in-one.ts";

/** `bun run start`: every role in one process (see all-in-one.ts). */
await runAllInOne(process.env).catch(exitOnConfigError);
