/** One-way results (the matrix's rows) drawn together: only when they are the same import of different ways. */
import {
  combineWayResults,
  PresplitImportResult,
  whyNotCombinable,
} from '../../../lib/experiments/presplit-import';

function oneWay(
  way: 'ranged' | 'presplit' | 'hashed',
  docs = 100,
  complete = true,
): PresplitImportResult {
  return {
    schema: 'mongo-bench/presplit-import@1',
    tool: { name: 'mongo-bench', version: '0' },
    startedAt: `start-${way}`,
    finishedAt: `end-${way}`,
    complete,
    ...(complete ? {} : { incompleteReason: `way ${way} interrupted` }),
    target: {
      uri: 'mongodb://m/',
      serverVersion: '7.0.0',
      shards: [{ id: 's0', host: 's0/h:1' }],
      baseline: { balancerMode: 'full', chunkSizeMb: null },
    },
    settings: { ways: [way], docs } as PresplitImportResult['settings'],
    ways: [{ way } as PresplitImportResult['ways'][number]],
    warnings: [`warning of ${way}`],
  };
}

describe('combining one-way presplit-import results', () => {
  it('joins the ways in order, spanning their times, incomplete when one was', () => {
    const combined = combineWayResults([
      oneWay('ranged'),
      oneWay('presplit', 100, false),
      oneWay('hashed'),
    ]);
    expect(combined.ways.map((w) => w.way)).toEqual(['ranged', 'presplit', 'hashed']);
    expect(combined.settings.ways).toEqual(['ranged', 'presplit', 'hashed']);
    expect(combined).toMatchObject({
      startedAt: 'start-ranged',
      finishedAt: 'end-hashed',
      complete: false,
      incompleteReason: 'way presplit interrupted',
    });
    expect(combined.warnings).toEqual([
      'warning of ranged',
      'warning of presplit',
      'warning of hashed',
    ]);
  });

  it('refuses a repeated way, different settings, or a single result', () => {
    expect(whyNotCombinable([oneWay('ranged'), oneWay('ranged')])).toMatch(/more than once/);
    expect(whyNotCombinable([oneWay('ranged'), oneWay('hashed', 200)])).toBe(
      'the ways imported with different settings',
    );
    expect(whyNotCombinable([oneWay('ranged')])).toBe('fewer than two ways measured');
    expect(() => combineWayResults([oneWay('ranged'), oneWay('ranged')])).toThrow('cannot combine');
  });
});
