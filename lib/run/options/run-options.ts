/**
 * Options of `mongo-bench run`: the raw flags commander hands over, their validation (each error
 * names its option), and the resolved RunOptions that runBenchmark() consumes.
 */
import { LOOPBACK_HOST } from '../../security/local-http';
import { z } from 'zod';
import { pathText, UsageError } from '../../config/errors';
import { closest, parsePercent, parseOptions } from '../../config/validate';
import {
  isPresetName,
  PRESET_NAMES,
  presetOps,
  presetSetup,
} from '../../workload/language/presets';
import { readWorkloadFile } from '../../workload/language/workload-file';
import { replayStages } from '../../workload/language/replay-curve';
import { DocsLikeSpec, parseDocsLikeOption } from '../../prepare/docs-like';
import { clientCountsUpTo } from '../../workload/language/sweep';
import { parseNamespace } from '../../workload/language/op-spec';
import { parseSetup, ResetMode, WorkloadSetup } from '../../workload/language/setup-spec';
import {
  arrivalTimes,
  parseDurationSeconds,
  parseRateText,
  RateSpec,
  ScheduledRate,
} from '../../workload/language/rate-spec';
import { checkObjectiveScopes, Objective, parseObjectives } from '../../slo/objective';
import type { AgentFlags } from '../../agents/options';
import type { TargetFlags } from '../../deployment/target-options';
import {
  compileScenario,
  parseScenarios,
  RATE_SCENARIO_CLIENTS,
  ScenarioSpec,
} from '../scenarios/scenario-spec';
import {
  BackgroundEventSpec,
  parseEvent,
  parseEventText,
  PROXY_ACTIONS,
} from '../scenarios/event-spec';
import { dropUndefined, fileTimestamp } from '../../common/values';
import {
  BenchmarkFlags,
  benchmarkShape,
  RUN_DEFAULTS,
  RUN_OUTPUT_OPTIONS,
} from './run-option-table';
import type { TableValues } from '../../config/option-table';
import type { OnError } from './run-option-table';
import type { RunSourceFlags } from './run-source-options';
import type { Driver } from '../../workload/engine/op-client';
import type { ArrivalsMode } from '../../workload/engine/step-plan';

export {
  benchmarkShape,
  MAX_CLIENTS,
  MAX_WORKERS,
  ON_ERROR_CHOICES,
  rateArg,
  RUN_DEFAULTS,
  workersArg,
} from './run-option-table';
export type { BenchmarkFlags, OnError } from './run-option-table';

/** The seconds --rate 80%'s closed probe runs each client count by default (plus one second of warm-up). */
export const RATE_PROBE_DEFAULT_SECONDS = RUN_DEFAULTS.rateProbeSeconds;

