import { type ApiConfig, loadApiConfig } from "../../api/config.ts";
import { buildApiDeps, startApiServer, type ApiServer } from "../../api/server.ts";
import { provisionOrg, type Provisioned } from "../../domain/accounts/provision.ts";
import type { Sql } from "../../db/client.ts";
import { silentLogger } from "../../core/log.ts";
import { createMemoryMailer, type Mailer } from "../../core/mail/mailer.ts";
import { createTestDatabase, type TestDatabase } from "./db.ts";
import { type Bus, type ConsumerHandle, createMemoryBus } from "../../core/bus/index.ts";
import type { SecretBox } from "../../core/crypto/secrets.ts";
import type { BrowserPool } from "../../runner/checks/browser/browser-pool.ts";
import { startRunNowServer } from "../../runner/cloud/run-now-server.ts";
import { jobRunner } from "../../runner/cloud/worker.ts";
import { startChannelTestServer } from "../../alerting/rpc/channel-test.ts";
import { smtpSettingsOf } from "../../core/config/smtp.ts";
import { createChannelContext } from "../../alerting/channels/context.ts";
import { startSubscriberDispatcher } from "../../alerting/notices/subscriber-notices.ts";
import { startMailOutbox } from "../../alerting/outbox/mail-outbox.ts";

export const TEST_SECRET_KEY = "test-secret-key-0123456789abcdef0123456789";

export interface TestApi {
  url: string;
  sql: Sql;
  db: TestDatabase;
  server: ApiServer;
  /** What the outbox deliverers sent (mail queued by the API, incident notices to subscribers). */
  mailer: ReturnType<typeof createMemoryMailer>;
  /** Sends every queued message and notice that is due now; read `mailer.sent` after it. */
  flushMail(): Promise<void>;
  bus: Bus;
  /** Answers run-now for the API's regions, as a cloud worker does; null when started without one. */
  worker: TestWorker | null;
  stop(): Promise<void>;
}

export interface TestApiOptions {
  /** Regions a test worker answers run-now for; default every region of REGIONS, [] for none. */
  workerRegions?: string[];
  /** Answer channel test sends as the alerting role does; default true. */
  alerting?: boolean;
}

export interface TestWorker {
  /** Browsers the worker runs browser checks with (it then also serves the engines' run-now subjects); null for none. */
  setBrowsers(pool: BrowserPool | null): Promise<void>;
  stop(): Promise<void>;
}

/**
 * What a cloud worker does for run-now, without consuming the region's job queues: the API runs no
 * checks, so API tests need one to answer `rpc.run-now.region.<region>[.<engine>]`.
 */
export async function startTestWorker(o: { bus: Bus; sql: Sql; box: SecretBox; regions: string[]; allowPrivate: boolean; ipv6?: boolean }): Promise<TestWorker> {
  let browsers: BrowserPool | null = null;
  let servers: ConsumerHandle[] = [];
  const start = async () => {
    const run = jobRunner({ box: o.box, log: silentLogger, allowPrivate: o.allowPrivate, ipv6: o.ipv6, browsers });
    const engines = [...(browsers?.engines ?? [])];
    servers = await Promise.all(o.regions.map((region) => startRunNowServer({ bus: o.bus, log: silentLogger, region, engines, run })));
  };
  const stop = async () => {
    await Promise.all(servers.map((s) => s.stop()));
    servers = [];
  };
  await start();
  return {
    async setBrowsers(pool) {
      await stop();
      browsers = pool;
      await start();
    },
    stop,
  };
}

/** A real API listening on a loopback port, on its own database. Rate limits are generous unless set. */
export async function startTestApi(env: Record<string, string> = {}, db?: TestDatabase, sharedBus?: Bus, opts: TestApiOptions = {}): Promise<TestApi> {
  const database = db ?? (await createTestDatabase());
  const config = loadApiConfig({
    DATABASE_URL: database.url,
    PORT: "0",
    HOST: "127.0.0.1",
    RATE_LIMIT_PER_ORG: "100000", RATE_LIMIT_PER_SESSION: "100000",
    RATE_LIMIT_PER_IP: "100000",
    RATE_LIMIT_SIGNIN_PER_IP: "100000",
    RATE_LIMIT_SIGNUP_PER_IP: "100000",
    RATE_LIMIT_RESET_PER_IP: "100000",
    LOG_LEVEL: "silent",
    ...env,
  });
  const mailer = createMemoryMailer();
  const bus = sharedBus ?? createMemoryBus();
  // As createBus does for every role: the streams exist before the first request.
  if (!sharedBus) await bus.ensureTopology();
  const server = await startApiServer(buildApiDeps({ sql: database.sql, config, log: silentLogger, secretKey: TEST_SECRET_KEY, bus }));
  const outboxes = await startOutboxes(server, mailer);
  const regions = opts.workerRegions ?? config.REGIONS.split(",");
  const worker = regions.length > 0 ? await startTestWorker({ bus, sql: database.sql, box: server.deps.box, regions, allowPrivate: config.ALLOW_PRIVATE_IPS, ipv6: config.IPV6_EGRESS }) : null;
  const channelTests = opts.alerting === false ? null : await startTestAlertingRpc(server, config);
  return {
    url: server.url,
    sql: database.sql,
    db: database,
    server,
    mailer,
    flushMail: outboxes.flush,
    bus,
    worker,
    async stop() {
      await worker?.stop();
      await channelTests?.stop();
      await server.stop(1000);
      await outboxes.stop();
      if (!sharedBus) await bus.close();
      if (!db) await database.drop();
    },
  };
}

