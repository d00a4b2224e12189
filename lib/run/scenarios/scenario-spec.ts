/**
 * A run config's `scenarios`: several named workloads run at once against one server on one clock.
 * Each has its own ops (or a preset `workload`, or a captured `workloadFile`), its own `clients`
 * (closed model: a count, a list, or a doubling sweep "1..16") or `rate` (open model: ops/s or
 * stages), a `start` offset and a `duration` per step, and background `events` it triggers.
 * Every error names its config path (`scenarios[1].rate: ...`) and comes before anything connects.
 */
import { z } from 'zod';
import { UsageError } from '../../config/errors';
import {
  isPresetName,
  presetOps,
  presetSetup,
  PRESET_NAMES,
} from '../../workload/language/presets';
import { readWorkloadFile } from '../../workload/language/workload-file';
import { clientCountsUpTo } from '../../workload/language/sweep';
import { parseNamespace, parseOps } from '../../workload/language/op-spec';
import { prepareWorkload, PreparedWorkload } from '../../workload/engine/compile-ops';
import {
  parseDurationSeconds,
  parseRateSpec,
  rateDurationSeconds,
  ScheduledRate,
} from '../../workload/language/rate-spec';
import { closest } from '../../config/validate';
import { BackgroundEventSpec, describeEvent, parseEvent } from './event-spec';

/** Connections that serve a rate scenario's arrivals (the open model issues ops on schedule; these carry them). */
export const RATE_SCENARIO_CLIENTS = 16;

/** The most client counts, and clients per step, a scenario may ask for (each client is one connection). */
const MAX_SCENARIO_CLIENTS = 10_000;

export type { BackgroundEventSpec } from './event-spec';
export { EVENT_ACTIONS, STEP_DOWN_MIN_SECONDS } from './event-spec';

export interface ScenarioSpec {
  name: string;
  workload: { name: string; ops: unknown[]; file?: string };
  /** Default namespace of its ops (the run's, or its workload file's). */
  ns: string;
  /** Closed model: one step per client count, one after the other. */
  clients?: number[];
  /** Open model: the arrival rate (one step of RATE_SCENARIO_CLIENTS connections). */
  rate?: ScheduledRate;
  /** Seconds after the run's clock began. */
  start: number;
  /** Measured seconds of each step (a whole number >= 1). */
  duration: number;
  /** `at`: seconds after the scenario's start. */
  events: BackgroundEventSpec[];
}

export interface ScenarioDefaults {
  ns: string;
  docs: number;
  docSize: number;
  /** A step's seconds when the scenario gives no duration (the run's --seconds). */
  seconds: number;
}

const scenarioInput = z
  .object({
    name: z.string().min(1, 'must not be empty'),
    ops: z.array(z.unknown()).optional(),
    workload: z.string().optional(),
    workloadFile: z.string().optional(),
    ns: z.string().optional(),
    clients: z.union([z.number(), z.string(), z.array(z.number())]).optional(),
    rate: z.unknown().optional(),
    start: z.union([z.number(), z.string()]).optional(),
    duration: z.union([z.number(), z.string()]).optional(),
    events: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .strict();

const SCENARIO_KEYS = Object.keys(scenarioInput.shape);

function zodProblem(error: z.ZodError, where: string): UsageError {
  const issue = error.issues[0];
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0];
    const suggestion = closest(key, SCENARIO_KEYS);
    return new UsageError(
      `${where}: unknown key "${key}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; a scenario has ${SCENARIO_KEYS.join(', ')}`,
    );
  }
  const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
  return new UsageError(`${where}${path}: ${issue.message}`);
}

/** `clients`: 8, [1, 2, 4], "1,2,4", or "1..16" (1, 2, 4, 8, 16: the doubling sweep of --max-clients). */
export function parseScenarioClients(value: unknown, where: string): number[] {
  const check = (n: number): number => {
    if (!Number.isInteger(n) || n < 1 || n > MAX_SCENARIO_CLIENTS)
      throw new UsageError(
        `${where}: each client count must be a whole number from 1 to ${MAX_SCENARIO_CLIENTS}, got ${JSON.stringify(n)}`,
      );
    return n;
  };
  if (typeof value === 'number') return [check(value)];
  if (Array.isArray(value)) {
    if (value.length === 0) throw new UsageError(`${where}: expected at least one client count`);
    return value.map((n) => check(Number(n)));
  }
  if (typeof value === 'string') {
    const sweep = /^\s*1\s*\.\.\s*(\d+)\s*$/.exec(value);
    if (sweep) return clientCountsUpTo(check(Number(sweep[1])));
    if (/^\s*\d+(\s*,\s*\d+)*\s*$/.test(value))
      return value.split(',').map((p) => check(Number(p)));
  }
  throw new UsageError(
    `${where}: expected a client count (8), a list ([1, 2, 4] or "1,2,4") or a doubling sweep ("1..16"), got ${JSON.stringify(value)}`,
  );
}

