/**
 * The run's write plan (lib/server/write-plan.ts), made from its options before anything connects: every
 * namespace the loader, the workload's write ops, its set-up steps, the results store and agents' control
 * database write, and the cluster changes of --setup on an existing cluster and of a scenario's events,
 * each with its consent and, where the run sets it back at its end, how (lib/run/cluster-restore.ts). The
 * dry run prints it, the run plan refuses what no consent allows (a system namespace, an invalid name, a
 * namespace made by a template, a cluster change without its consent), and the run checks every entry
 * against what the server holds before its first write (lib/run/write-check.ts).
 */
import type { TargetOrigin } from '../../server/target';
import {
  Consent,
  CONSENTS,
  describeEntry,
  judgeServerChange,
  NamespaceAction,
  NamespaceEntry,
  ServerEntry,
  WriteEntry,
  WritePlan,
  WriteSource,
} from '../../server/write-plan';
import { isPresetName } from '../../workload/language/presets';
import { opClass, parseOps } from '../../workload/language/op-spec';
import type { SetupStep } from '../../workload/language/setup-spec';
import type { ShardingSpec } from '../../topology/model';
import { isMongoStoreSpec } from '../../store/store';
import { parseStoreUri } from '../../store/mongo-store';
import { redactUri } from '../../security/redact';
import { OWNER_COLLECTION } from '../../server/ownership';
import type { RunOptions } from './run-options';
import { describeMember, type BackgroundEventSpec } from '../scenarios/event-spec';
import type { DocsLikeSpec } from '../../prepare/docs-like';
import { parseDocsLike } from '../../capture/docs-like';
import { classifyCommand, CommandWrites } from '../../server/command-writes';
import { namespaceProblem, systemNamespaceProblem } from '../../server/namespace-rules';

/** What of the run's options the plan reads. */
export type WritePlanOptions = Pick<RunOptions, 'ns' | 'workload' | 'load' | 'docs'> &
  Partial<
    Pick<
      RunOptions,
      | 'setup'
      | 'docsLike'
      | 'keepCollection'
      | 'drop'
      | 'allowSetupWrites'
      | 'scenarios'
      | 'events'
      | 'toxiproxy'
    >
  >;

/** What the plan needs beyond the benchmark's options (the run command's; absent from the API's runs). */
export interface WritePlanExtras {
  /** --store (a MongoDB URI is a write; a folder is not a namespace). */
  store?: string;
  /** --agents: the control database, and --control-uri when it is given (another deployment). */
  control?: { db: string; uri?: string };
  /** --uri --setup: the sharding applied to the existing cluster. */
  clusterSetup?: ShardingSpec;
  /** --junit: the JUnit XML file written after the run (absolute path). */
  junit?: string;
}

export interface RunWritePlan extends WritePlan {
  /** Writes no entry can name (a namespace made by a template): refused before anything connects. */
  unplannable: string[];
}

/** Every write the run will make, from its options; `origin`: where the target comes from. */
export function runWritePlan(
  options: WritePlanOptions,
  origin: TargetOrigin,
  extras: WritePlanExtras = {},
): RunWritePlan {
  const unplannable: string[] = [];
  const entries: WriteEntry[] = [
    ...loaderEntries(options),
    ...setupEntries(options, unplannable),
    ...workloadEntries(options, unplannable),
    ...storeEntries(extras.store),
    ...controlEntries(extras.control),
    ...clusterEntries(extras.clusterSetup),
    ...eventEntries(options),
    ...(extras.junit !== undefined
      ? [{ kind: 'file' as const, path: extras.junit, source: 'run' }]
      : []),
  ];
  if (origin === 'uri') entries.push(...markerEntries(entries));
  const consents = new Set<Consent>();
  if (options.drop) consents.add('--drop');
  if (!options.load) consents.add('--no-load');
  if (options.allowSetupWrites) consents.add('--allow-setup-writes');
  if (extras.clusterSetup) consents.add('--setup');
  // A configured event is the consent to the change it names.
  if (entries.some((e) => e.kind !== 'file' && e.consent === 'event')) consents.add('event');
  return { ours: origin !== 'uri', consents, entries, unplannable };
}

