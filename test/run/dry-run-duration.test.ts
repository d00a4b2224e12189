/**
 * --dry-run's expected duration says what it counts and what it cannot (issue 25, point 6): a run
 * that took 19.9 s had been announced as "15 s of sweep" with no word on the rest.
 */
import { join } from 'node:path';
import { renderDryRun } from '../../lib/run/options/dry-run';
import { resolveRunPlan } from '../../lib/run/options/run-plan';

const FAKE_BIN = join(__dirname, '..', 'support', 'fake-bin');

function durationLine(flags: Parameters<typeof resolveRunPlan>[0]): string {
  const line = renderDryRun(resolveRunPlan({ ...flags, dryRun: true }, { env: {} }))
    .split('\n')
    .find((l) => l.includes('expected duration'));
  if (!line) throw new Error('no expected duration line');
  return line.trim();
}

describe('run --dry-run: the expected duration', () => {
  it('counts the warm-up, and names connecting, loading and the report as not counted', () => {
    expect(
      durationLine({
        uri: 'mongodb://127.0.0.1:1',
        clients: [1, 2],
        seconds: 5,
        warmup: 2,
        docs: 500,
      }),
    ).toBe(
      'expected duration: 14s of sweep (2 client counts x 1 x 7 s), warm-up included; not counted: connecting, loading 500 documents, writing the report',
    );
  });

  it('says the load repeats before every step with --reset each-step, and that nothing is loaded with --no-load', () => {
    expect(
      durationLine({ uri: 'mongodb://127.0.0.1:1', clients: [1], seconds: 1, reset: 'each-step' }),
    ).toContain('loading 10000 documents (before every step)');
    expect(
      durationLine({ uri: 'mongodb://127.0.0.1:1', clients: [1], seconds: 1, load: false }),
    ).toMatch(/not counted: connecting, writing the report$/);
  });

  it('names starting the servers and the setup plan for a launched cluster', () => {
    expect(
      durationLine({
        topology: 'replset',
        replicas: 3,
        binDir: FAKE_BIN,
        clients: [1],
        seconds: 1,
      }),
    ).toMatch(
      /not counted: starting the servers, connecting, the setup plan, loading 10000 documents, writing the report$/,
    );
  });
});
