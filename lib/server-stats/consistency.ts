/**
 * The run's check of its own numbers: per step, the operations the servers counted (the mongos, or
 * else the primaries / standalone) in the measured windows against the operations the clients
 * counted. Pure. Both sides count the same interval: the sampler reads every process exactly when
 * a window opens and when it closes (the last counted op done).
 *
 * The servers' side sums opcounters query + insert + update + delete (and command when the workload
 * runs commands); getmore is left out, as it belongs to a find the client counted once. The gap may
 * be up to 2% of the clients' ops, plus the sampler's own commands, plus the clients' failed ops (a
 * failed op may or may not have reached the server's counter). A larger gap means something else
 * loads the server, or ops are being retried or lost.
 */
import { StepResult, ConsistencyCheck, ServerProcessInfo, ServerWindow } from '../result';
import { OpCounterName } from './snapshot';

export const CHECK_TOLERANCE = 0.02;

export interface WorkloadCounting {
  /** The workload runs commands: compare opcounters.command too. */
  countsCommands: boolean;
  /** Some insert sends several documents: the server counts each, the client one op (not comparable). */
  batchInserts: boolean;
}

/** What the workload's op specs say about how the server will count them. */
export function workloadCounting(ops: readonly unknown[]): WorkloadCounting {
  const specs = ops.filter((o): o is Record<string, unknown> => typeof o === 'object' && o !== null);
  return {
    countsCommands: specs.some((o) => o.op === 'command'),
    batchInserts: specs.some((o) => o.op === 'insert' && Array.isArray(o.doc)),
  };
}

/**
 * Said with every check summed over the shards' primaries: a query the mongos sends to several
 * shards (no shard key in the filter) counts once on each shard but once at the client, so on that
 * path the servers may count more than the clients without anything else loading them.
 */
export const SHARD_PRIMARIES_NOTE = "no mongos was sampled: counted on the shards' primaries, where a query sent to several shards counts once on each";

function countingProcesses(windows: readonly ServerWindow[], processes: readonly ServerProcessInfo[]): { ids: string[]; what: string; shardPrimaries: boolean } {
  const hasCounts = (id: string) => windows.every((w) => w.counted[id] != null && Object.keys(w.counted[id]!).length > 0);
  const mongos = processes.filter((p) => p.kind === 'mongos' && hasCounts(p.id)).map((p) => p.id);
  if (mongos.length > 0) return { ids: mongos, what: `mongos ${mongos.join(', ')}`, shardPrimaries: false };
  const last = windows[windows.length - 1];
  const primaries = processes.filter((p) => p.kind === 'mongod' && ['primary', 'standalone'].includes(last?.roles[p.id] ?? '') && hasCounts(p.id)).map((p) => p.id);
  const sharded = processes.some((p) => p.shard !== undefined);
  const role = sharded ? "the shards' primaries" : last?.roles[primaries[0]] === 'standalone' ? 'standalone' : 'primary';
  return { ids: primaries, what: primaries.length > 0 ? `${role} ${primaries.join(', ')}` : 'no process gave opcounters', shardPrimaries: sharded };
}

export function checkStep(step: StepResult, allWindows: readonly ServerWindow[], processes: readonly ServerProcessInfo[], counting: WorkloadCounting): ConsistencyCheck {
  const windows = allWindows.filter((w) => w.clients === step.clients);
  const clientOps = step.ops.reads + step.ops.writes;
  const counters: OpCounterName[] = ['query', 'insert', 'update', 'delete', ...(counting.countsCommands ? ['command' as const] : [])];
  const { ids, what, shardPrimaries } = countingProcesses(windows, processes);
  const base = { clients: step.clients, clientOps, counted: `${what}: ${counters.join('+')}` };
  const unchecked = (note: string): ConsistencyCheck => ({ ...base, status: 'unchecked', serverOps: null, difference: null, allowance: 0, note });
  if (windows.length === 0) return unchecked('no measured window was sampled');
  if (counting.batchInserts) return unchecked('the workload inserts batches: the server counts each document, the clients one op');
  if (ids.length === 0) return unchecked('the servers gave no opcounters for the measured windows (a test double, a refused serverStatus, or a failed reading)');
  let serverOps = 0;
  let samplerCommands = 0;
  for (const w of windows) {
    for (const id of ids) {
      const counted = w.counted[id]!;
      for (const c of counters) serverOps += counted[c] ?? 0;
      samplerCommands += w.samplerCommands[id] ?? 0;
    }
  }
  const allowance = Math.ceil(clientOps * CHECK_TOLERANCE) + samplerCommands + step.ops.errors;
  const difference = serverOps - clientOps;
  const ok = Math.abs(difference) <= allowance;
  const check: ConsistencyCheck = { ...base, status: ok ? 'ok' : 'gap', serverOps, difference, allowance };
  if (!ok) {
    check.note =
      difference > 0
        ? 'the servers counted more than the clients sent: something else is loading the server, or ops are being retried'
        : 'the servers counted fewer than the clients: ops are being lost, or another router or member took part of the load';
  }
  if (shardPrimaries) check.note = check.note ? `${check.note} (${SHARD_PRIMARIES_NOTE})` : SHARD_PRIMARIES_NOTE;
  return check;
}

/** One line per check beyond the allowance, for the summary and the console. */
export function checkWarning(check: ConsistencyCheck): string | undefined {
  if (check.status !== 'gap' || check.serverOps === null || check.difference === null) return undefined;
  const pct = check.clientOps > 0 ? ` (${((check.difference / check.clientOps) * 100).toFixed(1)}%)` : '';
  return `step ${check.clients} clients: the servers counted ${check.serverOps} ops, the clients ${check.clientOps}; off by ${check.difference}${pct}, more than the ${check.allowance} allowed: ${check.note}`;
}
