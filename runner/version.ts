/** Reported to the API on every heartbeat; bump with package.json. */
export const RUNNER_VERSION = "0.1.0";
