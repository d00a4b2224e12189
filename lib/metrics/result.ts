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
  /**
   * Ops started in the window that completed after it closed, summed over trials: in `ops` and the
   * latencies, never in `perSecond` or the peak. `seconds`: the longest overrun of a trial, from the
   * window's close to the last of them. Absent in results written before it was kept.
   */
  overrun?: { reads: number; writes: number; errors: number; seconds: number };
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
  /**
   * A weighted workload (ops with `weight`): measured attempts per op, by index in the workload's ops
   * array, summed over trials; the mix the run drew. Absent for workloads run in order.
   */
  opCounts?: number[];
  /** The benchmarked collection's data and indexes against the WiredTiger cache, read after the step. */
  dataVsCache?: StepDataVsCache;
}

/** Bytes of the benchmarked collection and the cache; `ratio` = (data + indexes) / cache. */
export interface StepDataVsCache {
  /** Uncompressed data (storageStats.size). */
  dataBytes?: number;
  /** On disk (storageStats.storageSize). */
  storageBytes?: number;
  indexBytes?: number;
  cacheBytes?: number;
  ratio?: number;
  /** Why a figure is missing. */
  unavailable?: string;
}

/**
 * The product that answered (lib/target/identify-server.ts): every label names it as it is, never
 * "MongoDB" for a server that only reports a MongoDB version.
 */
export interface ServerProduct {
  /** 'MongoDB', 'Percona Server for MongoDB', 'FerretDB', 'Amazon DocumentDB', 'Azure Cosmos DB for MongoDB', a test double's own name, or 'unidentified server'. */
  name: string;
  /** MongoDB: 'Community' or 'Enterprise'. */
  edition?: string;
  /** The product's own version (FerretDB's, Percona's; MongoDB's is its buildInfo.version). */
  version?: string;
  /** buildInfo.version: the MongoDB version the server says it is (or is compatible with). */
  reportedMongoDBVersion?: string;
  /** e.g. "FerretDB 1.24.2, reports MongoDB 7.0.42"; "MongoDB Community 7.0.14". */
  label: string;
  testDouble: boolean;
  /** What the identification rests on, one fact each (e.g. 'buildInfo.ferretdbVersion is "v1.24.2"'). */
  evidence: string[];
}

/** What one server process said about itself (the one the run connected to; each sampled one when known). */
export interface ServerProcessFacts {
  /** host:port as the driver knows it. */
  host: string;
  version?: string;
  gitVersion?: string;
  /** serverStatus.storageEngine.name, e.g. "wiredTiger". */
  storageEngine?: string;
  featureCompatibilityVersion?: string;
  /** serverStatus.wiredTiger.cache["maximum bytes configured"]. */
  cacheBytes?: number;
  /** The options that shape performance, from getCmdLineOpts.parsed (storage.wiredTiger..., journal, ...). */
  options?: Record<string, unknown>;
  /** hostInfo: the server's machine. */
  hostInfo?: { cores?: number; memoryMB?: number; os?: string; cpuArch?: string };
  /** Each fact the server did not give or the user may not read, with why (e.g. 'hostInfo: not authorized (needs clusterMonitor)'). */
  unavailable?: string[];
}

/** The machine that generated the load, so a reader can repeat the run. */
export interface LoadMachine {
  cpuModel: string;
  cores: number;
  memoryBytes: number;
  os: string;
  node: string;
  driver: string;
  mongoBench: string;
  /** The git commit of a mongo-bench checkout it ran from (absent: an installed package). */
  gitCommit?: string;
}

/** One objective checked on one step (`run --slo`). */
export interface SloVerdict {
  clients: number;
  /** The objective as written, e.g. "reads.p99<5ms". */
  objective: string;
  /** The step's value in `unit` (latency in µs); null when the step has none (no reads, say). */
  actual: number | null;
  unit: string;
  /** null: not applicable to this step. */
  pass: boolean | null;
}

/** `run --slo`: the objectives, every step's verdicts, and whether all passed. */
export interface SloSection {
  objectives: string[];
  /** --slo-abort: the sweep stops at the first failure. */
  abortOnFailure: boolean;
  verdicts: SloVerdict[];
  pass: boolean;
  /** True when --slo-abort stopped the sweep. */
  aborted?: boolean;
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
    /** The product that answered, and why it is named so (absent in results written before it was recorded). */
    product?: ServerProduct;
    /** What the server process(es) said about themselves: version, storage engine, cache, options, host. */
    processes?: ServerProcessFacts[];
    /** serverStatus.storageEngine.name of the server connected to (absent: not reported). */
    storageEngine?: string;
  };
  /** Where the load came from (absent in results written before it was recorded). */
  environment?: { loadMachine: LoadMachine };
  /** `tags`: a mongo-perf test's tags (perf-suite). */
  workload: { name: string; ops: unknown[]; docSize?: number; docs?: number; tags?: string[] };
  config: Record<string, unknown>;
  steps: StepResult[];
  /** What each server process did, second by second, and the per-step consistency check (absent: not sampled). */
  server?: ServerSection;
  /** Run through agents (`run --agents N`): the control database, the agents and their clock offsets. */
  agents?: AgentsSection;
  /** Service-level objectives (`run --slo`) and their verdicts per step (absent: none were given). */
  slo?: SloSection;
}
