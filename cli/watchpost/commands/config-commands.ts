import { writeFileSync } from "node:fs";
import { Command, Option } from "commander";
import { configJsonSchemaText, PROJECT_PATTERN } from "../../../schemas/monitoring-config.ts";
import { action, type Run } from "../command-kit.ts";
import { applyPlan } from "../config/apply.ts";
import { exportState, formatState } from "../config/export.ts";
import { type DesiredState, findConfigFile, loadConfig, readConfigValue, validateConfig } from "../config/load.ts";
import { computePlan, type PageState, type Plan } from "../config/plan.ts";
import { getLayout, listStatusPages } from "../config/status-pages.ts";
import { listWindows } from "../config/maintenance.ts";
import { listPolicies } from "../config/escalation.ts";
import { planJson, renderApply, renderPlan } from "../config/render-plan.ts";
import { CliError, EXIT } from "../errors.ts";
import { listMonitors } from "../monitor-ref.ts";
import { listChannels } from "../config/channels.ts";
import { listRules } from "../config/rules.ts";
import { emit } from "../output.ts";

const fileOption = () => new Option("-f, --file <path>", "the config file: YAML, JSON or watchpost.config.ts (default: the first of watchpost.yaml, .yml, .json, watchpost.config.ts here)");

/** Whether the plan needs the organisation's channels: the file has channels, or rules or escalation policies that name them. */
export const needsChannels = (desired: Pick<DesiredState, "channels" | "rules" | "escalation_policies">) => Boolean(desired.channels || desired.rules || desired.escalation_policies);

async function planFor(run: Run): Promise<Plan> {
  const file = findConfigFile(run.opts.file as string | undefined);
  const desired = await loadConfig(file);
  const [monitors, channels, rules] = await Promise.all([listMonitors(run.client()), needsChannels(desired) ? listChannels(run.client()) : [], desired.rules ? listRules(run.client()) : []]);
  const pages = desired.status_pages ? await pagesNamed(run, new Set(desired.status_pages.map((p) => p.slug))) : [];
  const windows = desired.maintenance ? await listWindows(run.client()) : [];
  const policies = desired.escalation_policies || desired.rules ? await listPolicies(run.client()) : [];
  return computePlan(desired, monitors, channels, rules, { prune: Boolean(run.opts.prune), resendSecrets: Boolean(run.opts.resendSecrets), env: process.env, file }, pages, windows, policies);
}

/** The organisation's status pages the file names, each with its layout. */
async function pagesNamed(run: Run, slugs: Set<string>): Promise<PageState[]> {
  const pages = (await listStatusPages(run.client())).filter((p) => slugs.has(p.slug));
  return Promise.all(pages.map(async (page) => ({ page, layout: await getLayout(run.client(), page.id) })));
}

export function configCommands(): Command[] {
  const validate = new Command("validate")
    .description("Check a config file against the published schema, offline (for pre-commit hooks)")
    .addOption(fileOption())
    .action(
      action(async (run) => {
        const path = findConfigFile(run.opts.file as string | undefined);
        const issues = validateConfig(await readConfigValue(path));
        if (issues.length) throw new CliError(`${path} is not a valid Watchpost config (${issues.length} problem${issues.length === 1 ? "" : "s"})`, "INVALID_CONFIG", EXIT.error, { issues });
        emit(run.o, { file: path, valid: true }, () => `${path} is valid.`);
      }),
    );

  const plan = new Command("plan")
    .description("Show what apply would create, update and delete (changes nothing)")
    .addOption(fileOption())
    .option("--prune", "also plan deleting keyed items of the file's project (without one: of no project) that the file no longer has")
    .option("--resend-secrets", "count every stored secret as changed (the API never reveals them)")
    .option("--detailed-exitcode", "exit 3 when there are changes, 0 when none (1 on error)")
    .action(
      action(async (run) => {
        const p = await planFor(run);
        emit(run.o, planJson(p), () => renderPlan(run.o, p));
        if (run.opts.detailedExitcode && p.changes.length) run.exit(EXIT.changes);
      }),
    );

  const apply = new Command("apply")
    .description("Make the organisation match the file: create, update and (with --prune) delete monitors; a second apply changes nothing")
    .addOption(fileOption())
    .option("--prune", "delete keyed items of the file's project (without one: of no project) that the file no longer has")
    .option("--resend-secrets", "send every secret again (after rotating one)")
    .action(
      action(async (run) => {
        const p = await planFor(run);
        if (!p.changes.length) return emit(run.o, { ...planJson(p), applied: [], failed: [], skipped: [] }, () => renderPlan(run.o, p));
        if (!run.o.json) run.o.out(`${renderPlan(run.o, p)}\n`);
        const report = await applyPlan(run.client(), p, process.env);
        emit(run.o, { ...planJson(p), ...report }, () => renderApply(run.o, report));
        if (report.failed.length) run.exit(EXIT.error);
      }),
    );

  const exportCmd = new Command("export")
    .description("Write the organisation's monitors as a config file (stdout unless --output)")
    .option("-o, --output <path>", "write to this file")
    .option("--project <name>", "export only this project's items (keys <name>/…, written without the prefix) and write project: <name> in the file")
    .addOption(new Option("--format <format>", "yaml or json (default: by --output's extension, else yaml)").choices(["yaml", "json"]))
    .action(
      action(async (run) => {
        const output = run.opts.output as string | undefined;
        const project = run.opts.project as string | undefined;
        if (project !== undefined && !new RegExp(PROJECT_PATTERN).test(project))
          throw new CliError(`--project ${project}: 1 to 24 lower-case letters, digits, '_' or '-', starting with a letter or digit`, "USAGE", EXIT.usage);
        const format = (run.opts.format as "yaml" | "json" | undefined) ?? (run.opts.json || output?.endsWith(".json") ? "json" : "yaml");
        const [monitors, channels, rules, pageList, windows] = await Promise.all([
          listMonitors(run.client()),
          listChannels(run.client()),
          listRules(run.client()),
          listStatusPages(run.client()),
          listWindows(run.client()),
        ]);
        const pages = await pagesNamed(run, new Set(pageList.map((p) => p.slug)));
        const policies = await listPolicies(run.client());
        const { state, secretRefs, left_out } = exportState(monitors, channels, rules, pages, windows, policies, project);
        const text = formatState(state, format);
        const note = [
          ...(secretRefs.length ? [`Secrets are not exported: set ${secretRefs.join(", ")} before applying this file elsewhere.`] : []),
          ...left_out.map((l) => `Left out: ${l}.`),
        ].join("\n");
        if (output) {
          writeFileSync(output, text);
          emit(run.o, { file: output, monitors: state.monitors.length, channels: state.channels?.length ?? 0, rules: state.rules?.length ?? 0, status_pages: state.status_pages?.length ?? 0, secret_refs: secretRefs, left_out }, () => `Wrote ${state.monitors.length} monitors to ${output}.${note ? `\n${note}` : ""}`);
        } else {
          process.stdout.write(text);
          if (note) run.o.err(note);
        }
      }),
    );

  const schema = new Command("schema").description("Print the JSON Schema of the config file (also docs/watchpost-config.schema.json)").action(
    action(async (run) => {
      process.stdout.write(configJsonSchemaText());
    }),
  );
  return [validate, plan, apply, exportCmd, schema];
}
