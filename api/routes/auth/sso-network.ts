import { createHttpFetch } from "../../../core/http/guarded-fetch.ts";
import type { SsoNetwork } from "../../../domain/accounts/sso-provider.ts";
import type { ApiDeps } from "../../context.ts";

/** How this API reaches identity providers: the net guard (ALLOW_PRIVATE_IPS), SSO_ALLOW_HTTP_ISSUER, 10 s per request. */
export const ssoNetworkOf = (deps: ApiDeps): SsoNetwork => ({
  fetch: createHttpFetch({ allowPrivateAddresses: deps.config.ALLOW_PRIVATE_IPS }),
  allowHttpIssuer: deps.config.SSO_ALLOW_HTTP_ISSUER,
  timeoutSeconds: 10,
});

/** The callback URL registered with every provider. */
export const ssoCallbackUrl = (deps: ApiDeps) => `${deps.publicBaseUrl}/api/v1/auth/sso/callback`;