/** What runBenchmark() needs: plain data, every default applied. */
export interface RunOptions {
  uri: string;
  /** `file`: where the ops came from (named in error messages), `sha256` its bytes' hash (config.workloadFileSha256); `tags`: mongo-perf's, kept in the result. */
  workload: { name: string; ops: unknown[]; file?: string; sha256?: string; tags?: string[] };
  /** The workload's own set-up (a workload file's `setup`, a mongo-perf test's pre()); replaces the built-in loader. */
  setup?: WorkloadSetup;
  /** When the set-up (or the built-in loader) runs: once before the sweep (default), or before every step and trial. */
  reset?: ResetMode;
  /** Default namespace of ops without `ns`; also where the loader writes. */
  ns: string;
  clients: number[];
  seconds: number;
  /** --ops: each step and trial measures exactly this many server ops instead of `seconds` (YCSB's operationcount). */
  ops?: number;
  warmupSeconds: number;
  /**
   * 'auto': each step (and trial) warms up until its last 10 one-second ops/s show a slope within +/-1% of
   * their median per second (lib/metrics/steadiness.ts steadyForWarmup), at most `warmupMax` seconds; then
   * it is measured. `warmupSeconds` is 0 then.
   */
  warmup?: 'auto';
  /** With warmup 'auto': the cap in seconds (default 60). */
  warmupMax?: number;
  trials: number;
  /** Target total ops/sec (coordinated-omission-corrected latency); undefined = as fast as possible. */
  rate?: number;
  /**
   * The open model's other forms (lib/workload/language/rate-spec.ts): stages that ramp (also --replay-rate over a
   * captured per-second curve), or a share of the maximum a short closed probe measures first (`rateProbe`).
   * A constant rate stays in `rate`.
   */
  arrival?: Exclude<RateSpec, { kind: 'constant' }>;
  /** With a rate: how a free client waits for its op's due time (--arrivals; default exact). */
  arrivals?: ArrivalsMode;
  /** With a share of the maximum: the closed probe's client counts (default: the sweep's) and seconds per count. */
  rateProbe?: { clients?: number[]; seconds: number; warmupSeconds: number };
  load: boolean;
  /** `--docs-like`: the loader writes documents shaped like the user's (./docs-like) instead of its own shape. */
  docsLike?: DocsLikeSpec;
  docs: number;
  docSize: number;
  batchSize: number;
  /** Write concern of the loader, and of workload writes that set none. */
  writeConcern?: Record<string, unknown>;
  label: string;
  /** results.json goes here after every step; undefined = do not write. */
  outDir?: string;
  randomSeed: number;
  serverSelectionTimeoutMS: number;
  testDouble?: boolean;
  /**
   * Load into the existing collection (emptied with deleteMany) instead of dropping it first: a
   * collection the setup plan sharded and pre-split keeps its shard key and chunks.
   */
  keepCollection?: boolean;
  /**
   * --drop was given: consent to replace what the loader finds in the collections it loads. Without it, on
   * a deployment the tool did not start, a collection holding documents mongo-bench does not own is refused
   * (the write plan, lib/server/write-plan.ts).
   */
  drop?: boolean;
  /**
   * --allow-setup-writes: the set-up steps may write namespaces mongo-bench does not own (the write plan's
   * consent for them, lib/server/write-plan.ts).
   */
  allowSetupWrites?: boolean;
  /** Per-operation time limit in ms (driver timeoutMS, maxTimeMS on the server); a step overrunning its window by more is cut. */
  opTimeoutMS?: number;
  /**
   * --stall-ms: a kind of op with one in flight this long and no success of it meanwhile is out; a
   * successful op slower than this is delayed (docs/reliability.md). Below opTimeoutMS.
   */
  stallMs?: number;
  /** After a failed step: stop the run (default), or go on with the next step. */
  onError?: OnError;
  /** A step in which more than this share (0..1) of the ops failed is failed (default 0.5; --max-error-rate). */
  maxErrorRate?: number;
  /**
   * Worker threads per step (each with its own MongoClient and a share of the clients); 1 = the
   * main thread alone. 'auto' or undefined: min(clients, cores - 1), at least 1.
   */
  workers?: number | 'auto';
  /**
   * --driver: the client the workload's ops go through, the Node driver (default) or the wire client
   * (lib/wire); set-up, loading and sampling always use the driver.
   */
  driver?: Driver;
  /** retryWrites/retryReads as the URI sets them: recorded, not applied (./driver-check.ts). */
  uriRetries?: { retryWrites?: boolean; retryReads?: boolean };
  /** Sample every process's serverStatus during the run (default true; --no-server-stats: false). */
  serverStats?: boolean;
  /**
   * `--min-oplog-window` in seconds: the least time a member's oplog must hold at a step's write rate,
   * below which the step gets the `oplog-window` warning (steps[].oplog).
   */
  minOplogWindowSeconds?: number;
  /** The server sampler's interval (default 1000 ms); tests shorten it. */
  serverStatsIntervalMs?: number;
  /** Service-level objectives checked on every step (`--slo`); the verdicts go to the result's `slo`. */
  slo?: Objective[];
  /** Stop the sweep at the first failed objective (`--slo-abort`). */
  sloAbort?: boolean;
  /** Several workloads at once on one clock (a config file's `scenarios`; lib/run/scenarios/scenarios.ts), instead of one sweep. */
  scenarios?: ScenarioSpec[];
  /** Fault events fired in every step's measured window, in every trial (`--event`, a config's `events`); `at`: seconds into the window. */
  events?: BackgroundEventSpec[];
  /** Toxiproxy's HTTP API (`--toxiproxy`), for the network faults of the run's or its scenarios' events. */
  toxiproxy?: string;
  /** `--metrics-port`, `--metrics-host`: where the run serves its Prometheus metrics (lib/run/metrics-server.ts). */
  metrics?: MetricsEndpoint;
}