/** The alerting role's test-send server on the API's bus, with the API's outbound settings (as the all-in-one gives it). */
export function startTestAlertingRpc(server: ApiServer, config: ApiConfig): Promise<ConsumerHandle> {
  const { deps } = server;
  const channelCtx = createChannelContext({ publicBaseUrl: deps.publicBaseUrl, allowPrivateAddresses: config.ALLOW_PRIVATE_IPS, smtp: smtpSettingsOf(config), log: silentLogger });
  return startChannelTestServer({ sql: deps.sql, bus: deps.bus, box: deps.box, log: silentLogger, channelCtx });
}

/**
 * The API only writes outbox rows; in a deployment the alerting role sends them. These are the role's two
 * deliverers (mail, incident notices) for a test API, sending with `mailer`.
 */
export async function startOutboxes(server: ApiServer, mailer: Mailer): Promise<{ flush(): Promise<void>; stop(): Promise<void> }> {
  const { sql, box, publicBaseUrl, config } = server.deps;
  const mail = await startMailOutbox({ sql, box, mailer, log: silentLogger });
  const channelCtx = createChannelContext({ publicBaseUrl, allowPrivateAddresses: config.ALLOW_PRIVATE_IPS, log: silentLogger });
  const notices = await startSubscriberDispatcher({ sql, box, mailer, baseUrl: publicBaseUrl, log: silentLogger, channelCtx });
  return {
    async flush() {
      await mail.flush();
      await notices.flush();
    },
    async stop() {
      await notices.stop();
      await mail.stop();
    },
  };
}

let counter = 0;

/** A new organisation with its owner and an org:admin key; each test makes its own. */
export function makeOrg(sql: Sql, planId = "free"): Promise<Provisioned & { email: string; password: string }> {
  const n = `${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const email = `owner-${n}@example.test`;
  const password = "correct horse battery";
  return provisionOrg(sql, { name: `Org ${n}`, email, password, planId }).then((p) => ({ ...p, email, password }));
}

export interface CallResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A tiny client: JSON in, JSON out, bearer key or cookies. */
export function client(baseUrl: string, auth: { key?: string; cookie?: string; csrf?: string; headers?: Record<string, string> } = {}) {
  return async function call<T = any>(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<CallResult<T>> {
    const headers: Record<string, string> = { ...auth.headers, ...extraHeaders };
    if (auth.key) headers.authorization = `Bearer ${auth.key}`;
    if (auth.cookie) headers.cookie = auth.cookie;
    if (auth.csrf) headers["x-csrf-token"] = auth.csrf;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {}
    return { status: res.status, body: parsed as T, headers: res.headers };
  };
}

/** Signs up through the API and returns a cookie-authenticated client. */
export async function signUp(baseUrl: string, email?: string, password = "long enough password") {
  const addr = email ?? `user-${Date.now().toString(36)}${(counter++).toString(36)}@example.test`;
  const res = await fetch(`${baseUrl}/api/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: addr, password, name: "Test User" }),
  });
  if (res.status !== 201) throw new Error(`signup failed ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { user: { id: string }; org_id: string; csrf_token: string };
  const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  return { email: addr, password, userId: body.user.id, orgId: body.org_id, csrf: body.csrf_token, cookie, call: client(baseUrl, { cookie, csrf: body.csrf_token }) };
}

/**
 * A new user (signed up) made a member of `orgId` with `role` by an invitation the owner's client sends; `inOrg` acts
 * in that organisation (X-Org-Id).
 */
export async function joinOrgAs(baseUrl: string, owner: ReturnType<typeof client>, orgId: string, role: string) {
  const user = await signUp(baseUrl);
  const invite = await owner("POST", "/api/v1/org/invitations", { email: user.email, role_id: role });
  if (invite.status !== 201) throw new Error(`invitation failed ${invite.status} ${JSON.stringify(invite.body)}`);
  const accepted = await user.call("POST", "/api/v1/invitations/accept", { token: invite.body.token });
  if (accepted.status !== 200) throw new Error(`acceptance failed ${accepted.status} ${JSON.stringify(accepted.body)}`);
  return { ...user, inOrg: client(baseUrl, { cookie: user.cookie, csrf: user.csrf, headers: { "x-org-id": orgId } }) };
}
