/**
 * Renders the same client sweep as benchRun() calls for the legacy `mongo` shell (MongoDB 5.0 and
 * older; modern mongosh has no benchRun). The script prints one JSON line per client count.
 * Ops are adjusted to what recent legacy shells require: an `ns` on every op, `readCmd: true` on
 * reads and `writeCmd: true` on writes, `readPreference` as `readPrefMode` (5.0 shells only), and no `safe`.
 */
import { Long, ObjectId } from 'mongodb';
import { toolInfo } from '../../common/version';
import { clientCountsUpTo } from './sweep';
import { isObject } from '../../common/values';
import { opKindNamed } from './ops';

export interface LegacyScriptOptions {
  workload: { name: string; ops: unknown[] };
  /** Sweep 1, 2, 4, ... up to this (ignored when `clients` is given). Default 64. */
  maxClients?: number;
  clients?: number[];
  /** Seconds per client count. Default 10. */
  seconds?: number;
  /** For ops without `ns`. Default "mongo_bench.docs". */
  ns?: string;
  /** Added to write ops that set none, e.g. {w: 1}. */
  writeConcern?: Record<string, unknown>;
  randomSeed?: number;
  /**
   * The legacy shell that will run it (default 5.0, the last one). A 4.4 shell refuses an op field
   * it does not know with error 34394 "Benchrun op has unsupported field" (BenchRunOp::createFromBson,
   * src/mongo/shell/bench.cpp, r4.4), and `readPrefMode` is one of them; for it the field is left out.
   */
  shellVersion?: { major: number; minor: number };
}

/** readPrefMode is a benchRun op field of the 5.0 shell only (see LegacyScriptOptions.shellVersion). */
export function shellKnowsReadPrefMode(shell: { major: number; minor: number }): boolean {
  return shell.major >= 5;
}

/** One op as the legacy shell's benchRun wants it. */
export function legacyOp(
  raw: unknown,
  defaults: { ns: string; writeConcern?: Record<string, unknown>; readPrefMode?: boolean },
): Record<string, unknown> {
  if (!isObject(raw)) return raw as Record<string, unknown>;
  const op: Record<string, unknown> = { ...raw };
  delete op.safe;
  // mongo-bench's extension: benchRun has no weights, runs the ops in order, and a 4.4 shell refuses
  // a field it does not know (error 34394, BenchRunOp::createFromBson, src/mongo/shell/bench.cpp).
  delete op.weight;
  if (op.readPreference !== undefined) {
    const rp = op.readPreference;
    if (defaults.readPrefMode !== false) op.readPrefMode = isObject(rp) ? rp.mode : rp;
    delete op.readPreference;
  }
  // Each kind says its legacy-shell form (./ops/*.ts legacyShell); an op no kind knows only gets the ns.
  const kind = opKindNamed(op.op);
  if (kind?.local !== true && op.ns === undefined) op.ns = defaults.ns;
  if (kind && !kind.local) {
    if (kind.legacyShell === 'readCmd') op.readCmd = true;
    if (kind.legacyShell === 'writeCmd') {
      op.writeCmd = true;
      if (op.writeConcern === undefined && defaults.writeConcern)
        op.writeConcern = defaults.writeConcern;
    }
  }
  return op;
}

