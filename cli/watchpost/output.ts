/** How a command prints: JSON for scripts (`--json`), tables and colour for people. */
export interface Output {
  json: boolean;
  color: boolean;
  out(text: string): void;
  err(text: string): void;
}

/** Colour only on a terminal, never with NO_COLOR set (https://no-color.org), forced with FORCE_COLOR. */
function colorWanted(env: NodeJS.ProcessEnv, isTty: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  return isTty;
}

export function createOutput(json: boolean, env: NodeJS.ProcessEnv = process.env): Output {
  return {
    json,
    color: !json && colorWanted(env, Boolean(process.stdout.isTTY)),
    out: (text) => process.stdout.write(text.endsWith("\n") ? text : `${text}\n`),
    err: (text) => process.stderr.write(text.endsWith("\n") ? text : `${text}\n`),
  };
}

const CODES = { red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, gray: 90, bold: 1 } as const;
export type Color = keyof typeof CODES;

export const paint = (o: Output, color: Color, text: string) => (o.color ? `\u001b[${CODES[color]}m${text}\u001b[0m` : text);

const STATUS_COLOR: Record<string, Color> = { up: "green", down: "red", timeout: "red", degraded: "yellow", pending: "gray", paused: "gray" };
export const paintStatus = (o: Output, status: string) => paint(o, STATUS_COLOR[status] ?? "gray", status);

// biome-ignore lint/suspicious/noControlCharactersInRegex: strips the colour codes above to measure a cell
const visibleLength = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, "").length;

/** A plain text table: a header row, then one row per item, columns padded to the widest cell. */
export function table(o: Output, headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => visibleLength(r[i] ?? ""))));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c + " ".repeat(widths[i]! - visibleLength(c))))
      .join("  ")
      .trimEnd();
  return [paint(o, "bold", line(headers)), ...rows.map(line)].join("\n");
}

/** Prints `value` as JSON with --json, else the human text. */
export function emit(o: Output, value: unknown, human: () => string) {
  o.out(o.json ? JSON.stringify(value, null, 2) : human());
}
