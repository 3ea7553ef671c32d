import { exitOnConfigError } from "../core/config/parse-env.ts";
import { ApiError } from "./api-client.ts";
import { RunnerAgent, STOP_DEADLINE_MS } from "./agent.ts";
import { assertBrowsersShipped } from "./browser-engines.ts";
import { startBrowserPool } from "./checks/browser/browser-env.ts";
import { loadRunnerConfig } from "./config.ts";
import { createRunnerLogger, logRunnerStart } from "./log.ts";

/**
 * `bun run runner`: the self-hosted runner. Outbound HTTPS only, no listening port, nothing
 * written outside /tmp. Exit codes: 0 stopped, 78 bad configuration, 1 handshake failure, 2 token refused.
 */
let config;
try {
  config = loadRunnerConfig(process.env);
  assertBrowsersShipped(config.BROWSERS, process.env);
} catch (err) {
  exitOnConfigError(err);
}
const log = createRunnerLogger(config.LOG_LEVEL, config.LOG_FORMAT);
logRunnerStart(log, config);
if (config.ALLOW_UNENCRYPTED_SESSION) log.warn({ op: "runner.config" }, "ALLOW_UNENCRYPTED_SESSION=true: payload encryption is OFF; local development only");

// Warm browsers for BROWSERS (none: no pool); a browser that cannot start stops the runner here.
let browsers;
try {
  browsers = await startBrowserPool({ BROWSERS: config.BROWSERS, BROWSER_POOL_SIZE: config.BROWSER_POOL_SIZE, CHROMIUM_PATH: process.env.CHROMIUM_PATH, NODE_EXTRA_CA_CERTS: config.NODE_EXTRA_CA_CERTS }, log);
} catch (err) {
  log.fatal({ op: "runner.browsers", err: err instanceof Error ? err.message : String(err) }, "browsers could not start; refusing to start (exit code 1)");
  await Bun.sleep(50);
  process.exit(1);
}

const agent = new RunnerAgent({ config, log, browsers });
try {
  await agent.connect();
} catch (err) {
  const code = err instanceof ApiError && err.fatal ? 2 : 1;
  log.fatal({ op: "runner.handshake", err: err instanceof Error ? err.message : String(err) }, "session handshake failed; refusing to start (exit code 1; 2 when the token is refused)");
  await browsers?.close();
  await Bun.sleep(50);
  process.exit(code);
}
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    void agent.stop(signal);
    // The stop is bounded (STOP_DEADLINE_MS); this is the net under it, should closing the browsers hang.
    setTimeout(() => {
      log.warn({ op: "runner.stop", signal }, "shutdown overran its deadline; exiting now");
      process.exit(agent.exitCode);
    }, STOP_DEADLINE_MS + 3000).unref();
  });
}
const code = await agent.run();
await browsers?.close();
await Bun.sleep(50);
process.exit(code);
