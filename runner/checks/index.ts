export { checks, isExecutableCheckType, MAX_TIMEOUT_MS, runCheck } from "./registry.ts";
export type { RunCheckOptions } from "./registry.ts";
export { configSchemas, monitorCheckSchema } from "./config-schemas.ts";
export type { CheckConfig, ConfigSchemas, MonitorCheck } from "./config-schemas.ts";
export {
  CHECK_STATUSES,
  CHECK_TYPES,
  CheckAbortedError,
  EXECUTABLE_CHECK_TYPES,
  InvalidCheckJobError,
} from "./types.ts";
export type {
  Check,
  CheckContext,
  CheckData,
  CheckDataValue,
  CheckEndpoints,
  CheckJob,
  CheckResult,
  CheckStatus,
  CheckType,
  ExecutableCheckType,
} from "./types.ts";
export { browserChecks, isBrowserCheckType, isRunnableCheckType } from "./registry.ts";
export { BROWSER_CHECK_TYPES, CheckUnavailableError } from "./types.ts";
export type { BrowserCheckType, CheckArtifact, CheckDataRecord } from "./types.ts";