/** The collections --drop drops before the run: those the load replaces (the loader's, or a preset's own load). */
export function loadReplaces(plan: WritePlan): NamespaceEntry[] {
  return plan.entries.filter(
    (e): e is NamespaceEntry & { coll: string } =>
      e.kind === 'namespace' &&
      e.coll !== undefined &&
      e.consent === '--drop' &&
      (e.action === 'recreate' || e.action === 'empty' || e.action === 'drop'),
  );
}

/**
 * What is refused before anything connects, one line each (undefined: nothing): a write to a system
 * namespace or an invalid name, a namespace made by a template, a change of server or cluster state
 * without its consent. Not on a deployment mongo-bench starts.
 */
export function planProblems(plan: RunWritePlan): string | undefined {
  if (plan.ours) return undefined;
  const lines: string[] = [];
  for (const entry of plan.entries) {
    if (entry.kind === 'server') {
      const verdict = judgeServerChange(entry, plan);
      if (!verdict.allowed)
        lines.push(
          `  - ${describeEntry(entry)}: ${verdict.why}; ${entry.consent} allows it (${CONSENTS[entry.consent]})`,
        );
      continue;
    }
    if (entry.kind !== 'namespace') continue;
    // The loader empties (keeps) a collection only where it is sharded: the shorter namespace limit.
    const problem =
      namespaceProblem(entry.db, entry.coll, { sharded: entry.action === 'empty' }) ??
      systemNamespaceProblem(entry.db, entry.coll);
    if (problem) lines.push(`  - ${describeEntry(entry)}: ${problem}; no option allows it`);
  }
  for (const text of plan.unplannable) lines.push(`  - ${text}; no option allows it`);
  if (lines.length === 0) return undefined;
  return `nothing was written: ${lines.length} of the run's writes ${lines.length === 1 ? 'is' : 'are'} refused\n${lines.join('\n')}`;
}

/** --docs-like's source when it is a collection on a server: on the target (`db.coll`), or at a URI. */
export interface DocsLikeSource {
  db: string;
  coll: string;
  /** The `mongodb://HOST/db.coll` form: the server it names (absent: the target). */
  uri?: string;
}

export function docsLikeSource(spec: DocsLikeSpec | undefined): DocsLikeSource | undefined {
  if (!spec || spec.kind === 'file') return undefined;
  if (spec.kind === 'namespace') return { db: spec.db, coll: spec.coll };
  const { uri, db, coll } = parseDocsLike(spec.value);
  return { db, coll, uri };
}

/** The collection --drop drops that has --docs-like's source's name, if it drops one (same deployment or not). */
export function dropOfDocsLikeSource(
  plan: WritePlan,
  source: DocsLikeSource,
): NamespaceEntry | undefined {
  if (!plan.consents.has('--drop')) return undefined;
  return loadReplaces(plan).find((e) => e.db === source.db && e.coll === source.coll);
}

/** The refusal of --drop when it would drop --docs-like's source (`why`: how the deployment was told the same). */
export function docsLikeDropRefusal(source: DocsLikeSource, why?: string): string {
  const where = source.uri ? ` at ${redactUri(source.uri)}` : ' on the target';
  return (
    `option --drop: it drops ${source.db}.${source.coll}, which is --docs-like's source ${source.db}.${source.coll}${where}` +
    `${why ? ` (${why})` : ''}: load into another namespace (--ns), sample another collection, or leave out --drop`
  );
}

function loaderEntries(options: WritePlanOptions): NamespaceEntry[] {
  if (!options.load || options.setup) return [];
  const [db, coll] = splitNamespace(options.ns);
  return [
    {
      kind: 'namespace',
      db,
      coll,
      action: options.keepCollection ? 'empty' : 'recreate',
      source: options.docsLike ? 'docs-like' : 'loader',
      detail: `${options.docs} documents${options.keepCollection ? ', keeping the sharded collection' : ''}`,
      consent: '--drop',
    },
  ];
}

