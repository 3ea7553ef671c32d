import { availableParallelism } from "node:os";
import { Type } from "@sinclair/typebox";
import { parseEnv } from "../core/config/parse-env.ts";

/** Variables only the all-in-one reads (every role's own variables apply as well). */
export const allInOneEnv = Type.Object({
  CHECK_THREADS: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 64, description: "worker threads that run the local region's checks, 0-64; 0 runs them on the main thread; default one per core beyond the first" }),
  ),
  CHECK_THREADS_CPU_PROF: Type.Optional(
    Type.String({ minLength: 1, description: "a directory: each check thread samples its JavaScript and writes thread-<n>.cpuprofile there when it stops (benches; `bun --cpu-prof` covers only the main thread)" }),
  ),
});

/** CHECK_THREADS, with its default: one thread per core beyond the first (the main thread keeps the other roles). */
export function loadAllInOneConfig(env: Record<string, string | undefined>, cores = availableParallelism()): { CHECK_THREADS: number; CHECK_THREADS_CPU_PROF?: string } {
  const config = parseEnv(allInOneEnv, env);
  return { CHECK_THREADS: config.CHECK_THREADS ?? Math.max(0, cores - 1), CHECK_THREADS_CPU_PROF: config.CHECK_THREADS_CPU_PROF };
}
