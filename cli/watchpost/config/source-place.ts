/**
 * " at line L, column C:" and the line with a caret under the place, worded and laid out as the yaml package words
 * its syntax errors, so a JSON or YAML file's mistakes read alike. Long lines are cut around the caret; a caret at the
 * start of a line also shows the line before, where the mistake (a trailing comma, a missing bracket) usually is.
 * A range within one line is underlined whole.
 */
export function placeIn(src: string, offset: number, endOffset = offset): string {
  const start = src.lastIndexOf("\n", offset - 1) + 1;
  const line = src.slice(0, start).split("\n").length;
  const col = offset - start + 1;
  const end = src.indexOf("\n", start);
  let text = src.slice(start, end === -1 ? src.length : end).replace(/\r$/, "");
  let ci = col - 1;
  if (ci >= 60 && text.length > 80) {
    const cut = Math.min(ci - 39, text.length - 79);
    text = `…${text.slice(cut)}`;
    ci -= cut - 1;
  }
  if (text.length > 80) text = `${text.slice(0, 79)}…`;
  if (line > 1 && /^ *$/.test(text.slice(0, ci))) {
    const prev = src.slice(src.lastIndexOf("\n", start - 2) + 1, start);
    text = (prev.length > 80 ? `${prev.slice(0, 79)}…\n` : prev) + text;
  }
  const at = ` at line ${line}, column ${col}`;
  const carets = endOffset - offset > 1 && !src.slice(offset, endOffset).includes("\n") ? Math.min(endOffset - offset, 80 - ci) : 1;
  return /[^ \n]/.test(text) ? `${at}:\n\n${text}\n${" ".repeat(ci)}${"^".repeat(carets)}\n` : at;
}
