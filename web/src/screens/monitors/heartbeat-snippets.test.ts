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
  it("uses the monitor's own schedule and names its zone for cron", () => {
    const s = heartbeatSnippets(URL, { schedule: "0 3 * * *", timezone: "Europe/Berlin" });
    expect(s.crontab).toBe(`CRON_TZ=Europe/Berlin\n0 3 * * * /usr/local/bin/my-job && curl -fsS -m 10 --retry 3 ${URL} > /dev/null`);
    expect(heartbeatSnippets(URL, { schedule: "0 3 * * *", timezone: "UTC" }).crontab.startsWith("0 3 * * *")).toBe(true);
  });
  it("derives the cron line from the period and says so when it cannot", () => {
    expect(heartbeatSnippets(URL, { period_seconds: 300 }).crontab.startsWith("*/5 * * * * ")).toBe(true);
    expect(heartbeatSnippets(URL, { period_seconds: 90 }).crontab).toContain("# every 90 s");
  });
  it("lists the success, start and failure URLs and wraps the job with them", () => {
    const s = heartbeatSnippets(URL, { period_seconds: 60 });
    expect(s.urls.map((u) => u.url)).toEqual([URL, `${URL}/start`, `${URL}/fail`]);
    expect(s.wrapper).toContain(`${URL}/start`);
    expect(s.wrapper).toContain(`${URL}/fail`);
    expect(s.withOutput).toBe(`/usr/local/bin/my-job 2>&1 | curl -fsS -m 10 --retry 3 --data-binary @- ${URL}`);
  });
});
