import { Elysia } from "elysia";
import { getSsoConfig, removeSsoConfig, saveSsoConfig, testSsoConnection } from "../../../domain/accounts/sso-config.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { ssoCallbackUrl, ssoNetworkOf } from "../auth/sso-network.ts";
import { SsoConfigBody, SsoConfigView, SsoTestBody, SsoTestReport, toSsoConfigView } from "./sso-schemas.ts";

/** The active organisation's OpenID Connect provider (admins): docs/sso.md. Changes land in the audit log as org.sso.*. */
export const ssoConfigRoutes = (deps: ApiDeps) => {
  const net = ssoNetworkOf(deps);
  return new Elysia({ prefix: "/sso" })
    .use(authPlugin)
    .guard({ requires: "org:admin" }, (app) =>
      app
        .get("", async ({ actor }) => toSsoConfigView(await getSsoConfig({ sql: deps.sql, actor }), ssoCallbackUrl(deps)), {
          response: { 200: SsoConfigView },
          detail: { summary: "The organisation's single sign-on (OIDC) configuration; the client secret is never returned" },
        })
        .put(
          "",
          async ({ actor, body }) => toSsoConfigView(await saveSsoConfig({ sql: deps.sql, actor }, deps.box, net.allowHttpIssuer, body), ssoCallbackUrl(deps)),
          {
            body: SsoConfigBody,
            response: { 200: SsoConfigView },
            detail: {
              summary: "Create or replace the single sign-on configuration",
              description: "409 when another organisation uses the slug or claims one of the email domains."
            },
          },
        )
        .delete(
          "",
          async ({ actor, set }) => {
            await removeSsoConfig({ sql: deps.sql, actor });
            set.status = 204;
          },
          { detail: { summary: "Turn single sign-on off (accounts stay; password sign-in works again)" } },
        )
        .post("/test", ({ body }) => testSsoConnection(net, body), {
          body: SsoTestBody,
          response: { 200: SsoTestReport },
          detail: { summary: "Fetch an issuer's discovery document as sign-in would, and report what it offers" },
        }),
    );
};