/** Everything `mongo-bench run` takes besides the engine's flags: where the server comes from, setup, output. */

export type OutputFlags = TableValues<typeof RUN_OUTPUT_OPTIONS> & RunSourceFlags;

export type RunFlags = BenchmarkFlags & TargetFlags & OutputFlags & AgentFlags;

const flagsSchema = z
  .object({
    uri: z
      .string({
        error: 'required: the deployment to benchmark, e.g. --uri mongodb://127.0.0.1:27017',
      })
      .min(1, 'must not be empty'),
    json: z.boolean().optional(),
    ...benchmarkShape,
  })
  .strict();

/** "1", "majority", or a JSON object like {"w":1,"j":true}. */
export function parseWriteConcern(text: string): Record<string, unknown> {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return { w: Number(trimmed) };
  if (trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      throw new UsageError(
        `expected 1, majority, or a JSON object like {"w":1,"j":true}, got ${text}`,
        { option: 'writeConcern' },
      );
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new UsageError(`expected a JSON object, got ${text}`, { option: 'writeConcern' });
    for (const key of Object.keys(parsed)) {
      const fields = ['w', 'j', 'wtimeout', 'wtimeoutMS'];
      if (!fields.includes(key)) {
        // "journal" is the driver's and the old shell's name for the server's "j".
        const suggestion = key.toLowerCase() === 'journal' ? 'j' : closest(key, fields);
        throw new UsageError(
          `unknown field "${key}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; fields: ${fields.join(', ')}`,
          { option: 'writeConcern' },
        );
      }
    }
    return parsed as Record<string, unknown>;
  }
  if (/^[A-Za-z][\w-]*$/.test(trimmed)) return { w: trimmed };
  throw new UsageError(
    `expected 1, majority, or a JSON object like {"w":1,"j":true}, got ${text}`,
    { option: 'writeConcern' },
  );
}

/** --write-concern as text (a flag), a number or an object (a config file, the API): parsed as the flag's text. */
function writeConcernOf(
  given: BenchmarkFlags['writeConcern'],
): Record<string, unknown> | undefined {
  if (given === undefined) return undefined;
  return parseWriteConcern(typeof given === 'object' ? JSON.stringify(given) : String(given));
}

function safeLabel(label: string): string {
  return label.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^_+|_+$/g, '') || 'run';
}

/**
 * --replay-rate 1x|2x|0.5x: the open model at a multiple of the rate the captured source served. A
 * workload file with the per-second curve (`capture.perSecond`) replays the curve as rate stages over the
 * run's warm-up and measured seconds (workload/replay-curve: a longer capture is cut, a shorter one
 * repeats); `rate` is the capture's average times N either way (`capture.opsPerSecond`).
 */
function replayRate(
  flags: BenchmarkFlags,
  spanSeconds: number,
): Pick<RunOptions, 'rate' | 'arrival'> {
  if (flags.rate !== undefined)
    throw new UsageError(
      'options --rate and --replay-rate cannot be combined: give the rate, or a multiple of the captured one',
    );
  const m = /^(\d+(?:\.\d+)?)x?$/i.exec(String(flags.replayRate).trim());
  const multiple = m ? Number(m[1]) : NaN;
  if (!(multiple > 0))
    throw new UsageError(`expected a multiple such as 1x, 2x or 0.5x, got "${flags.replayRate}"`, {
      option: 'replayRate',
    });
  if (flags.workloadFile === undefined)
    throw new UsageError('needs --workload-file: a workload written by mongo-bench capture', {
      option: 'replayRate',
      joint: ' ',
    });
  const captured = readWorkloadFile(flags.workloadFile).capture;
  if (!captured)
    throw new UsageError(
      `workload file ${flags.workloadFile} has no "capture" rate (write it with mongo-bench capture)`,
      { option: 'replayRate' },
    );
  const rate = captured.opsPerSecond * multiple;
  // A file without the per-second curve (written before it was recorded) replays its average rate.
  if (!captured.perSecond) return { rate };
  return {
    arrival: replayStages(
      { perSecond: captured.perSecond, bucketSeconds: captured.bucketSeconds },
      multiple,
      spanSeconds,
    ),
  };
}