/** The workload's write ops, one entry per namespace (a command op by what it names). */
function workloadEntries(options: WritePlanOptions, unplannable: string[]): NamespaceEntry[] {
  // Scenarios: each one's ops, over its own default namespace.
  const specs = options.scenarios
    ? options.scenarios.flatMap((s) => parseOps(s.workload.ops, { defaultNs: s.ns }))
    : parseOps(options.workload.ops, { defaultNs: options.ns });
  const byNamespace = new Map<string, NamespaceEntry>();
  const add = (db: string, coll: string | undefined, op: string) => {
    const key = `${db}.${coll ?? ''}`;
    const found = byNamespace.get(key);
    if (found) found.detail = `${found.detail}, ${op}`;
    else
      byNamespace.set(key, {
        kind: 'namespace',
        db,
        ...(coll !== undefined ? { coll } : {}),
        action: 'write',
        source: 'workload',
        detail: op,
        consent: '--no-load',
      });
  };
  for (const spec of specs) {
    if (!spec.ns) continue;
    const op = `op ${spec.index} (${spec.type})`;
    if (spec.type === 'command') {
      const writes = classifyCommand(spec.command as Record<string, unknown>, spec.ns.db);
      if ('refused' in writes) unplannable.push(`workload ${op}: ${writes.refused}`);
      else if (!writes.reads) for (const w of writes.writes) add(w.db, w.coll, op);
    } else if (opClass(spec) === 'write') add(spec.ns.db, spec.ns.coll, op);
  }
  return [...byNamespace.values()];
}

/**
 * The set-up's steps (every client count's). A preset's own load (YCSB's records) is the loader of that
 * preset: --drop's; a workload file's or mongo-perf's steps need --allow-setup-writes beyond the rule.
 */
function setupEntries(options: WritePlanOptions, unplannable: string[]): NamespaceEntry[] {
  if (!options.setup) return [];
  const preset =
    options.workload.file === undefined &&
    options.workload.tags === undefined &&
    isPresetName(options.workload.name);
  const source: WriteSource = preset
    ? 'loader'
    : options.workload.tags !== undefined
      ? 'perf-pre'
      : 'setup';
  const consent: Consent = preset ? '--drop' : '--allow-setup-writes';
  const lists: [string, SetupStep[]][] = [
    ['', options.setup.steps],
    ...Object.entries(options.setup.byClients ?? {}).map(
      ([clients, steps]): [string, SetupStep[]] => [` for ${clients} clients`, steps],
    ),
  ];
  const seen = new Map<string, NamespaceEntry>();
  for (const [which, steps] of lists)
    steps.forEach((step, i) => {
      const at = `set-up step ${i + 1}${which}`;
      for (const { how, ...w } of stepWrites(step, at, unplannable)) {
        const key = `${w.action} ${w.db}.${w.coll ?? ''}`;
        if (!seen.has(key))
          seen.set(key, { kind: 'namespace', ...w, source, consent, detail: `${at} (${how})` });
      }
    });
  return [...seen.values()];
}

function stepWrites(
  step: SetupStep,
  at: string,
  unplannable: string[],
): { db: string; coll?: string; action: NamespaceAction; how: string }[] {
  if (step.kind !== 'command')
    return [{ db: step.ns.db, coll: step.ns.coll, action: 'fill', how: 'insert' }];
  const writes: CommandWrites = classifyCommand(step.command, step.db);
  if ('refused' in writes) {
    unplannable.push(`${at}: ${writes.refused}`);
    return [];
  }
  if (writes.reads) return [];
  return writes.writes.map((w) => ({
    db: w.db,
    ...(w.coll !== undefined ? { coll: w.coll } : {}),
    action: SETUP_ACTIONS.get(w.how) ?? 'write',
    how: w.how,
  }));
}

/** What a set-up command does to what it names; any other command writes. */
const SETUP_ACTIONS = new Map<string, NamespaceAction>([
  ['drop', 'drop'],
  ['dropDatabase', 'drop'],
  ['createIndexes', 'index'],
  ['insert', 'fill'],
  ['create', 'create'],
]);

