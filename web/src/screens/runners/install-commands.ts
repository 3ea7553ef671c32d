/** The exact deployment lines of docs/runners.md ("Images"), filled in for one runner. */

export interface Variant {
  id: string;
  /** The BROWSERS value the image runs with ("none" for standard). */
  browsers: string;
}

export interface InstallTarget {
  apiUrl: string;
  token: string;
  registry: string;
}

const isBrowser = (v: Variant) => v.browsers !== "none";
/** Firefox and WebKit sandboxes need SYS_ADMIN and a writable home (the full image ships both). */
const needsHome = (v: Variant) => ["firefox", "webkit", "all"].includes(v.browsers);

const imageOf = (v: Variant, registry: string) => `${registry}/runner-${v.id}:latest`;

/** `docker run` for one image variant, as in docs/runners.md. */
export function dockerRunLine(v: Variant, t: InstallTarget): string {
  const name = v.id === "standard" ? "watchpost-runner" : `watchpost-runner-${v.id}`;
  const lines = [
    `docker run -d --name ${name} --restart unless-stopped --network host`,
    `  --read-only --tmpfs /tmp:rw,size=${isBrowser(v) ? "512m" : "256m"},mode=1777${isBrowser(v) ? " --shm-size 512m" : ""}`,
    ...(needsHome(v) ? ["  --tmpfs /home/runner:rw,size=64m,uid=10001,gid=10001,mode=0700"] : []),
    `  --cap-drop ALL --cap-add NET_RAW${needsHome(v) ? " --cap-add SYS_ADMIN" : ""} --stop-timeout 10`,
    // A runner is for checking your own network: its private addresses are allowed (the runner's default refuses them).
    `  -e SERVICE_API_URL=${t.apiUrl} -e SERVICE_TOKEN=${t.token} -e ALLOW_PRIVATE_IPS=true${isBrowser(v) ? ` -e BROWSERS=${v.browsers}` : ""}`,
    `  ${imageOf(v, t.registry)}`,
  ];
  return lines.join(" \\\n");
}

/** A Compose service with the same settings (infra/runner-compose.example.yml). */
export function composeSnippet(v: Variant, t: InstallTarget, runnerName: string): string {
  const q = (s: string) => JSON.stringify(s);
  return [
    "services:",
    "  runner:",
    `    image: ${imageOf(v, t.registry)}`,
    "    restart: unless-stopped",
    "    network_mode: host",
    "    read_only: true",
    '    user: "10001:10001"',
    ...(isBrowser(v) ? ["    shm_size: 512m"] : []),
    "    tmpfs:",
    `      - /tmp:rw,size=${isBrowser(v) ? "512m" : "256m"},mode=1777`,
    ...(needsHome(v) ? ["      - /home/runner:rw,size=64m,uid=10001,gid=10001,mode=0700"] : []),
    "    cap_drop: [ALL]",
    `    cap_add: [${needsHome(v) ? "NET_RAW, SYS_ADMIN" : "NET_RAW"}]`,
    "    stop_grace_period: 10s",
    "    environment:",
    `      SERVICE_API_URL: ${q(t.apiUrl)}`,
    `      SERVICE_TOKEN: ${q(t.token)}`,
    `      RUNNER_NAME: ${q(runnerName)}`,
    '      ALLOW_PRIVATE_IPS: "true"',
    ...(isBrowser(v) ? [`      BROWSERS: ${v.browsers}`] : []),
    "",
  ].join("\n");
}