/**
 * A rate (or a replayed curve) that puts no op in the measured window would measure nothing: refused
 * before anything starts (a capture's curve may open with a burst and then fall silent, its burst all in
 * the warm-up).
 */
function refuseEmptyWindow(
  flags: BenchmarkFlags,
  rate: Pick<RunOptions, 'rate' | 'arrival'>,
  warmupSeconds: number,
  seconds: number,
): void {
  const spec: ScheduledRate | undefined =
    rate.rate !== undefined
      ? { kind: 'constant', opsPerSecond: rate.rate }
      : rate.arrival?.kind === 'shareOfMax'
        ? undefined
        : rate.arrival;
  if (!spec) return;
  for (const at of arrivalTimes(spec, warmupSeconds + seconds)) if (at >= warmupSeconds) return;
  const option = flags.replayRate !== undefined ? 'replayRate' : 'rate';
  throw new UsageError(
    `the schedule puts no op in the measured window (seconds ${warmupSeconds} to ${warmupSeconds + seconds} of each step): nothing would be measured; ` +
      `${flags.replayRate !== undefined ? 'the captured curve is silent there: ' : ''}shorten --warmup, lengthen --seconds or raise the rate`,
    { option },
  );
}

/** --ops bounds a step by its op count: what bounds it by time, or paces it, cannot come with it. */
function refuseWithOps(flags: BenchmarkFlags): void {
  const clash: Array<[string, unknown]> = [
    ['--seconds', flags.seconds],
    ['--rate', flags.rate],
    ['--replay-rate', flags.replayRate],
    ['--rate-probe-seconds', flags.rateProbeSeconds],
    ['--rate-probe-clients', flags.rateProbeClients],
    ['--warmup auto', flags.warmup === 'auto' ? true : undefined],
    ['scenarios', flags.scenarios],
    ['--event', flags.events],
  ];
  const given = clash.filter(([, value]) => value !== undefined).map(([name]) => name);
  if (given.length > 0) {
    throw new UsageError(
      `cannot be combined with ${given.join(', ')} (a step of --ops N ends when its N ops are done: it has no seconds, no rate and no shared clock)`,
      { option: 'opCount' },
    );
  }
}

/** --docs-like shapes what the built-in loader writes: it needs the loader. */
function docsLikeFor(flags: BenchmarkFlags, setup: WorkloadSetup | undefined): DocsLikeSpec {
  if (flags.load === false)
    throw new UsageError(
      'shapes the documents the loader writes: it cannot be combined with --no-load',
      { option: 'docsLike', joint: ' ' },
    );
  if (setup && flags.workloadFile === undefined)
    throw new UsageError(
      `workload ${flags.workload} loads its own records (YCSB's), which --docs-like cannot shape`,
      { option: 'docsLike' },
    );
  if (setup)
    throw new UsageError(
      `workload file ${flags.workloadFile} has its own "setup", which replaces the loader --docs-like shapes`,
      { option: 'docsLike' },
    );
  return parseDocsLikeOption(flags.docsLike ?? '');
}

/**
 * --rate's value checked by parseRateText; a problem inside a list of stages keeps its path after the
 * option's name as written there (`option --rate: rate[1].for: ...`), the option itself named for its source.
 */
function parseRateFlag(value: unknown): RateSpec {
  try {
    return parseRateText(value, 'option --rate');
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    throw new UsageError(
      err.problems.map((p) =>
        p.option === 'rate' && p.path
          ? { option: 'rate', text: `rate${pathText(p.path)}: ${p.text}` }
          : p,
      ),
    );
  }
}

