import { UsageError } from '../../lib/config/errors';
import { parsePresplit, presplit, tidy } from '../../lib/topology';

describe('split-point math', () => {
  it("cuts the seeds' case exactly: g in [0, 64) over 5 shards", () => {
    const plan = presplit({ min: 0, max: 64 }, 5);
    expect(plan.splitPoints).toEqual([12.8, 25.6, 38.4, 51.2]);
    expect(plan.chunks.map((c) => c.findPoint)).toEqual([6.4, 19.2, 32, 44.8, 57.6]);
    expect(plan.chunks.map((c) => [c.min, c.max, c.shardIndex])).toEqual([
      ['MinKey', 12.8, 0],
      [12.8, 25.6, 1],
      [25.6, 38.4, 2],
      [38.4, 51.2, 3],
      [51.2, 'MaxKey', 4],
    ]);
    expect(plan.warnings).toEqual([]);
  });

  it('handles integer ranges with fractional and whole boundaries', () => {
    expect(presplit({ min: 0, max: 100 }, 4).splitPoints).toEqual([25, 50, 75]);
    expect(presplit({ min: 0, max: 10 }, 4).splitPoints).toEqual([2.5, 5, 7.5]);
    expect(presplit({ min: -10, max: 10 }, 2).chunks.map((c) => c.findPoint)).toEqual([-5, 5]);
  });

  it('handles fractional ranges without floating-point noise', () => {
    const plan = presplit({ min: 0.1, max: 0.7 }, 3);
    expect(plan.splitPoints).toEqual([0.3, 0.5]);
    expect(plan.chunks.map((c) => c.findPoint)).toEqual([0.2, 0.4, 0.6]);
    expect(presplit({ min: 0.5, max: 1.5 }, 4).chunks.map((c) => c.findPoint)).toEqual([
      0.625, 0.875, 1.125, 1.375,
    ]);
    expect(tidy(0.1 * 3)).toBe(0.3);
  });

  it('plans nothing to split or move for one shard, and says so', () => {
    const plan = presplit({ min: 0, max: 64 }, 1);
    expect(plan.splitPoints).toEqual([]);
    expect(plan.chunks).toEqual([{ shardIndex: 0, findPoint: 32, min: 'MinKey', max: 'MaxKey' }]);
    expect(plan.warnings.join()).toMatch(/one shard there is nothing to distribute/);
  });

  it('warns when there are more shards than integer values in the range', () => {
    const plan = presplit({ min: 0, max: 3 }, 5);
    expect(plan.splitPoints).toEqual([0.6, 1.2, 1.8, 2.4]);
    expect(plan.warnings.join()).toMatch(/\[0, 3\) holds only 3 integer value\(s\) for 5 shards/);
    // Fractional bounds say nothing about integers: no warning.
    expect(presplit({ min: 0, max: 2.5 }, 5).warnings).toEqual([]);
  });

  it('rejects min >= max with an error naming --presplit', () => {
    expect(() => presplit({ min: 64, max: 0 }, 5)).toThrow(
      new UsageError('option --presplit: MIN must be less than MAX, got 64:0'),
    );
    expect(() => presplit({ min: 5, max: 5 }, 2)).toThrow(UsageError);
    expect(() => parsePresplit('64:0')).toThrow(
      'option --presplit: MIN must be less than MAX, got 64:0',
    );
  });

  it('rejects a range that is not numeric (the key must be numeric to split by range)', () => {
    for (const bad of ['a:z', '0:', ':64', '0-64', '0:64:128', 'x']) {
      expect(() => parsePresplit(bad)).toThrow(
        /^option --presplit: expected MIN:MAX with numeric bounds.*needs a numeric shard key/,
      );
    }
    expect(parsePresplit('-1.5:2e3')).toEqual({ min: -1.5, max: 2000 });
  });

  it('rejects a range too narrow for double precision', () => {
    expect(() => presplit({ min: 1e16, max: 1e16 + 2 }, 5)).toThrow(
      /too narrow to cut into 5 chunks/,
    );
  });
});
