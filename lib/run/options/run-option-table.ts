/**
 * The options of `mongo-bench run`'s benchmark (everything but where the server comes from, and
 * output switches), one row each: the flag, the config-file and API key, the help, the schema, the
 * default and the command-line parser. lib/cli/run.ts adds the flags from it, config files and the API
 * validate against its shape, BenchmarkFlags is its type, and RUN_DEFAULTS its defaults; what an
 * option means is resolved in run-options.ts (resolveBenchmarkOptions). Rows are in --help's order.
 */
import { z } from 'zod';
import { intArg, intListArg, MAX_TRIALS, positiveInt, trialCount } from '../../config/validate';
import {
  option,
  spellFlags,
  TableDefaults,
  tableDefaults,
  tableShape,
  TableValues,
} from '../../config/option-table';
import { PRESET_NAMES } from '../../workload/language/presets';
import { RESET_CHOICES } from '../../workload/language/setup-spec';
import { FORCE_OPTION } from '../../common/file-plan';
import { DRIVERS } from '../../workload/engine/op-client';
import { ARRIVALS_MODES, DEFAULT_ARRIVALS } from '../../workload/engine/step-plan';

/** The most worker threads a step may use. */
export const MAX_WORKERS = 256;

/** The largest client count accepted: each client is a connection of its own. */
export const MAX_CLIENTS = 10_000;

export const ON_ERROR_CHOICES = ['stop', 'continue'] as const;
export type OnError = (typeof ON_ERROR_CHOICES)[number];

/** --workers: 'auto' or a whole number (left as text when it is neither, so validation names the option). */
export function workersArg(value: string): number | 'auto' | string {
  const trimmed = value.trim();
  if (trimmed === 'auto') return 'auto';
  return /^\d+$/.test(trimmed) ? Number(trimmed) : value;
}

/** --rate as a command-line argument: a number stays a number (so -5 is refused as a rate), any other text is parsed later. */
export function rateArg(value: string): number | string {
  const n = Number(value);
  return value.trim() !== '' && Number.isFinite(n) ? n : value;
}

/** --warmup: whole seconds, or auto. */
function warmupArg(flag: string) {
  return (value: string): number | 'auto' =>
    value.trim() === 'auto' ? 'auto' : intArg(flag)(value);
}

/** A repeatable flag: every value given, in order. */
const repeatable = () => (value: string, previous: string[] | undefined) => [
  ...(previous ?? []),
  value,
];

const clientCount = (what: string, why = ' (one connection per client)') =>
  positiveInt(what).max(MAX_CLIENTS, `${what} must be at most ${MAX_CLIENTS}${why}`);

