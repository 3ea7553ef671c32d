import { Command, CommanderError } from "commander";
import { alertsCommand } from "./commands/alerts.ts";
import { configCommands } from "./commands/config-commands.ts";
import { importCommand } from "./commands/import.ts";
import { loginCommand } from "./commands/login.ts";
import { monitorsCommand } from "./commands/monitors.ts";
import { resultsCommand } from "./commands/results.ts";
import { statusCommand } from "./commands/status.ts";
import { EXIT } from "./errors.ts";

const EXIT_CODES = `
Exit codes: 0 ok, 1 error (the API refused, the file is invalid, a change failed), 2 usage
(unknown command or option, bad option value), 3 plan has changes (plan --detailed-exitcode).
Environment: WATCHPOST_URL, WATCHPOST_API_KEY (override the stored login), NO_COLOR.
Documentation: docs/cli.md`;

/**
 * Every subcommand: usage errors exit 2, help and version exit 0, and --json is known everywhere; with --json a
 * usage error is the error body `{ error, code: "USAGE", details }` on stderr like every other error.
 */
function configure(cmd: Command, json: boolean) {
  cmd.exitOverride();
  if (json) cmd.configureOutput({ outputError: (text, write) => write(`${JSON.stringify({ error: text.replace(/^error: /, "").trim(), code: "USAGE", details: {} })}\n`) });
  else cmd.showHelpAfterError("(add --help for usage)");
  for (const sub of cmd.commands) configure(sub, json);
}

function buildProgram(json: boolean): Command {
  const program = new Command("watchpost")
    .description("Watchpost from the command line: monitors, results, alerts, and monitoring as code (plan/apply/export)")
    .version("0.1.0")
    .option("--json", "print JSON (errors as {error, code, details} on stderr)")
    .addHelpText("after", EXIT_CODES);
  program.addCommand(loginCommand());
  program.addCommand(monitorsCommand());
  program.addCommand(resultsCommand());
  program.addCommand(statusCommand());
  program.addCommand(alertsCommand());
  for (const c of configCommands()) program.addCommand(c);
  program.addCommand(importCommand());
  configure(program, json);
  return program;
}

/** Runs the CLI; resolves to the exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram(argv.includes("--json"));
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; every other complaint of the parser (unknown command or option, missing
      // argument, a bare command group, a bad option value) is a usage error.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    throw err;
  }
  return typeof process.exitCode === "number" ? process.exitCode : EXIT.ok;
}
