/**
 * Issue 20, Proof: the README's quick start followed literally, as a new user on a fresh machine would:
 * a fresh copy of the repository in a 0700 folder (as a home under /root is), the README's start command
 * run as written, the URL it prints opened in a real browser, the setup screen, a monitor of a private
 * loopback target made through the dashboard's form and seen up. Then SIGTERM to the start command, which
 * must leave no PostgreSQL of that installation running. The commands and the log line it promises are read
 * from README.md, so this test fails when the README changes in a way a new user could not follow.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { launchChromium, screenshot, watchConsole } from "../web/browser.ts";
import { privateCheckout, REPO_ROOT } from "./private-checkout.ts";
import { freePort } from "../support/free-port.ts";

const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");

/** The Quick start section: its first shell block's first command (the part before its comment), and its prose. */
function quickStart(): { command: string[]; prose: string } {
  const section = /^## Quick start\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
  if (!section) throw new Error("README.md has no '## Quick start' section");
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const line = block.split("\n").find((l) => l.trim() !== "" && !l.trim().startsWith("#"));
  if (!line) throw new Error("the Quick start has no shell block with a command");
  return { command: line.split("#")[0]!.trim().split(/\s+/), prose: section };
}

/** Processes whose command line names `text` (the embedded PostgreSQL's runs with `-D <DATA_DIR>/postgres`). */
function processesNaming(text: string): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").some((arg) => arg.includes(text))) pids.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

const cleanup: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await Promise.resolve(step()).catch(() => {});
}, 60_000);

describe("the README quick start, followed literally", () => {
  it("starts from a fresh 0700 copy, sets up the first account in the browser, sees a private loopback monitor up, and stops everything on SIGTERM", async () => {
    const { command, prose } = quickStart();
    expect(command).toEqual(["npm", "start"]);
    // The log lines the README says the start prints, in backticks: the URL to open, and the self-hosted defaults.
    const promisedUrlLine = /open the URL it prints \(`([^`]+)`/.exec(prose)?.[1];
    expect(promisedUrlLine).toStartWith("Watchpost running (all-in-one) at http://127.0.0.1:3000");
    const promisedLine = /the start log says\s+`([^`]+)`/.exec(prose)?.[1];
    expect(promisedLine).toBeDefined();

    const { home, repo } = privateCheckout();
    cleanup.push(() => rmSync(home, { recursive: true, force: true }));
    const target = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("hello from the private network") });
    cleanup.push(() => target.stop(true));

    // A new user's environment: no test variables. PORT only because other tests may hold 3000 here.
    const env = { PATH: process.env.PATH ?? "", HOME: home, LANG: "C.UTF-8", PORT: String(freePort()) };
    const start = spawn(command[0]!, command.slice(1), { cwd: repo, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    start.stdout!.on("data", (c: Buffer) => (output += c.toString()));
    start.stderr!.on("data", (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => start.once("exit", (code) => resolve(code)));
    cleanup.push(async () => {
      if (start.exitCode === null && start.signalCode === null) start.kill("SIGTERM");
      await exited;
    });

    // The URL it prints, in the line the README quotes (on the PORT given here instead of 3000).
    const printed = new RegExp(`${promisedUrlLine!.replace(/http:\/\/\S+$/, "").replace(/[()]/g, "\\$&")}(http://[^\\s"]+)`);
    const deadline = Date.now() + 120_000;
    let url: string | undefined;
    while (!url) {
      url = printed.exec(output)?.[1];
      if (start.exitCode !== null) throw new Error(`${command.join(" ")} exited ${start.exitCode}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`${command.join(" ")} printed no URL in 120 s:\n${output}`);
      if (!url) await Bun.sleep(250);
    }
    expect(url).toBe(`http://127.0.0.1:${env.PORT}`);
    expect(output).toContain(promisedLine!);

    const chromium = await launchChromium({ width: 1440, height: 900 });
    cleanup.push(() => chromium.close());
    const page = chromium.context.pages()[0] ?? (await chromium.context.newPage());
    const errors = watchConsole(page);
    const shoot = async <T>(name: string, step: Promise<T>): Promise<T> =>
      step.catch(async (err) => {
        await screenshot(page, `fail-readme-${name}`);
        throw new Error(`${err}\npage: ${errors.join("\n")}\nserver:\n${output.slice(-4000)}`);
      });

    // "open the URL and create your account": the setup screen makes the owner and the first organisation.
    await page.goto(url);
    await shoot("setup", page.getByRole("heading", { name: "Welcome to Watchpost" }).waitFor({ timeout: 30_000 }));
    await page.getByLabel("Your name").fill("Grace Newcomer");
    await page.getByLabel("Email").fill("grace@example.test");
    await page.getByLabel("Password").fill("a long first password");
    await page.getByLabel("Organisation name").fill("Grace's Homelab");
    await page.getByRole("button", { name: "Create account" }).click();
    await shoot("landed", page.getByRole("heading", { name: "Watch your first site in under a minute" }).waitFor({ timeout: 20_000 }));

    // The first monitor: a service on the private network (loopback), through the dashboard's form.
    await page.getByRole("link", { name: "Create your first monitor" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Home router");
    await page.getByLabel("URL").fill(`http://127.0.0.1:${target.port}/`);
    await page.getByRole("button", { name: "Create monitor" }).click();
    await shoot("created", page.getByRole("heading", { name: "Home router", exact: true }).waitFor({ timeout: 15_000 }));
    // A new monitor is checked at once (README: "checked at once"): no "Run now" needed.
    await shoot("up", page.locator("h1 + [data-status=up]").waitFor({ timeout: 30_000 }));
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Monitors", exact: true }).click();
    await shoot("overview", page.getByRole("row", { name: /Home router/ }).locator("[data-status=up]").waitFor({ timeout: 10_000 }));
    await screenshot(page, "readme-walkthrough-1440x900");
    expect(errors).toEqual([]);

    // Ctrl-C's cousin: SIGTERM to the start command stops the server and its embedded PostgreSQL.
    const databaseDir = join(repo, ".data", "postgres");
    expect(processesNaming(databaseDir).length).toBeGreaterThan(0);
    start.kill("SIGTERM");
    expect(await exited).toBe(0);
    const gone = Date.now() + 10_000;
    while (processesNaming(databaseDir).length > 0 && Date.now() < gone) await Bun.sleep(100);
    expect(processesNaming(databaseDir)).toEqual([]);
    expect(existsSync(join(databaseDir, "postmaster.pid"))).toBe(false);
  }, 300_000);
});
