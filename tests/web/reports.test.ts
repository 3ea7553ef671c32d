/** The Reports screen (#22 item 6) in Chromium: schedule a report, see errors, send a preview that reaches a real SMTP receiver. */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { startSmtpReceiver, type SmtpReceiver } from "../../alerting/channels/email/smtp-receiver.ts";
import { apiCall, captureScreen, nav, type JourneyEnv, signUpInBrowser, startJourney, SETUP_TIMEOUT_MS } from "./journey-support.ts";

let env: JourneyEnv;
let smtp: SmtpReceiver;
const email = `report-owner-${Date.now()}@example.test`;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  env = await startJourney("reports", {
    SMTP_HOST: smtp.settings.host,
    SMTP_PORT: String(smtp.settings.port),
    SMTP_USER: smtp.settings.auth!.user,
    SMTP_PASSWORD: smtp.settings.auth!.pass,
    SMTP_FROM: smtp.settings.from,
  });
  await signUpInBrowser(env, "Rhea", email);
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await env?.stop();
  await smtp?.close();
}, 30_000);

describe("reports screen", () => {
  it("schedules a weekly report, refuses an unknown time zone, and sends a preview to me", async () => {
    const { page } = env;
    await page.setViewportSize({ width: 1440, height: 900 });
    await apiCall(env, "POST", "/api/v1/monitors", { name: "Shop front", type: "http", config: { url: "http://127.0.0.1:9/" }, interval_seconds: 300, paused: true });
    await nav(page, "Reports");
    await page.getByRole("heading", { name: "Reports", level: 1 }).waitFor();
    await page.getByRole("heading", { name: "No reports yet" }).waitFor();

    const form = page.getByRole("form", { name: "New report" });
    await form.getByLabel("Report name").fill("Team weekly");
    await form.getByLabel("Send on", { exact: true }).selectOption({ label: "Friday" });
    await form.getByLabel("Time", { exact: true }).fill("08:30");
    await form.getByLabel("Time zone").fill("Nowhere/City");
    await form.getByLabel(`Rhea (${email})`).check();
    await form.getByLabel("Other addresses (one per line)").fill("ops@example.test");
    await form.getByRole("button", { name: "Create report" }).click();
    await form.getByText(/Unknown time zone "Nowhere\/City"/).first().waitFor();

    await form.getByLabel("Time zone").fill("Europe/Berlin");
    await form.getByRole("button", { name: "Create report" }).click();
    const card = page.getByRole("listitem", { name: "Report Team weekly" });
    await card.getByText("Weekly, every Friday at 08:30 (Europe/Berlin) · whole organisation").waitFor();
    await card.getByText(`To: ${email}, ops@example.test`).waitFor();
    const [report] = (await apiCall(env, "GET", "/api/v1/reports")).data;
    expect(report).toMatchObject({ name: "Team weekly", frequency: "weekly", day: 5, send_time: "08:30", timezone: "Europe/Berlin" });

    await card.getByRole("button", { name: "Send preview to me" }).click();
    await page.getByRole("status").filter({ hasText: "A preview is on its way to you" }).waitFor();
    let mail;
    for (let i = 0; i < 100 && !mail; i++) {
      mail = smtp.mails.find((m) => m.envelope.to.includes(email));
      if (!mail) await Bun.sleep(100);
    }
    expect(mail?.parsed.subject).toStartWith("[Preview] Weekly report for ");
    expect(mail!.parsed.text).toContain("Shop front");
    expect(smtp.mails.filter((m) => m.envelope.to.includes("ops@example.test"))).toHaveLength(0);

    // To every recipient, after a confirmation dialog.
    await card.getByRole("button", { name: "Send to recipients now" }).click();
    // The dialog says which period a weekly report sends now: the one the schedule cuts, not the last seven days.
    await page.getByRole("dialog").getByText("as the scheduled email cuts it (the seven days before its send day)").waitFor();
    await captureScreen(page, "reports-02-send-now-dialog");
    await page.getByRole("dialog").getByRole("button", { name: "Send now" }).click();
    await page.getByRole("status").filter({ hasText: "Queued for 2 recipients" }).waitFor();
    for (let i = 0; i < 100 && !smtp.mails.some((m) => m.envelope.to.includes("ops@example.test")); i++) await Bun.sleep(100);
    expect(smtp.mails.filter((m) => m.envelope.to.includes("ops@example.test"))).toHaveLength(1);

    // Edit: monthly on the 3rd.
    await card.getByRole("button", { name: "Edit" }).click();
    const edit = page.getByRole("form", { name: "Edit report Team weekly" });
    await edit.getByLabel("Frequency").selectOption("monthly");
    await edit.getByLabel("Day of the month").fill("3");
    await edit.getByRole("button", { name: "Save report" }).click();
    await card.getByText("Monthly, on day 3 of every month at 08:30 (Europe/Berlin) · whole organisation").waitFor();
    const next = new Date((await apiCall(env, "GET", `/api/v1/reports/${report.id}`)).next_send_at);
    expect(next.toLocaleString("en-GB", { timeZone: "Europe/Berlin", day: "numeric", hour: "2-digit", minute: "2-digit" })).toBe("3, 08:30");

    const inBerlin = (part: Intl.DateTimeFormatPartTypes) =>
      new Intl.DateTimeFormat("en-US", { timeZone: "Europe/Berlin", month: "short", year: "numeric" }).formatToParts(next).find((p) => p.type === part)!.value;
    await card.getByText(new RegExp(`^Next: ${inBerlin("month")} 3, ${inBerlin("year")}, 8:30\\s?AM \\(Europe/Berlin\\)`)).waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: "/tmp/reports-screen.png" });
    await captureScreen(page, "reports-01-scheduled");
    await card.getByRole("button", { name: "Delete Team weekly" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete report" }).click();
    await page.getByRole("heading", { name: "No reports yet" }).waitFor();
    // The one 400 is the refused time zone above.
    expect(env.errors.filter((e) => !/400/.test(e))).toEqual([]);
    expect(env.errors.filter((e) => e.startsWith("http 400"))).toEqual([expect.stringContaining("POST") as unknown as string]);
  }, 60_000);
});
