/**
 * checkStep on hand-made windows: a sharded cluster where no mongos was sampled sums its shards'
 * primaries (secondaries left out), says which processes it counted and that a query sent to several
 * shards counts once on each; a sampled mongos is counted alone. The summary shows both.
 */
import { StepResult, ServerProcessInfo, ServerWindow } from '../../lib/result';
import { serverSummaryLines } from '../../lib/report/server-summary';
import { renderSummaryMarkdown } from '../../lib/report/summary-md';
import { checkStep, SHARD_PRIMARIES_NOTE } from '../../lib/server-stats/consistency';
import { REPLICA_SET, withServerSection } from '../support/server-results';
import { fixture } from '../report/helpers';
import { resultStep } from '../support/results';

const SHARDS: ServerProcessInfo[] = [
  { id: 'sh0-a:27018', kind: 'mongod', shard: 'shard0', set: 'sh0' },
  { id: 'sh0-b:27018', kind: 'mongod', shard: 'shard0', set: 'sh0' },
  { id: 'sh1-a:27018', kind: 'mongod', shard: 'shard1', set: 'sh1' },
];
const MONGOS: ServerProcessInfo = { id: 'mongos-a:27017', kind: 'mongos' };
const COUNTING = { countsCommands: false, batchInserts: false };

function step(reads: number, writes: number): StepResult {
  return resultStep({ clients: 4, ops: { reads, writes, errors: 0 } });
}

/** One window of the 4-client step; `counted` per process (query, update). */
function window(counted: Record<string, [number, number] | null>): ServerWindow {
  const roles: ServerWindow['roles'] = {
    'sh0-a:27018': 'primary',
    'sh0-b:27018': 'secondary',
    'sh1-a:27018': 'primary',
    'mongos-a:27017': 'mongos',
  };
  return {
    clients: 4,
    trial: 1,
    open: 1,
    close: 11,
    counted: Object.fromEntries(
      Object.entries(counted).map(([id, c]) => [
        id,
        c && { query: c[0], insert: 0, update: c[1], delete: 0 },
      ]),
    ),
    roles,
    samplerCommands: Object.fromEntries(Object.keys(counted).map((id) => [id, 11])),
  };
}

describe('the consistency check on a sharded cluster', () => {
  // Shard-key queries: each op reaches one shard. The secondary counts reads it served (none here) and
  // nothing of the replicated writes (those go to opcountersRepl).
  const targeted = {
    'sh0-a:27018': [2000, 300],
    'sh0-b:27018': [0, 0],
    'sh1-a:27018': [4000, 700],
  } as Record<string, [number, number]>;

  it("with no mongos sampled, sums the shards' primaries, names them, and says what that count means", () => {
    const check = checkStep(step(6000, 1000), [window(targeted)], SHARDS, COUNTING);
    expect(check).toEqual({
      clients: 4,
      clientOps: 7000,
      status: 'ok',
      serverOps: 7000,
      difference: 0,
      allowance: 140 + 22,
      counted: "the shards' primaries sh0-a:27018, sh1-a:27018: query+insert+update+delete",
      note: SHARD_PRIMARIES_NOTE,
    });
  });

  it('a query sent to both shards counts once on each: the gap says so beside the usual reasons', () => {
    // 1000 of the 6000 reads had no shard key: both primaries counted them.
    const broadcast = { ...targeted, 'sh0-a:27018': [3000, 300] as [number, number] };
    const check = checkStep(step(6000, 1000), [window(broadcast)], SHARDS, COUNTING);
    expect(check).toEqual(
      expect.objectContaining({ status: 'gap', serverOps: 8000, difference: 1000 }),
    );
    expect(check.note).toBe(
      `the servers counted more than the clients sent: something else is loading the server, or ops are being retried (${SHARD_PRIMARIES_NOTE})`,
    );
  });

  it('a sampled mongos is counted alone (its shards would count each op again); a mongos whose reading failed is not', () => {
    const withMongos = checkStep(
      step(6000, 1000),
      [window({ ...targeted, [MONGOS.id]: [6000, 1000] })],
      [MONGOS, ...SHARDS],
      COUNTING,
    );
    expect(withMongos).toEqual(
      expect.objectContaining({
        status: 'ok',
        serverOps: 7000,
        counted: 'mongos mongos-a:27017: query+insert+update+delete',
      }),
    );
    expect(withMongos.note).toBeUndefined();
    const failed = checkStep(
      step(6000, 1000),
      [window({ ...targeted, [MONGOS.id]: null })],
      [MONGOS, ...SHARDS],
      COUNTING,
    );
    expect(failed.counted).toMatch(/^the shards' primaries sh0-a:27018, sh1-a:27018:/);
  });

  it('summary.md names the counted processes in the table and notes the shard-primaries count once', () => {
    const result = withServerSection(fixture('compare-w0.json'), {
      label: 'rs',
      topology: 'sharded (2 shards)',
      processes: REPLICA_SET,
    });
    const check = checkStep(step(6000, 1000), [window(targeted)], SHARDS, COUNTING);
    result.server = {
      ...result.server!,
      processes: SHARDS,
      checks: [check, { ...check, clients: 8 }],
    };
    const md = serverSummaryLines(result, (t) =>
      t.rows.map((r) => `| ${r.join(' | ')} |`).join('\n'),
    ).join('\n');
    expect(md).toContain(
      "| 4 | 7,000 | 7,000 | 0 | ±162 | ok | the shards' primaries sh0-a:27018, sh1-a:27018: query+insert+update+delete |",
    );
    expect(md.split(SHARD_PRIMARIES_NOTE)).toHaveLength(2);
    expect(renderSummaryMarkdown([result], [])).toContain(`Note: ${SHARD_PRIMARIES_NOTE}.`);
  });
});

describe('ops in flight when the window opened (started in the warm-up)', () => {
  const primary = { 'sh0-a:27018': [6500, 1000] } as Record<string, [number, number]>;
  const processes = SHARDS.slice(0, 1);
  const warmed = (inFlightAtOpen: number) => ({ ...step(6000, 1000), inFlightAtOpen });

  it('the servers may count them in the window: up to that many more is no gap, and the check says how many', () => {
    // 500 more than the clients: beyond the allowance (140 + 11), within it and the 400 in flight.
    expect(checkStep(warmed(400), [window(primary)], processes, COUNTING)).toMatchObject({
      status: 'ok',
      difference: 500,
      allowance: 151,
      inFlightAtOpen: 400,
    });
    expect(checkStep(step(6000, 1000), [window(primary)], processes, COUNTING).status).toBe('gap');
  });

  it('more than that is still a gap, and they make no room for the servers counting fewer', () => {
    expect(checkStep(warmed(300), [window(primary)], processes, COUNTING).status).toBe('gap');
    const fewer = { 'sh0-a:27018': [5500, 1000] } as Record<string, [number, number]>;
    expect(checkStep(warmed(400), [window(fewer)], processes, COUNTING).status).toBe('gap');
  });
});
