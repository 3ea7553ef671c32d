import { describe, expect, it } from "bun:test";
import { cronForPeriod, heartbeatSnippets } from "./heartbeat-snippets";

const URL = "https://wp.example/api/v1/heartbeat/hb_token";

describe("heartbeat snippets", () => {
  it("turns whole-minute periods into cron schedules and refuses the rest", () => {
    expect(cronForPeriod(60)).toBe("* * * * *");
    expect(cronForPeriod(300)).toBe("*/5 * * * *");
    expect(cronForPeriod(3600)).toBe("0 * * * *");
    expect(cronForPeriod(6 * 3600)).toBe("0 */6 * * *");
    expect(cronForPeriod(86_400)).toBe("0 0 * * *");
    expect(cronForPeriod(7 * 60)).toBeNull();
    expect(cronForPeriod(90)).toBeNull();
  });
  it("puts a schedule in a cron file of its own that names its zone, UTC too", () => {
    // CRON_TZ sets the zone of every line below it: pasted into a crontab it moved the other jobs.
    const s = heartbeatSnippets(URL, { schedule: "0 3 * * *", timezone: "Europe/Berlin" });
    expect(s.crontab).toBe(
      `# Save as /etc/cron.d/my-job: in a file of its own, CRON_TZ sets this job's zone only (the 6th field is the user).\nCRON_TZ=Europe/Berlin\n0 3 * * * root /usr/local/bin/my-job; curl -fsS -m 10 --retry 3 ${URL}/$? > /dev/null`,
    );
    // Without CRON_TZ a UTC schedule ran in the machine's own zone.
    expect(heartbeatSnippets(URL, { schedule: "0 3 * * *", timezone: "UTC" }).crontab.split("\n")[1]).toBe("CRON_TZ=UTC");
    expect(heartbeatSnippets(URL, { schedule: "0 3 * * *" }).crontab.split("\n")[1]).toBe("CRON_TZ=UTC");
  });
  it("derives the cron line from the period and says so when it cannot", () => {
    expect(heartbeatSnippets(URL, { period_seconds: 300 }).crontab).toBe(`*/5 * * * * /usr/local/bin/my-job; curl -fsS -m 10 --retry 3 ${URL}/$? > /dev/null`);
    expect(heartbeatSnippets(URL, { period_seconds: 90 }).crontab).toContain("# every 90 s");
  });
  it("lists the success, start and failure URLs and wraps the job with the start and its exit status", () => {
    const s = heartbeatSnippets(URL, { period_seconds: 60 });
    expect(s.urls.map((u) => u.url)).toEqual([URL, `${URL}/start`, `${URL}/fail`]);
    expect(s.wrapper).toContain(`${URL}/start`);
    expect(s.wrapper).toContain(`${URL}/$?`);
  });
  it("pings the job's exit status from the cron line, the wrapper and the output-sending lines, run by sh", async () => {
    // Run as written by sh against a local server: a pipe's status is curl's, so the old snippet reported success.
    const got: { path: string; body: string }[] = [];
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (r) => (got.push({ path: new globalThis.URL(r.url).pathname, body: await r.text() }), new Response("OK")) });
    try {
      const url = `http://127.0.0.1:${server.port}/hb`;
      for (const job of ["echo copied; true", "echo disk full >&2; exit 3"]) {
        const s = heartbeatSnippets(url, { period_seconds: 60 }, `sh -c '${job}' > /dev/null 2>&1`);
        const cronCommand = s.crontab.replace(/^(\S+\s+){5}/, ""); // what cron hands to sh
        for (const snippet of [s.withOutput.replace(" > /dev/null 2>&1", ""), cronCommand, s.wrapper]) expect(await Bun.spawn(["sh", "-c", snippet]).exited).toBe(0);
      }
      expect(got).toEqual([
        { path: "/hb/0", body: "copied\n" },
        { path: "/hb/0", body: "" },
        { path: "/hb/start", body: "" },
        { path: "/hb/0", body: "" },
        { path: "/hb/3", body: "disk full\n" },
        { path: "/hb/3", body: "" },
        { path: "/hb/start", body: "" },
        { path: "/hb/3", body: "" },
      ]);
    } finally {
      server.stop(true);
    }
  });
});
