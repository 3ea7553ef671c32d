/** One error family for the whole API; a single handler maps it to the spec's error body. */
export type ErrorCode =
  | "VALIDATION_ERROR"
  | "UNAUTHENTICATED"
  | "PERMISSION_DENIED"
  | "ENTITLEMENT_REQUIRED"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "RATE_LIMIT_EXCEEDED"
  | "INTERNAL_ERROR"
  | "SERVICE_UNAVAILABLE"
  // Runner protocol (docs/runners.md): a runner exits on RUNNER_TOKEN_INVALID, re-handshakes on RUNNER_SESSION_INVALID.
  | "RUNNER_TOKEN_INVALID"
  | "RUNNER_HTTPS_REQUIRED"
  | "RUNNER_SESSION_INVALID"
  | "RUNNER_PAYLOAD_INVALID"
  | "RUNNER_PLAINTEXT_REFUSED"
  | "RUNNER_REPLAY"
  | "RUNNER_CLAIM_FOREIGN";

export interface ErrorBody {
  error: string;
  code: string;
  details?: Record<string, unknown>;
}

export interface ValidationIssue {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  toBody(): ErrorBody {
    return this.details ? { error: this.message, code: this.code, details: this.details } : { error: this.message, code: this.code };
  }
}

export const validationError = (issues: ValidationIssue[], message = "Request validation failed") =>
  new AppError(400, "VALIDATION_ERROR", message, { issues });
export const unauthenticated = (message = "Authentication required") => new AppError(401, "UNAUTHENTICATED", message);
export const permissionDenied = (message = "You do not have permission to do this", details?: Record<string, unknown>) =>
  new AppError(403, "PERMISSION_DENIED", message, details);
export const entitlementRequired = (entitlement: string, message: string, details: Record<string, unknown> = {}) =>
  new AppError(403, "ENTITLEMENT_REQUIRED", message, { entitlement, ...details });
export const notFound = (what = "Resource") => new AppError(404, "NOT_FOUND", `${what} not found`);
export const conflict = (message: string, details?: Record<string, unknown>) => new AppError(409, "CONFLICT", message, details);
export const rateLimited = (retryAfterSeconds: number) =>
  new AppError(429, "RATE_LIMIT_EXCEEDED", "Too many requests", { retryAfterSeconds });