export const RUN_OPTIONS = {
  workload: option({
    flag: '--workload <name>',
    help: `a preset: ${PRESET_NAMES.join(', ')}`,
    schema: z.string(),
    default: '6to1',
  }),
  workloadFile: option({
    flag: '--workload-file <file>',
    help: 'a benchRun ops array (JSON), or {"ops": [...], "ns": "db.coll", "setup": [...]}',
    schema: z.string(),
  }),
  reset: option({
    flag: '--reset <when>',
    help: "when the workload's set-up (or the loader) runs: once before the sweep, or each-step: before every client count and trial",
    schema: z.enum(RESET_CHOICES, { error: `must be ${RESET_CHOICES.join(' or ')}` }),
    default: 'once',
  }),
  clients: option({
    flag: '--clients <list>',
    help: 'explicit client counts, e.g. 1,3,9',
    schema: z.array(clientCount('each client count')).min(1, 'expected at least one client count'),
    arg: intListArg,
  }),
  maxClients: option({
    flag: '--max-clients <n>',
    help: 'sweep 1, 2, 4, ... up to n',
    schema: clientCount('the maximum client count'),
    default: 64,
    arg: intArg,
  }),
  seconds: option({
    flag: '--seconds <s>',
    help: 'measured seconds per step',
    schema: positiveInt('seconds per step'),
    default: 10,
    arg: intArg,
  }),
  // The API and config files say opCount: their `ops` is the workload's op array.
  opCount: option({
    flag: '--ops <n>',
    help: "instead of --seconds: each step and trial measures exactly n ops (claimed from one counter, split over workers and agents), as YCSB's operationcount",
    schema: positiveInt('ops per step'),
    arg: intArg,
  }),
  warmup: option({
    flag: '--warmup <s>',
    help: (d) =>
      `seconds run before each measured step, not counted (default: ${d}); auto: until the last 10 one-second ops/s are level (slope within +-1% per second), at most --warmup-max`,
    schema: z.union(
      [
        z.literal('auto'),
        z.number().int('warm-up seconds must be an integer').min(0, 'warm-up seconds must be >= 0'),
      ],
      { error: 'must be auto or a whole number of seconds >= 0' },
    ),
    default: 2,
    arg: warmupArg,
  }),
  warmupMax: option({
    flag: '--warmup-max <s>',
    help: (d) =>
      `with --warmup auto: the most seconds a step warms up; at the cap it is measured anyway and marked not-steady (default: ${d})`,
    schema: positiveInt('the warm-up cap (seconds)'),
    default: 60,
    arg: intArg,
  }),
  trials: option({
    flag: '--trials <n>',
    help: `trials per client count (1 to ${MAX_TRIALS}): mean, median and stdev across them`,
    schema: trialCount('trials per step'),
    default: 1,
    arg: intArg,
  }),
  rate: option({
    flag: '--rate <rate>',
    help: "the open model: ops start on a schedule, latency from each op's due time; 500 (ops/s), 80% (of a maximum a closed probe measures first) or stages 100:30s,2000:2m (ramps; see below)",
    // 500, "500", "80%", "100:30s,2000:2m", or (config file) stages [{ rate: 100, for: '30s' }, ...]: every form is checked by resolveBenchmarkOptions (parseRateText).
    schema: z.union([z.number(), z.string(), z.array(z.unknown())]),
    arg: () => rateArg,
  }),
  arrivals: option({
    flag: '--arrivals <how>',
    help: "with a rate: how a free client waits for its op's due time: exact (a timer, then polling for the last 1.5 ms: starts within µs, a core busy meanwhile) or timer (ms timers alone, 1-2 ms late; for long soaks)",
    schema: z.enum(ARRIVALS_MODES, { error: `must be ${ARRIVALS_MODES.join(' or ')}` }),
    default: DEFAULT_ARRIVALS,
  }),
  rateProbeSeconds: option({
    flag: '--rate-probe-seconds <s>',
    help: 'with --rate N%: measured seconds of each client count of the closed probe, after 1 s of warm-up',
    schema: positiveInt('probe seconds'),
    default: 3,
    arg: intArg,
  }),
  rateProbeClients: option({
    flag: '--rate-probe-clients <list>',
    help: "with --rate N%: the closed probe's client counts (default: the sweep's)",
    schema: z
      .array(clientCount('each client count', ''))
      .min(1, 'expected at least one client count'),
    arg: intListArg,
  }),
  replayRate: option({
    flag: '--replay-rate <multiple>',
    help: 'with a captured --workload-file: issue ops at 1x, 2x, 0.5x... the rate its source served (an open model, as --rate)',
    schema: z.string(),
  }),
  docs: option({
    flag: '--docs <n>',
    help: 'documents to load, _id 0..n-1',
    schema: z.number().int('must be an integer').min(1, 'at least 1 document'),
    default: 10_000,
    arg: intArg,
  }),
  docSize: option({
    flag: '--doc-size <bytes>',
    help: 'approximate BSON size of each document',
    schema: z
      .number()
      .int('must be an integer')
      .min(16, 'documents are at least 16 bytes')
      .max(16 * 1024 * 1024, 'at most 16 MB (the BSON limit)'),
    default: 1024,
    arg: intArg,
  }),
  batchSize: option({
    flag: '--batch-size <n>',
    help: 'documents per insert batch while loading',
    schema: positiveInt('the batch size'),
    default: 256,
    arg: intArg,
  }),
  writeConcern: option({
    flag: '--write-concern <w>',
    help: 'for loading and for workload writes without one: 1, majority, or {"w":1,"j":true}',
    // The flag gives text; a config file or the API may give a number or an object (YAML's `writeConcern: {w: 1, j: true}`).
    schema: z.union([z.string(), z.number(), z.record(z.string(), z.unknown())]),
  }),
  load: option({
    flag: '--no-load',
    help: "use the existing data (--docs must match it); the workload's own writes change it (--no-load is that consent)",
    schema: z.boolean(),
  }),
  allowSetupWrites: option({
    flag: '--allow-setup-writes',
    help: "let the workload's set-up steps (and mongo-perf's pre()) write namespaces mongo-bench does not own on an existing deployment",
    schema: z.boolean(),
  }),
  docsLike: option({
    flag: '--docs-like <source>',
    help: 'load documents shaped like yours: a capture folder (its docs-like.json), db.coll on the target, or mongodb://HOST/db.coll ($sample; types, sizes, ranges; no value copied)',
    schema: z.string().min(1, 'must not be empty'),
  }),
  ns: option({
    flag: '--ns <db.coll>',
    help: 'namespace of the loaded documents, instead of --db/--collection',
    schema: z.string(),
    default: 'mongo_bench.docs',
  }),
  seed: option({
    flag: '--seed <n>',
    help: 'random seed; client i uses seed + i',
    schema: z.number().int('must be an integer'),
    default: 1314159265,
    arg: intArg,
  }),
  serverSelectionTimeout: option({
    flag: '--server-selection-timeout <ms>',
    help: 'give up on an unreachable server after this long',
    schema: positiveInt('the timeout (ms)'),
    default: 5000,
    arg: intArg,
  }),
  opTimeout: option({
    flag: '--op-timeout <ms>',
    help: 'per-operation time limit (driver timeoutMS, maxTimeMS on the server); a step still running this long after its window is cut and marked failed',
    schema: positiveInt('the operation timeout (ms)'),
    default: 30_000,
    arg: intArg,
  }),
  stallMs: option({
    flag: '--stall-ms <ms>',
    help: 'reads or writes are out (an outage) when one of them has been in flight this long and none succeeded meanwhile; a successful op slower than this is delayed (default: the smaller of 1000 and half of --op-timeout; below --op-timeout)',
    schema: positiveInt('the stall threshold (ms)'),
    arg: intArg,
  }),
  maxErrorRate: option({
    flag: '--max-error-rate <percent>',
    help: (d) =>
      `a step in which more than this share of the ops failed is a failed step, exit 1 (default: ${Number(d) * 100}%; 0%: any failed op)`,
    // "50%", "0%" from a flag or a file; a number is a fraction (from the API).
    schema: z.union([
      z.string(),
      z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1'),
    ]),
    default: 0.5,
  }),
  onError: option({
    flag: '--on-error <what>',
    help: 'after a failed step (server gone, step cut): stop, or continue with the next step',
    schema: z.enum(ON_ERROR_CHOICES, { error: `must be ${ON_ERROR_CHOICES.join(' or ')}` }),
    default: 'stop',
  }),
  serverStats: option({
    flag: '--no-server-stats',
    help: "do not sample the servers' serverStatus during the run (no server charts, no consistency check)",
    schema: z.boolean(),
  }),
  minOplogWindow: option({
    flag: '--min-oplog-window <duration>',
    help: "on replica sets: warn (oplog-window) when at a step's write rate a member's oplog holds less than this, e.g. 1h, 90m (default: the servers' storage.oplogMinRetentionHours, else no warning)",
    // "1h", "90m" from a flag or a file; a number is seconds (config files and the API).
    schema: z.union([z.string(), z.number().positive('must be above 0 seconds')]),
  }),
  workers: option({
    flag: '--workers <n>',
    help: 'worker threads per step, each with its own connection pool and a share of the clients; 1 = one event loop, no thread (default: auto = min(clients, cores - 1))',
    schema: z.union(
      [
        z.literal('auto'),
        positiveInt('the worker count').max(
          MAX_WORKERS,
          `the worker count must be at most ${MAX_WORKERS}`,
        ),
      ],
      {
        error: `must be auto or a whole number from 1 to ${MAX_WORKERS}`,
      },
    ),
    arg: () => workersArg,
  }),
  driver: option({
    flag: '--driver <client>',
    help: 'the client the workload\'s ops go through: node (the MongoDB Node driver, what applications run) or wire (mongo-bench\'s own connections speaking OP_MSG: a far higher ceiling per core; docs/workload.md "Two clients")',
    schema: z.enum(DRIVERS, { error: `must be ${DRIVERS.join(' or ')}` }),
    default: 'node',
  }),
  testDouble: option({
    flag: '--test-double',
    help: 'mark the server as a test double in the result (auto-detected for mongo-java-server)',
    schema: z.boolean(),
  }),
  slo: option({
    flag: '--slo <objective>',
    help: "a service-level objective checked on every step, repeatable: 'reads.p99<5ms', 'errors<0.1%', 'total>2000/s'; scoped: 'total@8>4000/s' (8 clients), 'total@best>4000/s' (the best step) (exit 99 when one fails)",
    // One objective or a list (a config file may hold either).
    schema: z.union([z.string(), z.array(z.string())]),
    arg: repeatable,
    repeatable: true,
  }),
  sloAbort: option({
    flag: '--slo-abort',
    help: 'with --slo: stop the sweep at the first failed objective (what was measured is kept, marked incomplete)',
    schema: z.boolean(),
  }),
  /** Config files and the API only: several workloads at once on one clock, validated by lib/run/scenarios/scenario-spec.ts. */
  scenarios: option({
    help: 'several workloads at once on one clock (a config file or the API)',
    schema: z.array(z.unknown()),
  }),
  /** Fault events fired in every step's measured window (lib/run/scenarios/event-spec.ts validates them). */
  events: option({
    flag: '--event <AT:ACTION[:k=v,...]>',
    help: "an event fired at AT seconds into every step's measured window, in every trial, repeatable: '3:proxyDown:proxy=mongo,for=2s', '5:toxic:proxy=mongo,type=latency,latency=300,for=10s', '2:stepDown:seconds=30', '2:freeze:seconds=30,host=h:27018', '1:kill:member=1,for=5s' (kill, terminate, restart: a member of a launched deployment) (a config file's `events`: a list of { at, action, ... }); not with --ops",
    // A text or a list of texts and objects (a config file may give either).
    schema: z.union([
      z.string(),
      z.array(z.union([z.string(), z.record(z.string(), z.unknown())])),
    ]),
    arg: repeatable,
    repeatable: true,
  }),
  toxiproxy: option({
    flag: '--toxiproxy <url>',
    help: "Toxiproxy's HTTP API (e.g. http://127.0.0.1:8474) for the network faults of --event (proxyDown, toxic)",
    schema: z
      .string()
      .regex(/^https?:\/\/[^\s]+$/, 'expected an http:// URL such as http://127.0.0.1:8474'),
  }),
  label: option({
    flag: '--label <label>',
    help: 'name of this run (default: the workload name)',
    schema: z.string().min(1, 'must not be empty'),
  }),
  out: option({
    flag: '--out <dir>',
    help: 'output folder (default: reports/<timestamp>-<label>/)',
    schema: z.string().min(1, 'must not be empty'),
  }),
  metricsPort: option({
    flag: '--metrics-port <port>',
    help: "serve the run's Prometheus metrics at http://127.0.0.1:PORT/metrics while it runs (0: a free port, printed; docs/report.md)",
    schema: z
      .number()
      .int('must be an integer')
      .min(0, 'must be a port from 0 to 65535')
      .max(65535, 'must be a port from 0 to 65535'),
    arg: intArg,
  }),
  metricsHost: option({
    flag: '--metrics-host <host>',
    help: 'with --metrics-port: the address it listens on (default 127.0.0.1; any other may be reached by other machines, and its figures name hosts)',
    schema: z.string().min(1, 'must not be empty'),
  }),
};