function wholeSeconds(value: unknown, where: string): number {
  const seconds = parseDurationSeconds(value, where);
  if (!Number.isInteger(seconds) || seconds < 1)
    throw new UsageError(
      `${where}: a step lasts a whole number of seconds >= 1, got ${JSON.stringify(value)}`,
    );
  return seconds;
}

function parseScenario(raw: unknown, where: string, defaults: ScenarioDefaults): ScenarioSpec {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new UsageError(
      `${where}: expected a scenario ({ name, ops | workload | workloadFile, clients | rate, start?, duration?, events? })`,
    );
  const parsed = scenarioInput.safeParse(raw);
  if (!parsed.success) throw zodProblem(parsed.error, where);
  const s = parsed.data;
  const sources = (['ops', 'workload', 'workloadFile'] as const).filter((k) => s[k] !== undefined);
  if (sources.length !== 1) {
    throw new UsageError(
      `${where}: ${sources.length === 0 ? 'needs its ops: one of ops, workload (a preset) or workloadFile' : `give one of ops, workload or workloadFile, not ${sources.join(' and ')}`}`,
    );
  }
  if (s.clients !== undefined && s.rate !== undefined)
    throw new UsageError(`${where}: give clients (closed model) or rate (open model), not both`);
  if (s.clients === undefined && s.rate === undefined)
    throw new UsageError(
      `${where}: needs clients (a count, a list or "1..16") or rate (ops/s or stages)`,
    );

  let ns = s.ns ?? defaults.ns;
  if (!parseNamespace(ns, false))
    throw new UsageError(
      `${where}.ns: expected "database.collection", got ${JSON.stringify(s.ns)}`,
    );
  let workload: ScenarioSpec['workload'];
  if (s.workloadFile !== undefined) {
    let file;
    try {
      file = readWorkloadFile(s.workloadFile);
    } catch (err) {
      throw err instanceof UsageError
        ? new UsageError(
            `${where}.workloadFile: ${err.message.replace(/^option --workload-file: /, '')}`,
          )
        : err;
    }
    if (file.setup !== undefined)
      throw new UsageError(
        `${where}.workloadFile: ${s.workloadFile} has a set-up, which a scenario does not run (scenarios share the run's data: load it with the run's docs/ns, or run the file alone)`,
      );
    if (file.ns && s.ns === undefined) ns = file.ns;
    workload = { name: file.name, ops: file.ops, file: s.workloadFile };
  } else if (s.workload !== undefined) {
    if (!isPresetName(s.workload)) {
      const suggestion = closest(s.workload, PRESET_NAMES);
      throw new UsageError(
        `${where}.workload: unknown preset "${s.workload}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; presets: ${PRESET_NAMES.join(', ')}`,
      );
    }
    if (
      presetSetup(s.workload, { ns, docs: defaults.docs, docSize: defaults.docSize, batchSize: 1 })
    ) {
      throw new UsageError(
        `${where}.workload: ${s.workload} runs over YCSB's records, which a scenario does not load (scenarios share the run's data, the built-in loader's): run it alone`,
      );
    }
    workload = {
      name: s.workload,
      ops: presetOps(s.workload, { ns, docs: defaults.docs, docSize: defaults.docSize }),
    };
  } else {
    workload = { name: s.name, ops: s.ops as unknown[] };
  }

  let rate: ScheduledRate | undefined;
  let clients: number[] | undefined;
  if (s.rate !== undefined) {
    const spec = parseRateSpec(s.rate, `${where}.rate`);
    if (spec.kind === 'shareOfMax') {
      throw new UsageError(
        `${where}.rate: a share of the measured maximum ("${Math.round(spec.share * 100)}%") is not supported in a scenario: give ops/s (e.g. 500) or stages`,
      );
    }
    rate = spec;
  } else {
    clients = parseScenarioClients(s.clients, `${where}.clients`);
  }
  const start = s.start === undefined ? 0 : parseDurationSeconds(s.start, `${where}.start`);
  // Whole seconds, so every scenario's per-second buckets line up with the run's clock.
  if (!Number.isInteger(start))
    throw new UsageError(
      `${where}.start: a whole number of seconds after the run's start, got ${JSON.stringify(s.start)}`,
    );
  const stagesSeconds = rate ? rateDurationSeconds(rate) : undefined;
  const duration =
    s.duration !== undefined
      ? wholeSeconds(s.duration, `${where}.duration`)
      : stagesSeconds !== undefined
        ? Math.max(1, Math.ceil(stagesSeconds))
        : defaults.seconds;
  const events = (s.events ?? []).map((e, i) =>
    parseEvent(e, `${where}.events[${i}]`, ns, 'scenario'),
  );
  const length = duration * (clients?.length ?? 1);
  for (const [i, e] of events.entries()) {
    if (e.at > length)
      throw new UsageError(
        `${where}.events[${i}].at: ${e.at} s is after the scenario ends (${length} s after its start)`,
      );
  }
  return {
    name: s.name,
    workload,
    ns,
    ...(clients ? { clients } : {}),
    ...(rate ? { rate } : {}),
    start,
    duration,
    events,
  };
}

