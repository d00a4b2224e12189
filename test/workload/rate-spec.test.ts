import {
  arrivalTimes,
  parseRateSpec,
  rateAt,
  rateDurationSeconds,
  resolveShareOfMax,
  ScheduledRate,
} from '../../lib/workload/language/rate-spec';

function perSecond(spec: ScheduledRate, seconds: number): number[] {
  const counts = new Array<number>(seconds).fill(0);
  for (const t of arrivalTimes(spec, seconds)) counts[Math.floor(t)]++;
  return counts;
}

describe('rate spec', () => {
  test('reads a constant, a share of the maximum and stages', () => {
    expect(parseRateSpec(500, 'option --rate')).toEqual({ kind: 'constant', opsPerSecond: 500 });
    expect(parseRateSpec('250', 'option --rate')).toEqual({ kind: 'constant', opsPerSecond: 250 });
    expect(parseRateSpec('80%', 'option --rate')).toEqual({ kind: 'shareOfMax', share: 0.8 });
    expect(
      parseRateSpec(
        [
          { rate: 100, for: '30s' },
          { rate: 2000, for: '2m' },
        ],
        'scenarios[0].rate',
      ),
    ).toEqual({
      kind: 'stages',
      startRate: 100,
      stages: [
        { rate: 100, seconds: 30 },
        { rate: 2000, seconds: 120 },
      ],
    });
  });

  test('names the option or config path in errors', () => {
    expect(() => parseRateSpec('fast', 'option --rate')).toThrow(
      /option --rate: expected a rate in ops\/s > 0, got "fast"/,
    );
    expect(() => parseRateSpec('150%', 'option --rate')).toThrow(
      /option --rate: .*\(0%, 100%\], got "150%"/,
    );
    expect(() => parseRateSpec([{ rate: 100, for: 'soon' }], 'scenarios[1].rate')).toThrow(
      /scenarios\[1\]\.rate\[0\]\.for: expected a duration/,
    );
    expect(() => parseRateSpec([{ rate: 100 }], 'scenarios[1].rate')).toThrow(
      /scenarios\[1\]\.rate\.stages\.0\.for/,
    );
    expect(() => parseRateSpec(0, 'option --rate')).toThrow(/> 0/);
  });

  test('a constant rate spaces arrivals evenly', () => {
    expect(perSecond({ kind: 'constant', opsPerSecond: 40 }, 3)).toEqual([40, 40, 40]);
  });

  test('a share of the maximum resolves to a constant', () => {
    expect(resolveShareOfMax({ kind: 'shareOfMax', share: 0.8 }, 1000)).toEqual({
      kind: 'constant',
      opsPerSecond: 800,
    });
  });

  test('stages hold, ramp linearly and jump, and their arrivals follow the rate second by second', () => {
    const spec = parseRateSpec(
      [
        { rate: 100, for: '2s' },
        { rate: 300, for: '2s' },
        { rate: 50, for: '0s' },
        { rate: 50, for: '1s' },
      ],
      'r',
    ) as ScheduledRate;
    expect(rateDurationSeconds(spec)).toBe(5);
    expect(rateAt(spec, 1)).toBe(100);
    expect(rateAt(spec, 3)).toBe(200);
    expect(rateAt(spec, 4.5)).toBe(50);
    // seconds 2-3 ramp 100->200 (150 ops), 3-4 ramp 200->300 (250 ops)
    expect(perSecond(spec, 5)).toEqual([100, 100, 150, 250, 50]);
  });
});
