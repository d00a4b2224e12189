/**
 * Each replica-set member's oplog over a step (steps[].oplog): read over the sampler's per-process
 * connections (lib/server-stats/processes.ts, on database `local`), once before the step's first trial
 * (after its set-up, in its turn: before the first measured window opens) and once after its last window
 * closed, with the `ts`-range count after that; never inside a measured window, so the consistency check
 * is not moved. The arithmetic is lib/server/oplog-window.ts. Without the sampler (--no-server-stats)
 * there is no connection per member, and no oplog figure.
 */
import type { OplogMember, OplogReading, ServerProcessFacts, StepOplog } from '../../result';
import type { ServerStatsRecorder } from '../../server-stats/recorder';
import type { ServerProcess } from '../../server-stats/processes';
import { memberStepFigures, oplogThreshold, readOplog } from '../../server/oplog-window';
import { messageOf } from '../../common/values';

/** One member's reading, or why it could not be taken. */
export type OplogReadingOrError = OplogReading | { error: string };

/** The readings by host (replica-set members only). */
export type OplogReadings = Map<string, OplogReadingOrError>;

/** The processes that keep an oplog: every mongod of a replica set (a shard's members included). */
function oplogMembers(processes: readonly ServerProcess[]): ServerProcess[] {
  return processes.filter((p) => p.kind === 'mongod' && p.set !== undefined);
}

const isError = (r: OplogReadingOrError | undefined): r is { error: string } =>
  r !== undefined && 'error' in r;

/** Every member's oplog now; undefined when the deployment has no replica set (or no sampler). */
export async function readOplogs(
  recorder: ServerStatsRecorder | undefined,
): Promise<OplogReadings | undefined> {
  if (!recorder || oplogMembers(recorder.processes).length === 0) return undefined;
  const read = await recorder.eachProcess(
    async (command, p): Promise<[string, OplogReadingOrError] | undefined> => {
      if (p.kind !== 'mongod' || p.set === undefined) return undefined;
      try {
        return [p.id, await readOplog(command)];
      } catch (err) {
        return [p.id, { error: String(messageOf(err)).slice(0, 160) }];
      }
    },
  );
  return new Map(read.filter((r): r is [string, OplogReadingOrError] => r !== undefined));
}

/**
 * The step's `oplog`: each member's end reading (now), the count of the step's entries, the arithmetic,
 * and the warning's threshold (--min-oplog-window, else storage.oplogMinRetentionHours).
 */
export async function stepOplog(
  recorder: ServerStatsRecorder | undefined,
  start: OplogReadings | undefined,
  minOplogWindowSeconds: number | undefined,
  processes: readonly ServerProcessFacts[] | undefined,
): Promise<StepOplog | undefined> {
  if (!recorder || !start) return undefined;
  const end = await readOplogs(recorder);
  const members = await recorder.eachProcess(
    async (command, p): Promise<OplogMember | undefined> => {
      if (p.kind !== 'mongod' || p.set === undefined) return undefined;
      const who = { host: p.id, ...(p.shard ? { shard: p.shard } : {}), set: p.set };
      const s = start.get(p.id);
      const e = end?.get(p.id);
      if (isError(s) || isError(e) || !s || !e) {
        const member: OplogMember = { ...who };
        if (s && !isError(s)) member.start = s;
        if (e && !isError(e)) member.end = e;
        const why = isError(s)
          ? `local.oplog.rs could not be read before the step: ${s.error}`
          : isError(e)
            ? `local.oplog.rs could not be read after the step: ${e.error}`
            : `no ${s ? 'end' : 'start'} reading of local.oplog.rs`;
        member.missing = { bytes: why };
        return member;
      }
      return memberStepFigures(command, who, s, e);
    },
  );
  return {
    members: members.filter((m): m is OplogMember => m !== undefined),
    ...oplogThreshold(minOplogWindowSeconds, processes),
  };
}
