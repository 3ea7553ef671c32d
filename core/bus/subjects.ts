/** NATS subject rules shared by both buses, so the in-process one accepts exactly what NATS does. */

const TOKEN = /^[^\s.*>]+$/;
const NAME = /^[A-Za-z0-9_-]+$/;

/** True when `subject` (no wildcards) matches `pattern` (`*` one token, `>` one or more trailing tokens). */
export function matchSubject(pattern: string, subject: string): boolean {
  if (pattern === subject) return true;
  const p = pattern.split(".");
  const s = subject.split(".");
  for (let i = 0; i < p.length; i++) {
    if (p[i] === ">") return s.length > i;
    if (i >= s.length || (p[i] !== "*" && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}

/** True when some subject matches both patterns (NATS refuses overlapping work-queue consumers). */
export function subjectsOverlap(a: string, b: string): boolean {
  const x = a.split(".");
  const y = b.split(".");
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] === ">" || y[i] === ">") return x.length > i && y.length > i;
    if (x[i] === undefined || y[i] === undefined) return false;
    if (x[i] !== "*" && y[i] !== "*" && x[i] !== y[i]) return false;
  }
  return true;
}

export function assertSubject(subject: string, { wildcards }: { wildcards: boolean }): void {
  const tokens = subject.split(".");
  tokens.forEach((t, i) => {
    const ok = TOKEN.test(t) || (wildcards && (t === "*" || (t === ">" && i === tokens.length - 1)));
    if (!ok) throw new Error(`invalid subject "${subject}"`);
  });
}

export function assertName(kind: string, name: string): void {
  if (!NAME.test(name)) throw new Error(`invalid ${kind} "${name}": use letters, digits, "_" and "-"`);
}

/**
 * Durable name of the work-queue consumer of a job subject: readable, plus a hash when
 * the mapping lost information (wildcards, "_"), so distinct subjects never share one.
 */
export function jobConsumerName(subject: string): string {
  const readable = subject.replaceAll(".", "_").replaceAll("*", "all").replaceAll(">", "rest");
  const lossless = /^[A-Za-z0-9.-]+$/.test(subject);
  return lossless ? readable : `${readable.replace(/[^A-Za-z0-9_-]/g, "-")}_${Bun.hash.wyhash(subject).toString(36)}`;
}
