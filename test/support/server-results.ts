/**
 * Result documents with a made-up `server` section, for report tests that need several results with
 * server data (two real runs would cost seconds each). The section follows a fixture's own clients'
 * figures second by second, on the sampler's clock as a run lays it (warm-up seconds sampled but
 * outside every window), and its checks come from consistency.ts. The result is marked a test
 * double: every chart and summary then says its numbers are not MongoDB numbers.
 */
import {
  ResultDocument,
  ServerPoint,
  ServerProcessInfo,
  ServerSection,
  ServerWindow,
} from '../../lib/result';
import { checkStep } from '../../lib/server-stats/consistency';

export interface FakeProcess extends ServerProcessInfo {
  role: NonNullable<ServerPoint['role']>;
  /** The part of the clients' ops this process counts in opcounters: a mongos 1, a shard's primary its share, a secondary 0. */
  opsShare: number;
  /** mongod only: WiredTiger dirty cache, a share (0..1) of its maximum; in use is 10 times that. */
  dirty?: number;
  /** Queued readers each second. */
  queued?: number;
  /** On a primary: each secondary's lag, in seconds, during the n-th step (0-based). */
  lag?: (step: number) => Record<string, number>;
}

export interface FakeServerOptions {
  label: string;
  topology: string;
  processes: FakeProcess[];
  /** Ops the servers count beyond the clients' (another application), as a share of the clients'. */
  extraLoad?: number;
}

function point(
  p: FakeProcess,
  t: number,
  step: number,
  reads: number,
  writes: number,
  extraLoad: number,
): ServerPoint {
  const share = p.opsShare * (1 + extraLoad);
  const out: ServerPoint = {
    t,
    seconds: 1,
    role: p.role,
    opsPerSec: {
      query: Math.round(reads * share),
      insert: 0,
      update: Math.round(writes * share),
      delete: 0,
      getmore: 0,
      command: 1,
    },
    connections: 3 + step,
    queuedReaders: p.queued ?? 0,
    queuedWriters: 0,
  };
  // A mongos has no storage engine: its points carry no cache or ticket fields (absent, not 0).
  if (p.kind === 'mongod')
    Object.assign(out, {
      readTicketsOut: 1,
      writeTicketsOut: 0,
      cacheUsedShare: (p.dirty ?? 0) * 10,
      cacheDirtyShare: p.dirty ?? 0,
    });
  const lag = p.lag?.(step);
  if (lag) out.lagSeconds = lag;
  return out;
}

/** A copy of `fixture` with a server section for the given deployment, relabelled and marked a test double. */
export function withServerSection(
  fixture: ResultDocument,
  options: FakeServerOptions,
): ResultDocument {
  const warmup =
    (fixture.config.sweep as { warmupSeconds?: number } | undefined)?.warmupSeconds ?? 1;
  const extraLoad = options.extraLoad ?? 0;
  const section: ServerSection = {
    intervalMs: 1000,
    startedAt: fixture.startedAt,
    processes: options.processes.map(({ id, kind, shard, set }) => ({
      id,
      kind,
      ...(shard ? { shard } : {}),
      ...(set ? { set } : {}),
    })),
    notes: [],
    series: Object.fromEntries(options.processes.map((p) => [p.id, []])),
    windows: [],
    checks: [],
  };
  let clock = 0;
  fixture.steps.forEach((step, index) => {
    const samples = [...step.perSecond].sort((a, b) => a.t - b.t);
    const tick = (reads: number, writes: number) => {
      clock += 1;
      for (const p of options.processes)
        section.series[p.id].push(point(p, clock, index, reads, writes, extraLoad));
    };
    for (let s = 0; s < warmup; s++) tick(samples[0].reads, samples[0].writes);
    const window: ServerWindow = {
      clients: step.clients,
      trial: 1,
      open: clock,
      close: 0,
      counted: {},
      roles: {},
      samplerCommands: {},
    };
    for (const sample of samples) tick(sample.reads, sample.writes);
    window.close = clock;
    for (const p of options.processes) {
      const inWindow = section.series[p.id].filter((q) => q.t > window.open && q.t <= window.close);
      const sum = (key: 'query' | 'update' | 'command') =>
        inWindow.reduce((n, q) => n + (q.opsPerSec?.[key] ?? 0), 0);
      window.counted[p.id] = {
        query: sum('query'),
        insert: 0,
        update: sum('update'),
        delete: 0,
        getmore: 0,
        command: sum('command'),
      };
      window.roles[p.id] = p.role;
      window.samplerCommands[p.id] = inWindow.length;
    }
    section.windows.push(window);
  });
  section.checks = fixture.steps.map((step) =>
    checkStep(step, section.windows, section.processes, {
      countsCommands: false,
      batchInserts: false,
    }),
  );
  return {
    ...fixture,
    label: options.label,
    target: { ...fixture.target, topology: options.topology, testDouble: true },
    server: section,
  };
}

/** A three-member replica set (no mongos): the primary counts every op, the secondaries lag more each step. */
export const REPLICA_SET: FakeProcess[] = [
  {
    id: 'rs0-a:27017',
    kind: 'mongod',
    set: 'rs0',
    role: 'primary',
    opsShare: 1,
    dirty: 0.02,
    queued: 1,
    lag: (step) => ({ 'rs0-b:27017': step / 10, 'rs0-c:27017': step / 5 }),
  },
  { id: 'rs0-b:27017', kind: 'mongod', set: 'rs0', role: 'secondary', opsShare: 0, dirty: 0.01 },
  { id: 'rs0-c:27017', kind: 'mongod', set: 'rs0', role: 'secondary', opsShare: 0, dirty: 0.01 },
];

/** Two shards of two members behind one mongos; shard1 holds 3/4 of the data, and its secondary lags most. */
export const SHARDED: FakeProcess[] = [
  { id: 'mongos-a:27017', kind: 'mongos', role: 'mongos', opsShare: 1, queued: 0 },
  {
    id: 'sh0-a:27018',
    kind: 'mongod',
    shard: 'shard0',
    set: 'sh0',
    role: 'primary',
    opsShare: 0.25,
    dirty: 0.03,
    queued: 1,
    lag: () => ({ 'sh0-b:27018': 0.5 }),
  },
  {
    id: 'sh0-b:27018',
    kind: 'mongod',
    shard: 'shard0',
    set: 'sh0',
    role: 'secondary',
    opsShare: 0,
    dirty: 0.01,
  },
  {
    id: 'sh1-a:27018',
    kind: 'mongod',
    shard: 'shard1',
    set: 'sh1',
    role: 'primary',
    opsShare: 0.75,
    dirty: 0.05,
    queued: 2,
    lag: (step) => ({ 'sh1-b:27018': 1 + step }),
  },
  {
    id: 'sh1-b:27018',
    kind: 'mongod',
    shard: 'shard1',
    set: 'sh1',
    role: 'secondary',
    opsShare: 0,
    dirty: 0.01,
  },
];