spellFlags(RUN_OPTIONS);

/** run's output switches (the run command and its config files; the API's benchmark() takes none of them). */
export const RUN_OUTPUT_OPTIONS = {
  store: option({
    flag: '--store <dir|uri>',
    help: 'also keep the result in a results store: a folder, or mongodb://host/db[.collection] (default: env MONGO_BENCH_STORE); mongo-bench history reads it',
    schema: z.string().min(1, 'must not be empty'),
  }),
  json: option({
    flag: '--json',
    help: 'print the result document on stdout, and nothing else there (progress and tables go to stderr)',
    schema: z.boolean(),
  }),
  quiet: option({
    flag: '--quiet',
    help: 'no progress and no tables; errors, warnings and the output folder only',
    schema: z.boolean(),
  }),
  junit: option({
    flag: '--junit <file>',
    help: 'also write a JUnit XML file for CI: a test case per objective and client count (--slo; not applicable: skipped), else per step (failed when the step failed)',
    schema: z.string().min(1, 'must not be empty'),
  }),
  serve: option({
    flag: '--serve <port>',
    help: 'serve the report page at http://127.0.0.1:PORT/ while the run goes, updated each second (0: a free port, printed)',
    schema: z
      .number()
      .int('must be a whole port number')
      .min(0, 'must be a port from 0 to 65535')
      .max(65535, 'must be a port from 0 to 65535'),
    arg: intArg,
  }),
  serveHost: option({
    flag: '--serve-host <host>',
    help: 'with --serve: the address to listen on (anything but loopback lets other machines read the figures)',
    schema: z.string().min(1, 'must not be empty'),
    default: '127.0.0.1',
  }),
  serveLinger: option({
    flag: '--serve-linger <s>',
    help: 'with --serve: keep serving the finished page this many seconds after the run (Ctrl-C ends it sooner)',
    schema: z.number().int('must be whole seconds').min(0, 'must be 0 or more seconds'),
    default: 0,
    arg: intArg,
  }),
  force: FORCE_OPTION,
};

/** The rows run's --help shows under "Output:" (the others go under "Benchmark:"), before RUN_OUTPUT_OPTIONS. */
export const RUN_OUTPUT_KEYS = [
  'label',
  'out',
  'metricsPort',
  'metricsHost',
] as const satisfies readonly (keyof typeof RUN_OPTIONS)[];

/** The benchmark's options as flags, config files and the API give them (validated by benchmarkShape). */
export const benchmarkShape = tableShape(RUN_OPTIONS);

/** The benchmark's options as given (flags, a config file, the API): the table's type. */
export type BenchmarkFlags = TableValues<typeof RUN_OPTIONS>;

export const RUN_DEFAULTS: TableDefaults<typeof RUN_OPTIONS> = tableDefaults(RUN_OPTIONS);
