export interface PingSummary {
  packetsSent: number;
  packetsReceived: number;
  /** ICMP errors ping counted ("+3 errors"): destination unreachable and the like. */
  errors: number;
  lossPct: number;
  rttMinMs: number | null;
  rttAvgMs: number | null;
  rttMaxMs: number | null;
}

const COUNTS = /(\d+) packets transmitted, (\d+) (?:packets )?received/;
const ERRORS = /\+(\d+) errors?/;
const LOSS = /([\d.]+)% packet loss/;
const RTT = /(?:rtt|round-trip) min\/avg\/max(?:\/(?:mdev|stddev))? = ([\d.]+)\/([\d.]+)\/([\d.]+)/;

/** Reads the summary lines of iputils (and BSD/busybox) ping output; null when there is none. */
export function parsePingOutput(output: string): PingSummary | null {
  const counts = COUNTS.exec(output);
  if (!counts) return null;
  const sent = Number(counts[1]);
  const received = Number(counts[2]);
  const errors = ERRORS.exec(output);
  const loss = LOSS.exec(output);
  const rtt = RTT.exec(output);
  return {
    packetsSent: sent,
    packetsReceived: received,
    errors: errors ? Number(errors[1]) : 0,
    lossPct: loss ? Number(loss[1]) : sent === 0 ? 100 : Math.round(((sent - received) / sent) * 1000) / 10,
    rttMinMs: rtt ? Number(rtt[1]) : null,
    rttAvgMs: rtt ? Number(rtt[2]) : null,
    rttMaxMs: rtt ? Number(rtt[3]) : null,
  };
}
