import { existsSync, writeFileSync } from "node:fs";
import { Command, Option } from "commander";
import { action } from "../command-kit.ts";
import { formatState } from "../config/export.ts";
import { usageError } from "../errors.ts";
import { convertKumaBackup, type KumaImportReport } from "../kuma/import-kuma.ts";
import { readKumaSource } from "../kuma/read-kuma.ts";
import { emit, paint, type Output } from "../output.ts";

function renderReport(o: Output, r: KumaImportReport, output: string): string {
  const lines = [paint(o, "bold", `Converted ${r.converted.length} monitor${r.converted.length === 1 ? "" : "s"} and ${r.channels.length} notification${r.channels.length === 1 ? "" : "s"} into ${output}:`)];
  for (const c of r.channels) lines.push(`  ${paint(o, "green", "✓")} ${c.name} (notification ${c.kuma_type} → ${c.type} channel, key ${c.key})`);
  for (const rule of r.rules) lines.push(`  ${paint(o, "green", "✓")} rule ${rule.key}: ${rule.monitor} down or timeout → ${rule.channels.join(", ")}`);
  for (const c of r.converted) {
    lines.push(`  ${paint(o, "green", "✓")} ${c.name} (${c.kuma_type} → ${c.type}, key ${c.key})`);
    for (const n of c.notes) lines.push(`      note: ${n}`);
  }
  if (r.skipped.length) {
    lines.push("", paint(o, "bold", `Not imported (${r.skipped.length}):`));
    for (const s of r.skipped) lines.push(`  ${paint(o, "red", "✗")} ${s.name} (${s.kuma_type}): ${s.reason}`);
  }
  if (r.notifications.length) {
    lines.push("", paint(o, "bold", `Notifications not imported (${r.notifications.length}):`));
    for (const n of r.notifications) lines.push(`  ${paint(o, "yellow", "!")} ${n.name} (${n.kuma_type}): ${n.reason}`);
  }
  if (r.secret_refs.length) lines.push("", `Secrets are not copied into the file: set ${r.secret_refs.join(", ")} before watchpost apply.`);
  lines.push("", `Review ${output}, then run: watchpost plan -f ${output}`);
  return lines.join("\n");
}

export function importCommand(): Command {
  const cmd = new Command("import").description("Convert another tool's monitors into a config file");
  cmd
    .command("kuma")
    .description("Convert an Uptime Kuma backup (JSON export, or its kuma.db SQLite database, read-only) into watchpost.yaml and report what could not be converted")
    .argument("<source>", "Kuma's backup JSON or kuma.db")
    .option("-o, --output <path>", "the config file to write", "watchpost.yaml")
    .option("--force", "overwrite the output file")
    .addOption(new Option("--format <format>", "yaml or json (default: by --output's extension)").choices(["yaml", "json"]))
    .action(
      action(async (run, source: string) => {
        const output = String(run.opts.output);
        if (existsSync(output) && !run.opts.force) throw usageError(`${output} exists: choose another --output or add --force`);
        const { state, report } = convertKumaBackup(readKumaSource(source));
        const format = (run.opts.format as "yaml" | "json" | undefined) ?? (output.endsWith(".json") ? "json" : "yaml");
        writeFileSync(output, formatState(state, format));
        emit(run.o, { file: output, ...report }, () => renderReport(run.o, report, output));
      }),
    );
  return cmd;
}