/** A JavaScript literal the legacy shell evaluates to the same value (ObjectId, Date, NumberLong included). */
export function shellLiteral(value: unknown, indent = ''): string {
  if (value instanceof ObjectId) return `ObjectId("${value.toHexString()}")`;
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  if (value instanceof Long) return `NumberLong("${value.toString()}")`;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[${value.map((v) => shellLiteral(v, indent)).join(', ')}]`;
  }
  if (isObject(value)) {
    const entries = Object.entries(value).map(
      ([k, v]) => `${JSON.stringify(k)}: ${shellLiteral(v, indent)}`,
    );
    return entries.length === 0 ? '{}' : `{${entries.join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function renderLegacyBenchRunScript(options: LegacyScriptOptions): string {
  const seconds = options.seconds ?? 10;
  const counts = options.clients ?? clientCountsUpTo(options.maxClients ?? 64);
  const ns = options.ns ?? 'mongo_bench.docs';
  const shell = options.shellVersion ?? { major: 5, minor: 0 };
  const readPrefMode = shellKnowsReadPrefMode(shell);
  const ops = options.workload.ops.map((op) =>
    legacyOp(op, { ns, writeConcern: options.writeConcern, readPrefMode }),
  );
  const droppedWeights = options.workload.ops.some((op) => isObject(op) && op.weight !== undefined);
  // mongo-bench's own template operators: benchRun's evaluator does not know them.
  const extensions = [
    '#PICK',
    '#RAND_DATE',
    '#ZIPF',
    '#HOTSPOT',
    '#LATEST',
    '#PICK_FIELD',
    '#YCSB_KEY',
    '#YCSB_KEYNUM',
  ].filter((name) => JSON.stringify(options.workload.ops).includes(`"${name}"`));
  // mongo-bench's own ops (a server op with no benchRun figures, e.g. readModifyWrite): benchRun refuses them.
  const ownOps = [
    ...new Set(options.workload.ops.map((op) => (isObject(op) ? op.op : undefined))),
  ].filter((name): name is string => {
    const kind = opKindNamed(name);
    return kind !== undefined && !kind.local && kind.benchRun === undefined;
  });
  const droppedReadPref =
    !readPrefMode &&
    options.workload.ops.some((op) => isObject(op) && op.readPreference !== undefined);
  const seed = options.randomSeed ?? 1314159265;
  const tool = toolInfo();
  return `// benchRun() client sweep "${options.workload.name}", generated by ${tool.name} ${tool.version}.
// For the legacy mongo shell (MongoDB 5.0 and older): modern mongosh has no benchRun().
// Load the data first (e.g. mongo-bench run --docs N ...): the ops expect the documents in ${ns}.
// Run:   mongo --quiet "mongodb://HOST:PORT" ${scriptFileName(options.workload.name)} > results.jsonl
// Prints one JSON line per client count (benchRun's own fields plus workload, clients, seconds).
// With authentication, fill in credentials, e.g. {db: "admin", username: "u", password: "p"}.${
    droppedReadPref
      ? `\n// Warning: written for a ${shell.major}.${shell.minor} shell, which refuses benchRun's readPrefMode (error 34394):\n// the ops' read preferences were left out, so every read goes to the primary.`
      : ''
  }${droppedWeights ? '\n// Warning: benchRun has no op weights (a mongo-bench extension): it runs these ops in order, one each per pass.' : ''}${
    extensions.length > 0
      ? `\n// Warning: ${extensions.join(', ')} are mongo-bench's template operators, not benchRun's: the legacy shell refuses these ops.`
      : ''
  }${ownOps.length > 0 ? `\n// Warning: ${ownOps.join(', ')} ${ownOps.length === 1 ? "is mongo-bench's op" : "are mongo-bench's ops"}, not benchRun's: the legacy shell refuses ${ownOps.length === 1 ? 'it' : 'them'}.` : ''}
var credentials = {};

var workload = ${JSON.stringify(options.workload.name)};
var seconds = ${seconds};
var clientCounts = ${JSON.stringify(counts)};
var ops = [
${ops.map((op) => `  ${shellLiteral(op)}`).join(',\n')}
];

// benchRun returns counts as NumberLong: make every field a plain number for JSON.
function plain(res) {
  var out = {};
  for (var key in res) {
    var v = res[key];
    if (v !== null && typeof v === "object" && typeof v.toNumber === "function") v = v.toNumber();
    out[key] = v;
  }
  return out;
}

for (var i = 0; i < clientCounts.length; i++) {
  var args = {ops: ops, parallel: clientCounts[i], seconds: seconds, host: db.getMongo().host, randomSeed: ${seed}};
  for (var k in credentials) args[k] = credentials[k];
  var line = plain(benchRun(args));
  line.workload = workload;
  line.clients = clientCounts[i];
  line.seconds = seconds;
  print(JSON.stringify(line));
}
`;
}

/** The file name `mongo-bench scripts` should use: benchrun-<workload>.js. */
export function scriptFileName(workloadName: string): string {
  return `benchrun-${workloadName.replace(/[^A-Za-z0-9_.-]+/g, '_')}.js`;
}
