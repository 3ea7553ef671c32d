import type { SessionPayload } from "../../core/crypto/session-seal.ts";
import { endRunnerSession } from "../../db/queries/runners.ts";
import type { SessionEndRequest } from "../../schemas/runner-protocol.ts";
import { type JobDeps, releaseJobs } from "./jobs.ts";
import { type OpenSession, type RunnerCaller, sealPayload } from "./sessions.ts";

/**
 * A runner stopping on purpose (SIGTERM, SIGINT): the claims it still holds go back on its queue for immediate
 * redelivery, the session ends and the runner is offline at once, rather than after three missed heartbeats and
 * its jobs' ack deadline. The answer is sealed before the session goes; a foreign claim refuses the whole call.
 */
export async function endSession(d: JobDeps, runner: RunnerCaller, session: OpenSession, req: SessionEndRequest): Promise<SessionPayload> {
  const { released } = req.claims.length > 0 ? await releaseJobs(d, runner, { claims: req.claims }) : { released: 0 };
  // Its long-polls end now, and what they handed out that the runner never got (a proxy kept a poll open after the
  // runner left it) goes back on its queue too.
  const unseen = d.claims?.stopped(runner.id) ?? [];
  for (const token of unseen) await d.bus.nakJob(token);
  const answer = await sealPayload(d.sql, session, { released });
  await endRunnerSession(d.sql, runner.id, session.id);
  d.log.info({ op: "runner.session-end", orgId: runner.orgId, runnerId: runner.id, reason: req.reason, released, unseen: unseen.length }, "runner stopped and ended its session; offline now");
  return answer;
}
