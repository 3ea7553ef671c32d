// Watchpost's layers (docs/architecture.md). Every rule is an error: `npm test` runs dependency-cruiser on the
// whole tree (scripts/test.sh) and fails on any. Paths are repository-relative. "Pure" = the schemas layer:
// schemas/ plus each check type's and channel type's own *-schema.ts (the extension point keeps its schema in its folder).
const PURE = "^(schemas/|runner/checks/[^/]+/[^/]+-schema\\.ts$|alerting/channels/[^/]+/[^/]+-schema\\.ts$)";
const ROLE_RUNTIME = {
  api: "^api/",
  scheduler: "^scheduler/",
  alerting: "^alerting/(runtime|ingest|notices|outbox|channels|rpc|role\\.ts|main\\.ts|config\\.ts)",
  runner: "^runner/",
  cli: "^cli/",
  billingSim: "^billing/simulator/",
};
const ANY_ROLE = Object.values(ROLE_RUNTIME).join("|");
const DOMAIN = "^(domain/|billing/(?!simulator/)|alerting/(service|engine)/)";
const TESTS = "(\\.test\\.tsx?$|/test-support/|/testing/|^tests/|/contract\\.ts$|/testing\\.ts$|/test-fixtures\\.ts$|/timescale-test-db\\.ts$)";
const ALL_OURS = "^(core|db|domain|schemas|api|scheduler|alerting|runner|billing|web|cli|scripts|tests|bench)/";
const PURE_NPM = "(^|/)node_modules/(@sinclair/typebox|rrule|croner|re2js|jsonpath-rfc9535)/";
const others = (...names) => names.map((n) => ROLE_RUNTIME[n]).join("|");

