import { type Static, Type } from "@sinclair/typebox";
import { commonEnv, metricsEnv } from "../core/config/common.ts";
import { EnvBool, parseEnv } from "../core/config/parse-env.ts";
import { smtpEnv } from "../core/config/smtp.ts";

export const apiEnv = Type.Object({
  ...commonEnv,
  ...smtpEnv,
  // /metrics never on the public listener (the proxy forwards PORT to the internet): its own port.
  ...metricsEnv,
  HOST: Type.String({ default: "127.0.0.1", description: "API listen address" }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: "API listen port, 0-65535" }),
  PUBLIC_BASE_URL: Type.Optional(Type.String({ pattern: "^https?://", description: "external URL of the API, e.g. https://watchpost.example.com" })),
  TRUST_PROXY: EnvBool(false, "take the client address from X-Forwarded-For"),
  RATE_LIMIT_PER_ORG: Type.Integer({ minimum: 1, default: 300, description: "authenticated requests per organisation per minute, at least 1" }),
  RATE_LIMIT_PER_SESSION: Type.Integer({
    minimum: 1,
    default: 600,
    description: "dashboard requests per signed-in user per minute (session cookie), a budget of its own apart from the organisation's API keys, at least 1",
  }),
  RATE_LIMIT_PER_IP: Type.Integer({ minimum: 1, default: 10, description: "unauthenticated requests per IP per minute, at least 1" }),
  RATE_LIMIT_PER_HEARTBEAT: Type.Integer({ minimum: 1, default: 60, description: "pings of one heartbeat monitor (its token) per minute, at least 1; pings are not counted as unauthenticated requests" }),
  RATE_LIMIT_PINGS_PER_IP: Type.Integer({ minimum: 1, default: 1200, description: "heartbeat pings per sending IP per minute across its monitors, at least 1" }),
  RATE_LIMIT_SIGNIN_PER_IP: Type.Integer({ minimum: 1, default: 5, description: "sign-in attempts per IP per minute, at least 1" }),
  RATE_LIMIT_SIGNUP_PER_IP: Type.Integer({ minimum: 1, default: 3, description: "sign-ups per IP per minute, at least 1" }),
  RATE_LIMIT_RESET_PER_IP: Type.Integer({ minimum: 1, default: 3, description: "password-reset requests per IP per minute, at least 1" }),
  MAX_BODY_BYTES: Type.Integer({ minimum: 1024, default: 1048576, description: "largest accepted request body in bytes, at least 1024" }),
  SSE_KEEPALIVE_SECONDS: Type.Integer({ minimum: 1, maximum: 300, default: 15, description: "how often GET /api/v1/events sends a comment line to keep proxies from closing the stream, 1-300 seconds" }),
  REGIONS: Type.String({
    default: "local",
    pattern: "^[a-z0-9-]+(,[a-z0-9-]+)*$",
    description: "comma-separated cloud region names this deployment checks from; the first is the default",
  }),
  REGION_LOCATIONS: Type.String({
    default: "local=Local",
    pattern: "^([a-z0-9-]+=[^,=]+(,[a-z0-9-]+=[^,=]+)*)?$",
    description: "display city of each region, e.g. eu-west=Frankfurt,us-east=Virginia",
  }),
  ALLOW_PRIVATE_IPS: EnvBool(false, "let the all-in-one's local region and the API's own outbound calls (channel and subscriber webhooks) reach private, loopback and link-local targets (self-hosting; the all-in-one defaults it to true when it does not bill)"),
  IPV6_EGRESS: EnvBool(false, "let the all-in-one's local region check IPv6 targets (the machine has IPv6 routes; the all-in-one defaults it to true when it does not bill, as ALLOW_PRIVATE_IPS); hosted cloud regions are IPv4 only"),
  BILLING: EnvBool(true, "bill organisations through the payment provider; off gives every organisation the unlimited plan (self-hosting, the all-in-one's default without PADDLE_API_KEY; there BILLING=simulator runs the demo payment simulator)"),
  SIGNUP_OPEN: Type.Optional(
    Type.Boolean({
      description:
        "let anyone who reaches the API create an account and an organisation (POST /auth/signup); off, people join by invitation only. Defaults to BILLING: open when billing, closed when self-hosted; true or false (also 1/0, yes/no, on/off)",
    }),
  ),
  PADDLE_API_URL: Type.String({ pattern: "^https?://", default: "https://api.paddle.com", description: "payment provider API (Paddle Billing, its sandbox, or bun run billing-sim)" }),
  PADDLE_API_KEY: Type.Optional(Type.String({ minLength: 1, description: "payment provider API key; billing writes are refused without it" })),
  PADDLE_WEBHOOK_SECRETS: Type.Optional(Type.String({ minLength: 1, description: "webhook signing secrets, comma-separated (several while rotating)" })),
  BILLING_WEBHOOK_WINDOW_SECONDS: Type.Integer({ minimum: 10, default: 300, description: "accepted age of a webhook signature timestamp in seconds, at least 10" }),
  BILLING_SIMULATOR: EnvBool(false, "run the payment-provider simulator in-process instead of Paddle (development only; in the all-in-one BILLING=simulator sets it)"),
  BILLING_SIM_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 4010, description: "port of the in-process billing simulator, 0-65535" }),
  SSO_ALLOW_HTTP_ISSUER: EnvBool(false, "accept http:// OIDC issuers that are not on loopback for single sign-on (a lab or an internal provider without TLS; loopback issuers are always accepted)"),
  SESSION_TTL_HOURS: Type.Integer({ minimum: 1, default: 720, description: "session lifetime in hours, at least 1" }),
  RUNNER_IMAGE_REGISTRY: Type.String({
    minLength: 1,
    default: "registry.example.com/watchpost",
    description: "registry path of the runner images (<registry>/runner-<variant>:latest), shown in the dashboard's docker run lines",
  }),
  STATUS_PAGE_DNS_SERVERS: Type.Optional(
    Type.String({ pattern: "^[^,\\s]+(,[^,\\s]+)*$", description: "DNS servers (address or address:port, comma-separated) asked for custom-domain TXT records; the system's when unset" }),
  ),
});

export type ApiConfig = Static<typeof apiEnv>;

export const loadApiConfig = (env: Record<string, string | undefined>): ApiConfig => parseEnv(apiEnv, env);

/**
 * Whether strangers may sign up: `SIGNUP_OPEN`, else open where organisations are billed and closed where they are
 * not (self-hosted: every organisation gets the unlimited plan, and the local region may reach private addresses).
 */
export const signupOpen = (config: Pick<ApiConfig, "SIGNUP_OPEN" | "BILLING">): boolean => config.SIGNUP_OPEN ?? config.BILLING;