/** --rate in any form: a constant rate, stages, or a share of the maximum (with its probe). */
function resolveRate(
  flags: BenchmarkFlags,
  spanSeconds: number,
): Pick<RunOptions, 'rate' | 'arrival' | 'rateProbe'> {
  const probeFlag =
    flags.rateProbeSeconds !== undefined
      ? 'rateProbeSeconds'
      : flags.rateProbeClients !== undefined
        ? 'rateProbeClients'
        : undefined;
  const needsShare = (option: string) =>
    new UsageError('needs --rate with a share of the maximum, such as --rate 80%', {
      option,
      joint: ' ',
    });
  if (flags.replayRate !== undefined) {
    if (probeFlag) throw needsShare(probeFlag);
    return replayRate(flags, spanSeconds);
  }
  if (flags.rate === undefined) {
    if (probeFlag) throw needsShare(probeFlag);
    return {};
  }
  if (typeof flags.rate === 'number' && !(flags.rate > 0))
    throw new UsageError('the target rate must be > 0 ops/s', { option: 'rate' });
  const spec = parseRateFlag(flags.rate);
  if (spec.kind !== 'shareOfMax' && probeFlag) throw needsShare(probeFlag);
  if (spec.kind === 'constant') return { rate: spec.opsPerSecond };
  if (spec.kind === 'stages') return { arrival: spec };
  return {
    arrival: spec,
    rateProbe: {
      seconds: flags.rateProbeSeconds ?? RATE_PROBE_DEFAULT_SECONDS,
      warmupSeconds: 1,
      ...(flags.rateProbeClients ? { clients: flags.rateProbeClients } : {}),
    },
  };
}