/** Where a load or a set-up's drop is marked as mongo-bench's: `<db>.mongo_bench_owner` of each database. */
function markerEntries(entries: WriteEntry[]): NamespaceEntry[] {
  const marked = entries.filter(
    (e): e is NamespaceEntry & { coll: string } =>
      e.kind === 'namespace' &&
      e.coll !== undefined &&
      (e.action === 'recreate' ||
        e.action === 'empty' ||
        (e.action === 'drop' && e.source !== 'workload')),
  );
  const byDb = new Map<string, string[]>();
  for (const e of marked) byDb.set(e.db, [...(byDb.get(e.db) ?? []), e.coll]);
  return [...byDb].map(([db, colls]) => ({
    kind: 'namespace',
    db,
    coll: OWNER_COLLECTION,
    action: 'write',
    source: 'marker',
    detail: `records ${colls.join(', ')} as mongo-bench's`,
    consent: null,
  }));
}

function storeEntries(store: string | undefined): NamespaceEntry[] {
  if (store === undefined || !isMongoStoreSpec(store)) return [];
  const { db, collection } = parseStoreUri(store);
  return [
    {
      kind: 'namespace',
      db,
      coll: collection,
      action: 'write',
      source: 'store',
      detail: `each result, at ${redactUri(store)}`,
      consent: null,
      on: 'store',
    },
  ];
}

function controlEntries(control: WritePlanExtras['control']): NamespaceEntry[] {
  if (!control) return [];
  return [
    {
      kind: 'namespace',
      db: control.db,
      action: 'write',
      source: 'control-db',
      detail: control.uri
        ? `agents, runs, steps, measurements at ${redactUri(control.uri)}`
        : 'agents, runs, steps, measurements on the target',
      consent: null,
      ...(control.uri ? { on: 'control' as const } : {}),
    },
  ];
}

/** What is set back at the end of a run (also after an interrupt): lib/server/cluster-state.ts. */
export const RESTORES = {
  balancer:
    "the balancer's mode as found before the run (balancerStatus): started again if it was running, stopped again if it was off",
  chunkSize:
    'the chunk size as found: config.settings chunksize back to its old value, or removed; from 6.0 the own size of a collection sharded before the run',
} as const;

/** --setup on an existing cluster: the data distribution it changes, each change listed. */
function clusterEntries(sharding: ShardingSpec | undefined): ServerEntry[] {
  if (!sharding) return [];
  const entry = (
    change: ServerEntry['change'],
    detail: string,
    extra: Pick<ServerEntry, 'restore' | 'ns'> = {},
  ): ServerEntry => ({
    kind: 'server',
    change,
    target: 'cluster',
    detail,
    consent: '--setup',
    ...extra,
  });
  return [
    entry('enable-sharding', `enableSharding ${sharding.db} (kept)`),
    entry(
      'shard-collection',
      `shardCollection ${sharding.ns} key ${JSON.stringify(sharding.key)} (kept)`,
    ),
    ...(sharding.chunkSizeMb !== undefined
      ? [
          entry(
            'chunk-size',
            `chunk size ${sharding.chunkSizeMb} MB (from 6.0 ${sharding.ns}'s own, configureCollectionBalancing; before, the cluster's, config.settings chunksize)`,
            { restore: RESTORES.chunkSize, ns: sharding.ns },
          ),
        ]
      : []),
    ...(sharding.presplit
      ? [
          entry(
            'split',
            `split ${sharding.ns} at [${sharding.presplit.min}, ${sharding.presplit.max}) (kept)`,
          ),
          entry('move-chunk', `move each chunk of ${sharding.ns} to its shard (kept)`),
        ]
      : []),
    // A pre-split stops the balancer for its splits and moves (balancerStop before the first split).
    ...(sharding.stopBalancer
      ? [entry('balancer', 'stop the balancer for the run', { restore: RESTORES.balancer })]
      : sharding.presplit
        ? [
            entry(
              'balancer',
              'stop the balancer for the splits and moves, then start it again if it was running',
              { restore: RESTORES.balancer },
            ),
          ]
        : []),
  ];
}

