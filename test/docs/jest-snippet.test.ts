/**
 * The jest snippet a newcomer copies first (README.md, docs/api.md, examples/jest) must record its
 * baseline in under a minute by the options it shows, without weakening benchmarkWorkload's defaults
 * (its trials are the test's power). Its measured time, from those options and the defaults: client
 * counts x trials x (warm-up + seconds); a warm-up of 'auto' costs up to warmupMax per trial. Measured
 * on the CRUD test double on a shared 2-core machine: 41 s with `warmup: 2`, 146 s with the defaults.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKLOAD_TEST_DEFAULTS } from '../../lib/api/workload-test';

const root = join(__dirname, '..', '..');

/** The options object of the file's first benchmarkWorkload({ ... }) call, as text. */
function benchmarkCall(file: string): string {
  const text = readFileSync(join(root, file), 'utf8');
  const start = text.indexOf('benchmarkWorkload({');
  expect(start).toBeGreaterThan(-1);
  return text.slice(start, text.indexOf('\n  });', start));
}

/** The longest the measured part can take, in seconds, by the options the call shows. */
function worstSeconds(call: string): number {
  const number = (key: string, fallback: number) =>
    Number(new RegExp(`\\b${key}: (\\d+)`).exec(call)?.[1] ?? fallback);
  const clients = /\bclients: \[([^\]]*)\]/.exec(call)?.[1].split(',').length;
  const warmup = /\bwarmup: (\d+)/.exec(call)?.[1];
  const perTrial =
    number('seconds', WORKLOAD_TEST_DEFAULTS.seconds) +
    (warmup !== undefined ? Number(warmup) : number('warmupMax', WORKLOAD_TEST_DEFAULTS.warmupMax));
  return (
    (clients ?? WORKLOAD_TEST_DEFAULTS.clients.length) *
    number('trials', WORKLOAD_TEST_DEFAULTS.trials) *
    perTrial
  );
}

describe.each(['README.md', 'docs/api.md', 'examples/jest/test/orders.perf.test.ts'])(
  'the jest snippet of %s',
  (file) => {
    it('keeps the default trials and measures for at most 45 s (leaving the load and connect under a minute)', () => {
      const call = benchmarkCall(file);
      expect(call).not.toMatch(/\btrials:/);
      expect(worstSeconds(call)).toBeLessThanOrEqual(45);
    });
  },
);