/** Validates the engine's flags and applies defaults (no --uri: the target is settled elsewhere). */
export function resolveBenchmarkOptions(
  flags: BenchmarkFlags,
  now: Date = new Date(),
): Omit<RunOptions, 'uri'> {
  if (flags.workload !== undefined && flags.workloadFile !== undefined) {
    throw new UsageError(
      'options --workload and --workload-file cannot be combined: choose a preset or a file',
    );
  }
  if (flags.clients !== undefined && flags.maxClients !== undefined) {
    throw new UsageError(
      'options --clients and --max-clients cannot be combined: give the list, or the maximum of 1, 2, 4, ...',
    );
  }
  const ns = flags.ns ?? RUN_DEFAULTS.ns;
  if (!parseNamespace(ns, false))
    throw new UsageError(`expected "database.collection", got "${ns}"`, { option: 'ns' });
  const docs = flags.docs ?? RUN_DEFAULTS.docs;
  const docSize = flags.docSize ?? RUN_DEFAULTS.docSize;

  let workload: RunOptions['workload'];
  let workloadNs = ns;
  let setup: WorkloadSetup | undefined;
  if (flags.workloadFile !== undefined) {
    const file = readWorkloadFile(flags.workloadFile);
    workload = { name: file.name, ops: file.ops, file: flags.workloadFile, sha256: file.sha256 };
    if (file.ns && flags.ns === undefined) workloadNs = file.ns;
    if (file.setup !== undefined)
      setup = parseSetup(file.setup, workloadNs, `workload file ${flags.workloadFile}: `);
  } else {
    const name = flags.workload ?? RUN_DEFAULTS.workload;
    if (!isPresetName(name)) presetOps(name, { ns, docs, docSize }); // throws the named error
    workload = { name, ops: presetOps(name, { ns, docs, docSize }) };
    // A preset with its own records (YCSB's) loads them in place of the built-in loader, unless --no-load.
    if (flags.load !== false)
      setup = presetSetup(name, {
        ns,
        docs,
        docSize,
        batchSize: flags.batchSize ?? RUN_DEFAULTS.batchSize,
      });
  }
  const scenarios =
    flags.scenarios !== undefined ? resolveScenarios(flags, { ns, docs, docSize }) : undefined;
  if (scenarios) {
    workload = scenariosWorkload(scenarios);
    workloadNs = ns;
  }
  // With scenarios: the connections they hold at most at once (the pool's size).
  const clients = scenarios
    ? [
        scenarios.reduce(
          (sum, s) => sum + (s.clients ? Math.max(...s.clients) : RATE_SCENARIO_CLIENTS),
          0,
        ),
      ]
    : (flags.clients ?? clientCountsUpTo(flags.maxClients ?? RUN_DEFAULTS.maxClients));
  const label = flags.label ?? workload.name;
  const slo = parseObjectives(flags.slo);
  if (flags.sloAbort && slo.length === 0)
    throw new UsageError("needs at least one objective (--slo 'reads.p99<5ms')", {
      option: 'sloAbort',
    });
  checkObjectiveScopes(slo, clients);
  const seconds = flags.seconds ?? RUN_DEFAULTS.seconds;
  const autoWarmup = flags.warmup === 'auto';
  if (flags.warmupMax !== undefined && !autoWarmup)
    throw new UsageError('needs --warmup auto', { option: 'warmupMax' });
  const warmupSeconds = flags.warmup === 'auto' ? 0 : (flags.warmup ?? RUN_DEFAULTS.warmup);
  if (autoWarmup && (flags.rate !== undefined || flags.replayRate !== undefined)) {
    throw new UsageError(
      "auto: it waits for the closed loop's ops/s to settle, which a rate (--rate, --replay-rate) fixes; give the warm-up in seconds",
      { option: 'warmup', joint: ' ' },
    );
  }
  if (autoWarmup && flags.scenarios !== undefined)
    throw new UsageError(
      'auto: not with scenarios (they share one clock); give the warm-up in seconds',
      { option: 'warmup', joint: ' ' },
    );
  if (flags.opCount !== undefined) refuseWithOps(flags);
  const rate = resolveRate(flags, warmupSeconds + seconds);
  refuseEmptyWindow(flags, rate, warmupSeconds, seconds);
  // Only the open model waits for due times (scenarios may each have their rate).
  if (
    flags.arrivals !== undefined &&
    rate.rate === undefined &&
    rate.arrival === undefined &&
    flags.scenarios === undefined
  )
    throw new UsageError(
      'needs the open model (--rate or --replay-rate): without a rate no client waits for a due time',
      { option: 'arrivals', joint: ' ' },
    );
  const docsLike = flags.docsLike !== undefined ? docsLikeFor(flags, setup) : undefined;
  const events = resolveEvents(flags, workloadNs, seconds, scenarios);
  return {
    workload,
    ns: workloadNs,
    clients,
    seconds,
    ...dropUndefined({ ops: flags.opCount }),
    warmupSeconds,
    ...(autoWarmup
      ? { warmup: 'auto' as const, warmupMax: flags.warmupMax ?? RUN_DEFAULTS.warmupMax }
      : {}),
    trials: flags.trials ?? RUN_DEFAULTS.trials,
    ...rate,
    arrivals: flags.arrivals ?? RUN_DEFAULTS.arrivals,
    load: flags.load ?? true,
    ...(docsLike ? { docsLike } : {}),
    docs,
    docSize,
    batchSize: flags.batchSize ?? RUN_DEFAULTS.batchSize,
    writeConcern: writeConcernOf(flags.writeConcern),
    label,
    outDir: flags.out ?? defaultOutDir(label, now),
    randomSeed: flags.seed ?? RUN_DEFAULTS.seed,
    serverSelectionTimeoutMS: flags.serverSelectionTimeout ?? RUN_DEFAULTS.serverSelectionTimeout,
    testDouble: flags.testDouble,
    opTimeoutMS: flags.opTimeout ?? RUN_DEFAULTS.opTimeout,
    stallMs: stallMsOf(flags),
    onError: flags.onError ?? RUN_DEFAULTS.onError,
    maxErrorRate:
      typeof flags.maxErrorRate === 'string'
        ? parsePercent('--max-error-rate', flags.maxErrorRate)
        : (flags.maxErrorRate ?? RUN_DEFAULTS.maxErrorRate),
    ...dropUndefined({ workers: flags.workers }),
    driver: flags.driver ?? RUN_DEFAULTS.driver,
    ...(flags.serverStats === false ? { serverStats: false } : {}),
    ...dropUndefined({ minOplogWindowSeconds: minOplogWindowOf(flags) }),
    ...(setup ? { setup } : {}),
    ...(flags.allowSetupWrites ? { allowSetupWrites: true } : {}),
    reset: flags.reset ?? RUN_DEFAULTS.reset,
    ...(slo.length > 0 ? { slo, sloAbort: flags.sloAbort === true } : {}),
    ...(scenarios ? { scenarios } : {}),
    ...(events.length > 0 ? { events } : {}),
    ...dropUndefined({ toxiproxy: flags.toxiproxy }),
    ...dropUndefined({ metrics: metricsEndpointOf(flags) }),
  };
}

