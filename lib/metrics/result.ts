/**
 * The result document: the contract between the engine, the report renderer and users' scripts.
 * Versioned; reports are rendered from these files only. Documented in the README.
 */
import type { ClientLoad } from './client-load';
import type { ServerSection } from '../server-stats/section';
import type { AgentsSection, AgentStepFigures } from '../agents/section';

export type { ClientLoad };

export const RESULT_SCHEMA = 'mongo-bench/result@1' as const;

export interface LatencySummary {
  /** All in microseconds. */
  avg: number;
  p50: number;
  p95: number;
  p99: number;
  p999: number;
  max: number;
  /** How many operations the summary covers. */
  count: number;
}

export interface PerSecondSample {
  /** Seconds since the step's measured window began (0, 1, 2, ...). */
  t: number;
  reads: number;
  writes: number;
  errors: number;
  /** Which trial the sample belongs to (1-based), when the step ran several; `t` restarts at 0 per trial. */
  trial?: number;
}

export interface TrialStats {
  mean: number;
  median: number;
  stdev: number;
  values: number[];
}

export interface StepResult {
  clients: number;
  /** Measured seconds per trial (warm-up excluded). */
  seconds: number;
  trials: number;
  /** 'failed' when the step hit a fatal error; 'interrupted' when the run was cut short during it. */
  status?: 'ok' | 'failed' | 'interrupted';
  error?: string;
  ops: { reads: number; writes: number; errors: number };
  opsPerSec: { total: number; reads: number; writes: number };
  peakOpsPerSec: { total: number; reads: number; writes: number };
  latencyMicros: { reads: LatencySummary; writes: LatencySummary };
  /** Per op type (findOne, update, ...), when the workload has several. */
  latencyByOpMicros?: Record<string, LatencySummary>;
  /** Across trials, when trials > 1: total ops/sec per trial. */
  trialStats?: { opsPerSec: TrialStats };
  perSecond: PerSecondSample[];
  /** benchRun's own field names, so old tooling can read the figures. */
  benchRun: Record<string, number>;
  /** Wall-clock seconds the counted ops took, summed over trials (opsPerSec = ops / elapsedSeconds). */
  elapsedSeconds?: number;
  /** Failed operations grouped by kind (e.g. "DuplicateKey (11000)"), with the first message seen. */
  errorSamples?: { error: string; count: number; example: string }[];
  /**
   * True when a worker's event loop was busy more than 90% of the measured window: the load
   * generator, not the server, set the pace, and the figures measure mongo-bench. Absent in results
   * written before it was recorded.
   */
  clientBound?: boolean;
  /** How hard the load generator worked (per worker event-loop utilization, process CPU). */
  client?: ClientLoad;
  /** Run through agents (`run --agents N`): each agent's share of the clients and its own figures. */
  agents?: AgentStepFigures[];
}

export interface ResultDocument {
  schema: typeof RESULT_SCHEMA;
  tool: { name: string; version: string };
  label: string;
  complete: boolean;
  /** Why the run is incomplete (interrupted, failed step, ...). */
  incompleteReason?: string;
  startedAt: string;
  finishedAt?: string;
  target: {
    /** Always redacted: no credentials. */
    uri: string;
    serverVersion?: string;
    topology: string;
    /** True when the server is a test double (never present its numbers as MongoDB numbers). */
    testDouble?: boolean;
    /** serverStatus.storageEngine.name of the server connected to (absent: not reported). */
    storageEngine?: string;
  };
  /** `tags`: a mongo-perf test's tags (perf-suite). */
  workload: { name: string; ops: unknown[]; docSize?: number; docs?: number; tags?: string[] };
  config: Record<string, unknown>;
  steps: StepResult[];
  /** What each server process did, second by second, and the per-step consistency check (absent: not sampled). */
  server?: ServerSection;
  /** Run through agents (`run --agents N`): the control database, the agents and their clock offsets. */
  agents?: AgentsSection;
}