/** A scenario's background events: the cluster or server changes they make, and the index a createIndex builds. */
function eventEntries(options: WritePlanOptions): (ServerEntry | NamespaceEntry)[] {
  const entries: (ServerEntry | NamespaceEntry)[] = [];
  for (const scenario of options.scenarios ?? [])
    for (const event of scenario.events)
      entries.push(
        eventEntry(
          event,
          `scenario ${scenario.name}'s ${event.action} at ${scenario.start + event.at} s`,
          options.toxiproxy,
        ),
      );
  for (const event of options.events ?? [])
    entries.push(
      eventEntry(
        event,
        `the run's ${event.action} at ${event.at} s into every step's measured window, every trial`,
        options.toxiproxy,
      ),
    );
  return entries;
}

/** One event's entry: what it changes, where, and how it is undone (consent: the configured event itself). */
function eventEntry(
  event: BackgroundEventSpec,
  when: string,
  toxiproxy: string | undefined,
): ServerEntry | NamespaceEntry {
  const server = (
    change: ServerEntry['change'],
    target: string,
    detail: string,
    restore?: string,
  ): ServerEntry => ({
    kind: 'server',
    change,
    target,
    detail: `${when} (${detail})`,
    consent: 'event',
    ...(restore ? { restore } : {}),
  });
  const lasting = (f: number | undefined) =>
    f !== undefined ? `after ${f} s` : "at the step's (or the scenarios') end";
  switch (event.action) {
    case 'createIndex': {
      const [db, coll] = splitNamespace(event.ns);
      return {
        kind: 'namespace',
        db,
        coll,
        action: 'index',
        source: 'event',
        detail: `${when} (${event.name}: ${JSON.stringify(event.keys)})`,
        consent: 'event',
      };
    }
    case 'stopBalancer':
    case 'startBalancer':
      return server(
        'balancer',
        'cluster',
        event.action === 'stopBalancer' ? 'balancerStop' : 'balancerStart',
        RESTORES.balancer,
      );
    case 'stepDown':
      return server(
        'step-down',
        'the primary',
        `replSetStepDown ${event.seconds} s: another member is elected; not undone, the stepped-down member may be elected again after ${event.seconds} s`,
      );
    case 'freeze':
      return server(
        'freeze',
        event.host ?? 'the server the run connects to',
        `replSetFreeze ${event.seconds} s: the member seeks no election meanwhile`,
        `replSetFreeze: 0 when the step or the run ends before the ${event.seconds} s`,
      );
    case 'proxyDown':
      return server(
        'network-fault',
        `Toxiproxy proxy ${event.proxy} at ${toxiproxy ?? '(no --toxiproxy)'}`,
        'the proxy disabled: its connections closed, new ones refused',
        `the proxy enabled again ${lasting(event.for)}, and when the run is interrupted or fails`,
      );
    case 'toxic':
      return server(
        'network-fault',
        `Toxiproxy proxy ${event.proxy} at ${toxiproxy ?? '(no --toxiproxy)'}`,
        `a ${event.toxic.type} toxic ${JSON.stringify(event.toxic.attributes)} on its ${event.toxic.stream} stream, named mongo-bench-<run id>-<n>`,
        `the toxic removed ${lasting(event.for)}, and when the run is interrupted or fails`,
      );
    case 'kill':
    case 'terminate':
      return server(
        'signal',
        `${describeMember(event.member)} (a launched process)`,
        event.action === 'kill'
          ? 'SIGKILL: the process ends at once, no clean shutdown'
          : 'SIGTERM: a clean shutdown (a primary steps down first)',
        `started again with the same arguments ${lasting(event.for)}, and when the run is interrupted or fails`,
      );
    case 'restart':
      return server(
        'signal',
        `${describeMember(event.member)} (a launched process)`,
        'started again with the same arguments (SIGTERM first if it runs)',
      );
  }
}

function splitNamespace(ns: string): [string, string] {
  const dot = ns.indexOf('.');
  return [ns.slice(0, dot), ns.slice(dot + 1)];
}