/** Where the run serves its Prometheus metrics (lib/run/metrics-server.ts). */
export interface MetricsEndpoint {
  port: number;
  host: string;
}

/** --metrics-port and --metrics-host: the endpoint, bound to loopback unless a host is given. */
function metricsEndpointOf(flags: BenchmarkFlags): MetricsEndpoint | undefined {
  if (flags.metricsPort === undefined) {
    if (flags.metricsHost !== undefined)
      throw new UsageError('needs --metrics-port (the port to serve the metrics on)', {
        option: 'metricsHost',
      });
    return undefined;
  }
  return { port: flags.metricsPort, host: flags.metricsHost ?? LOOPBACK_HOST };
}

/**
 * The run's events (`--event` texts, a config's `events` objects or texts), each checked: its `at`
 * inside the measured window, a network fault with a Toxiproxy to send it to. Not with scenarios (each
 * has its own `events`); with --ops refused by refuseWithOps (a step of N ops has no clock).
 */
function resolveEvents(
  flags: BenchmarkFlags,
  ns: string,
  seconds: number,
  scenarios: readonly ScenarioSpec[] | undefined,
): BackgroundEventSpec[] {
  const given = flags.events === undefined ? [] : [flags.events].flat();
  if (given.length > 0 && scenarios)
    throw new UsageError(
      "cannot be combined with scenarios: give each scenario's events in its own `events` (`at`: seconds after the scenario's start)",
      { option: 'events' },
    );
  const events = given.map((item, i) => {
    const where = `option --events[${i}]`;
    const raw = typeof item === 'string' ? parseEventText(item, where) : item;
    return parseEvent(raw, where, ns, 'run');
  });
  events.forEach((e, i) => {
    if (e.at >= seconds)
      throw new UsageError(
        `at: ${e.at} s is not inside the step's measured window (0 to ${seconds} s: --seconds ${seconds}), so it would never fire`,
        { option: 'events', path: [i] },
      );
  });
  const proxied = [...events, ...(scenarios ?? []).flatMap((s) => s.events)].some((e) =>
    PROXY_ACTIONS.has(e.action),
  );
  if (proxied && flags.toxiproxy === undefined)
    throw new UsageError(
      "a network fault (proxyDown, toxic) goes through Toxiproxy: give its API's URL with --toxiproxy (e.g. http://127.0.0.1:8474)",
      { option: flags.events !== undefined ? 'events' : 'scenarios' },
    );
  return events;
}

/** --min-oplog-window in seconds: a duration (1h, 90m, 45s) or a number of seconds; it needs the sampler's connections. */
function minOplogWindowOf(flags: BenchmarkFlags): number | undefined {
  const value = flags.minOplogWindow;
  if (value === undefined) return undefined;
  let seconds: number;
  try {
    seconds = parseDurationSeconds(value, 'a duration');
  } catch {
    throw new UsageError(
      `expected a duration such as 1h, 90m or 45s, got ${JSON.stringify(value)}`,
      {
        option: 'minOplogWindow',
      },
    );
  }
  if (!(seconds > 0))
    throw new UsageError('must be longer than 0 seconds', { option: 'minOplogWindow' });
  if (flags.serverStats === false)
    throw new UsageError(
      "needs the server sampler: each member's oplog is read over its connections (drop --no-server-stats)",
      { option: 'minOplogWindow' },
    );
  return seconds;
}

