/** NATS subject rules shared by both buses, so the in-process one accepts exactly what NATS does. */

const NAME = /^[A-Za-z0-9_-]+$/;

/**
 * True when `subject` (no wildcards) matches `pattern` (`*` one token, `>` one or more trailing tokens). Walks both
 * strings in place: the in-process bus calls it for every consumer on every publish.
 */
export function matchSubject(pattern: string, subject: string): boolean {
  if (pattern === subject) return true;
  let p = 0;
  let s = 0;
  for (;;) {
    // A subject token remains while s has not passed its end ("a." ends in an empty token).
    if (s > subject.length) return false;
    const pEnd = tokenEnd(pattern, p);
    const sEnd = tokenEnd(subject, s);
    const wildcard = pEnd - p === 1 ? pattern.charCodeAt(p) : 0;
    if (wildcard === GT) return true;
    if (wildcard !== STAR && !sameToken(pattern, p, pEnd, subject, s, sEnd)) return false;
    if (pEnd === pattern.length) return sEnd === subject.length;
    p = pEnd + 1;
    s = sEnd + 1;
  }
}

const STAR = 42;
const GT = 62;

function tokenEnd(text: string, from: number): number {
  const i = text.indexOf(".", from);
  return i < 0 ? text.length : i;
}

function sameToken(a: string, aFrom: number, aEnd: number, b: string, bFrom: number, bEnd: number): boolean {
  if (aEnd - aFrom !== bEnd - bFrom) return false;
  for (let i = 0; i < aEnd - aFrom; i++) if (a.charCodeAt(aFrom + i) !== b.charCodeAt(bFrom + i)) return false;
  return true;
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

/** Tokens of any characters but white space, ".", "*" and ">"; with wildcards also `*` tokens and a last `>` token. */
const PLAIN_SUBJECT = /^[^\s.*>]+(?:\.[^\s.*>]+)*$/;
const WILDCARD_SUBJECT = /^(?:(?:[^\s.*>]+|\*)(?:\.(?:[^\s.*>]+|\*))*(?:\.>)?|>)$/;

export function assertSubject(subject: string, { wildcards }: { wildcards: boolean }): void {
  if (!(wildcards ? WILDCARD_SUBJECT : PLAIN_SUBJECT).test(subject)) throw new Error(`invalid subject "${subject}"`);
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
