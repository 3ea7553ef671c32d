/**
 * An alert is one firing period of a rule × monitor × region state: its id joins the three with
 * the state's incarnation (`rule_…~mon_…~eu-west~3`), so any row that names them links to it.
 */
export interface AlertRef {
  rule_id: string;
  monitor_id: string;
  region: string;
  incarnation: number;
}

export const alertId = (a: AlertRef): string => `${a.rule_id}~${a.monitor_id}~${a.region}~${a.incarnation}`;

/** The parts of an alert id; null when it is not one. */
export function parseAlertId(id: string): AlertRef | null {
  const parts = id.split("~");
  if (parts.length !== 4 || parts.slice(0, 3).some((p) => p.length === 0 || p.length > 64)) return null;
  const n = Number(parts[3]);
  if (!/^[1-9][0-9]{0,8}$/.test(parts[3]!) || !Number.isSafeInteger(n)) return null;
  return { rule_id: parts[0]!, monitor_id: parts[1]!, region: parts[2]!, incarnation: n };
}