/** The options a scenario gives for itself: set at the top as well, they would say nothing. */
const NOT_WITH_SCENARIOS = [
  'workload',
  'workloadFile',
  'clients',
  'maxClients',
  'rate',
  'replayRate',
  'trials',
] as const;

/** `scenarios`: validated and every scenario's ops compiled; errors name `option --scenarios[i]...` (re-aimed at the file or API key). */
function resolveScenarios(
  flags: BenchmarkFlags,
  defaults: { ns: string; docs: number; docSize: number },
): ScenarioSpec[] {
  const clash = NOT_WITH_SCENARIOS.find((key) => flags[key] !== undefined);
  if (clash)
    throw new UsageError(
      'cannot be combined with scenarios (each scenario gives its own ops and clients or rate)',
      { option: clash },
    );
  if (flags.reset === 'each-step')
    throw new UsageError(
      'each-step cannot be combined with scenarios (they run at once; the data is loaded once, before them)',
      { option: 'reset' },
    );
  const specs = parseScenarios(flags.scenarios, 'option --scenarios', {
    ...defaults,
    seconds: flags.seconds ?? RUN_DEFAULTS.seconds,
  });
  const wc = writeConcernOf(flags.writeConcern);
  specs.forEach((spec, i) => compileScenario(spec, `option --scenarios[${i}]`, wc));
  return specs;
}

/** What a scenarios run says in the result's `workload`: the scenarios' names and all their ops. */
function scenariosWorkload(specs: readonly ScenarioSpec[]): RunOptions['workload'] {
  return { name: specs.map((s) => s.name).join(' + '), ops: specs.flatMap((s) => s.workload.ops) };
}

/** reports/<timestamp>-<label>/ */
export function defaultOutDir(label: string, now: Date): string {
  return `reports/${fileTimestamp(now)}-${safeLabel(label)}`;
}

/** Unchecked input: a choice among words (--reset's once or each-step) may be any text, which validation names. */
export type TextChoices<T> = {
  [K in keyof T]: T[K] extends string | undefined ? string | undefined : T[K];
};

/**
 * The engine's options for an existing deployment (`--uri` required): what runBenchmark() takes.
 * Library use; the `run` command resolves its target through lib/run/options/run-plan.ts.
 */
export function resolveRunOptions(
  raw: TextChoices<BenchmarkFlags> & { uri?: string; json?: boolean },
  now: Date = new Date(),
): RunOptions {
  const flags = parseOptions(flagsSchema, dropUndefined(raw));
  const { uri, json: _json, ...benchmark } = flags;
  void _json;
  return { uri, ...resolveBenchmarkOptions(benchmark, now) };
}

export { PRESET_NAMES };

/** With --warmup auto: the cap each warm-up may last (--warmup-max); undefined with a fixed warm-up. */
export function autoWarmupCap(
  options: Pick<RunOptions, 'warmup' | 'warmupMax'>,
): number | undefined {
  return options.warmup === 'auto' ? (options.warmupMax ?? RUN_DEFAULTS.warmupMax) : undefined;
}

/** --stall-ms: as given (below --op-timeout), else the smaller of 1000 and half of --op-timeout. */
export function stallMsOf(flags: Pick<BenchmarkFlags, 'stallMs' | 'opTimeout'>): number {
  const opTimeout = flags.opTimeout ?? RUN_DEFAULTS.opTimeout;
  if (flags.stallMs === undefined) return Math.max(1, Math.min(1000, Math.floor(opTimeout / 2)));
  if (flags.stallMs >= opTimeout)
    throw new UsageError(
      `must be below --op-timeout (${opTimeout} ms): an op is cut off there before it could stall, got ${flags.stallMs}`,
      { option: 'stallMs' },
    );
  return flags.stallMs;
}