/** Validates `scenarios` (`where`: its path as shown in errors, e.g. "scenarios"). */
export function parseScenarios(
  raw: unknown,
  where: string,
  defaults: ScenarioDefaults,
): ScenarioSpec[] {
  if (!Array.isArray(raw) || raw.length === 0)
    throw new UsageError(
      `${where}: expected a list of scenarios ([{ name, ops, clients | rate, ... }, ...])`,
    );
  const specs = raw.map((item, i) => parseScenario(item, `${where}[${i}]`, defaults));
  const seen = new Map<string, number>();
  specs.forEach((s, i) => {
    const first = seen.get(s.name);
    if (first !== undefined)
      throw new UsageError(
        `${where}[${i}].name: "${s.name}" is also the name of scenarios[${first}]: each scenario needs a name of its own`,
      );
    seen.set(s.name, i);
  });
  return specs;
}

/** How long a scenario runs from its start: its steps one after the other. */
export function scenarioSeconds(spec: ScenarioSpec): number {
  return spec.duration * (spec.clients?.length ?? 1);
}

/** Compiles a scenario's ops: every op and template error names `scenarios[i].ops[j]...`, before anything connects. */
export function compileScenario(
  spec: ScenarioSpec,
  where: string,
  writeConcern: Record<string, unknown> | undefined,
): PreparedWorkload {
  const origin = spec.workload.file ? `${where}.workloadFile ${spec.workload.file}: ` : `${where}.`;
  try {
    return prepareWorkload(parseOps(spec.workload.ops, { defaultNs: spec.ns, where: origin }), {
      defaultWriteConcern: writeConcern,
    });
  } catch (err) {
    if (err instanceof UsageError && !err.message.startsWith(origin))
      throw new UsageError(`${origin}${err.message}`);
    throw err;
  }
}

/** What a scenarios run will do, for --dry-run: one line per scenario and event, then the whole length. */
export function describeScenarios(specs: readonly ScenarioSpec[]): string[] {
  const lines = [`${specs.length} scenarios at once on one clock, no warm-up:`];
  for (const s of specs) {
    const load = s.rate
      ? s.rate.kind === 'constant'
        ? `${s.rate.opsPerSecond} ops/s on ${RATE_SCENARIO_CLIENTS} connections`
        : 'a ramping rate'
      : `clients ${s.clients!.join(', ')}`;
    lines.push(
      `  ${s.name} (${s.workload.name}, ${s.workload.ops.length} op${s.workload.ops.length === 1 ? '' : 's'} per pass): ${load}, ${s.duration} s per step, from ${s.start} s to ${s.start + scenarioSeconds(s)} s`,
    );
    for (const e of s.events) lines.push(`    at ${s.start + e.at} s: ${describeEvent(e)}`);
  }
  const length = Math.max(...specs.map((s) => s.start + scenarioSeconds(s)));
  lines.push(`expected duration: ${length} s of scenarios`);
  return lines;
}