module.exports = {
  forbidden: [
    { name: "kernel-imports-nothing-of-ours", severity: "error", comment: "1. core/ is the kernel (config, log, errors, ids, clock, crypto, net guard, bus, mail transport): it imports no other folder of ours.",
      from: { path: "^core/" }, to: { path: ALL_OURS, pathNot: "^core/" } },
    { name: "db-imports-only-kernel", severity: "error", comment: "2. db/ (client, embedded PostgreSQL, migrations, queries) imports only the kernel; row types live in db/.",
      from: { path: "^db/", pathNot: TESTS }, to: { path: ALL_OURS, pathNot: "^(core|db)/" } },
    { name: "domain-below-roles", severity: "error", comment: "3. Domain services (domain/, billing/, alerting/service, alerting/engine) import db, kernel, schemas and each other; never a role's runtime.",
      from: { path: DOMAIN, pathNot: TESTS }, to: { path: `${ANY_ROLE}|^(web|scripts|tests|bench)/`, pathNot: PURE } },
    { name: "domain-speaks-no-http", severity: "error", comment: "3. Domain services never see HTTP: no Elysia in a service function (routes map AppError to responses).",
      from: { path: DOMAIN }, to: { path: "(^|/)node_modules/(elysia|@elysiajs)/" } },
    { name: "schemas-import-only-schemas", severity: "error", comment: "4. Pure schemas import nothing of ours but each other: the dashboard and every role load them.",
      from: { path: PURE }, to: { path: ALL_OURS, pathNot: PURE } },
    { name: "schemas-import-only-pure-packages", severity: "error", comment: "4. ...and no package but TypeBox (rrule/croner for maintenance recurrence, re2js/jsonpath-rfc9535 to compile HTTP assertions: pure JS): no Bun, no Node, no I/O.",
      from: { path: PURE, pathNot: "\\.test\\.ts$" },
      to: { dependencyTypes: ["npm", "npm-dev", "npm-optional", "npm-peer", "npm-no-pkg", "npm-unknown", "core"], pathNot: PURE_NPM } },
    { name: "api-not-another-role", severity: "error", comment: "5. The API serves requests: it never loads the check engine, the scheduler or the alerting runtime (run-now and test sends are bus requests).",
      from: { path: ROLE_RUNTIME.api, pathNot: TESTS }, to: { path: others("scheduler", "alerting", "runner", "cli"), pathNot: PURE } },
    { name: "scheduler-not-another-role", severity: "error", comment: "5. The scheduler plans and publishes jobs (and runs the leader's billing jobs); it runs no checks and sends nothing.",
      from: { path: ROLE_RUNTIME.scheduler, pathNot: TESTS }, to: { path: others("api", "alerting", "runner", "cli"), pathNot: PURE } },
    { name: "alerting-not-another-role", severity: "error", comment: "5. The alerting role ingests, evaluates and delivers; it never loads the API, the scheduler or the check engine.",
      from: { path: ROLE_RUNTIME.alerting, pathNot: TESTS }, to: { path: others("api", "scheduler", "runner", "cli"), pathNot: PURE } },
    { name: "runner-speaks-only-bus-or-https", severity: "error", comment: "5. Cloud worker and self-hosted runner speak only on the bus / HTTPS to the API: no database, no domain services.",
      from: { path: ROLE_RUNTIME.runner, pathNot: TESTS }, to: { path: `^(db|domain|billing)/|${others("api", "scheduler", "alerting", "cli")}`, pathNot: PURE } },
    { name: "cli-not-a-role", severity: "error", comment: "5. The CLI calls domain services like a role does; it never loads a role's runtime.",
      from: { path: ROLE_RUNTIME.cli }, to: { path: others("api", "scheduler", "alerting", "runner"), pathNot: PURE } },
    { name: "user-cli-speaks-only-rest", severity: "error", comment: "The user CLI (cli/watchpost/, `watchpost`) talks only to the public REST API: its own files, the pure schemas and the generated API types, nothing of the server.",
      from: { path: "^cli/watchpost/", pathNot: TESTS }, to: { path: ALL_OURS, pathNot: `^cli/watchpost/|^web/src/api/schema\\.gen\\.ts$|${PURE}` } },
    { name: "web-imports-web-and-schemas", severity: "error", comment: "6. The dashboard imports only web/, the generated API client (web/src/api/schema.gen.ts) and the pure schemas.",
      from: { path: "^web/", pathNot: "\\.test\\.tsx?$" }, to: { path: ALL_OURS, pathNot: `^web/|${PURE}` } },
    { name: "web-no-node-or-bun", severity: "error", comment: "6. The dashboard runs in a browser: no Node built-ins, no Bun.",
      from: { path: "^web/src/", pathNot: "\\.test\\.tsx?$" }, to: { dependencyTypes: ["core"] } },
    { name: "roles-only-from-composition-roots", severity: "error", comment: "One role = one entry point: only scripts/all-in-one.ts and scripts/start.ts compose several roles.",
      from: { path: "^scripts/", pathNot: "^scripts/(all-in-one|start|openapi-types|gen[a-z-]*)\\.ts$|\\.test\\.ts$" },
      to: { path: others("scheduler", "alerting", "runner"), pathNot: PURE } },
    { name: "no-production-import-of-tests", severity: "error", comment: "Production code never loads test support (tests/, *.test.ts, test-support/).",
      from: { pathNot: `${TESTS}|^bench/` }, to: { path: "^tests/|\\.test\\.tsx?$|/test-support/" } },
    { name: "not-to-unresolvable", severity: "error", comment: "An import that resolves to nothing is a broken build.",
      from: {}, to: { couldNotResolve: true, pathNot: "^bun(:|$)" } },
    { name: "no-circular", severity: "warn", comment: "Cycles hide layering mistakes; reported (none today: a shared piece goes in its own small file).",
      from: {}, to: { circular: true, dependencyTypesNot: ["type-only"] } },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // node_modules is not followed but must not be excluded: the package rules (domain-speaks-no-http,
    // schemas-import-only-pure-packages) need to see those edges. A symlinked node_modules resolves to its real
    // path (e.g. ../main/node_modules/…), hence "(^|/)node_modules/" in those rules.
    exclude: { path: "(^|/)(dist|\\.data)/" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "bun", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".d.ts", ".js", ".json"] },
    reporterOptions: { archi: { collapsePattern: "^(core|db|domain|schemas|api|scheduler|alerting|runner|billing|web|cli)/" } },
  },
};
