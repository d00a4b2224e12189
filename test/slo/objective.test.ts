import { parseObjective, parseObjectives } from '../../lib/slo/objective';
import { addBestVerdicts, checkStepObjectives, emptySloSection } from '../../lib/slo/check';
import { sloOutcome } from '../../lib/slo/outcome';
import { resolveBenchmarkOptions } from '../../lib/run/options/run-options';
import { resolveRunPlan } from '../../lib/run/options/run-plan';
import { usageMessage } from '../support/cli';
import { parseResult } from '../../lib/result';
import { syntheticResults } from '../history/synthetic';
import { renderDryRun } from '../../lib/run/options/dry-run';

describe('objectives (--slo): parsing', () => {
  test.each([
    [
      'reads.p99<5ms',
      {
        kind: 'latency',
        scope: 'reads',
        statistic: 'p99',
        comparison: '<',
        limit: 5000,
        unit: 'µs',
      },
    ],
    [
      'writes.p50 <= 800us',
      {
        kind: 'latency',
        scope: 'writes',
        statistic: 'p50',
        comparison: '<=',
        limit: 800,
        unit: 'µs',
      },
    ],
    ['reads.max<1.5s', { kind: 'latency', scope: 'reads', statistic: 'max', limit: 1_500_000 }],
    ['errors<0.1%', { kind: 'errors', comparison: '<', limit: 0.1, unit: '%' }],
    ['errors<5/s', { kind: 'errors', limit: 5, unit: 'errors/s' }],
    ['errors==0', { kind: 'errors', comparison: '==', limit: 0, unit: 'errors' }],
    [
      'total>2000/s',
      { kind: 'throughput', scope: 'total', comparison: '>', limit: 2000, unit: 'ops/s' },
    ],
    ['writes>=100', { kind: 'throughput', scope: 'writes', comparison: '>=', limit: 100 }],
  ])('%s', (text, expected) => {
    expect(parseObjective(text)).toMatchObject(expected);
  });

  test.each([
    ['reads.p99<5', 'option --slo: "reads.p99<5": a latency needs a unit: us, ms or s'],
    ['raeds.p99<5ms', 'unknown metric "raeds.p99" (did you mean "reads.p99"?)'],
    ['latency<5ms', 'unknown metric "latency"'],
    ['total>2000ms', 'throughput is in operations per second: write total>2000/s'],
    ['errors<0.1x', 'errors are given in % of operations'],
    ['errors<150%', 'a percentage is at most 100'],
    ['reads.p99 is small', 'expected METRIC[@CLIENTS|@best] OP VALUE[UNIT]'],
    ['total=>5/s', 'expected METRIC[@CLIENTS|@best] OP VALUE[UNIT]'],
    ['total@0>5/s', 'after @ give a client count or best (e.g. total@8 or total@best), got "@0"'],
    ['total@most>5/s', 'got "@most"'],
  ])('refuses %s, naming it', (text, message) => {
    const got = usageMessage(() => parseObjective(text));
    expect(got).toContain(`"${text}"`);
    expect(got).toContain(message);
  });

  test('a config file may give one objective or a list; errors name the key and the entry', () => {
    expect(parseObjectives('total>1/s').map((o) => o.expression)).toEqual(['total>1/s']);
    expect(
      usageMessage(() => parseObjectives(['total>1/s', 'nope<1'], 'config run.yaml slo')),
    ).toContain('config run.yaml slo[1]: "nope<1"');
  });

  test('run options: --slo is parsed before anything starts; --slo-abort needs an objective', () => {
    expect(
      resolveBenchmarkOptions({ slo: ['reads.p99<5ms'], sloAbort: true }).slo?.[0],
    ).toMatchObject({ limit: 5000 });
    expect(usageMessage(() => resolveBenchmarkOptions({ slo: ['reads.p99<<5ms'] }))).toContain(
      'option --slo: "reads.p99<<5ms"',
    );
    expect(usageMessage(() => resolveBenchmarkOptions({ sloAbort: true }))).toContain(
      'option --slo-abort: needs at least one objective',
    );
    const plan = resolveRunPlan(
      { uri: 'mongodb://127.0.0.1:1', slo: ['errors<1%'], store: 'results/' },
      { env: {} },
    );
    expect(plan.benchmark.slo?.map((o) => o.expression)).toEqual(['errors<1%']);
    expect(plan.store).toBe('results/');
    expect(
      resolveRunPlan(
        { uri: 'mongodb://127.0.0.1:1' },
        { env: { MONGO_BENCH_STORE: '/srv/results' } },
      ).store,
    ).toBe('/srv/results');
    expect(
      resolveRunPlan(
        { uri: 'mongodb://127.0.0.1:1', store: 'flag/' },
        { env: { MONGO_BENCH_STORE: '/srv/results' } },
      ).store,
    ).toBe('flag/');
  });

  test('the dry run states the objectives and the store, its password masked', () => {
    const text = renderDryRun(
      resolveRunPlan(
        {
          uri: 'mongodb://127.0.0.1:1',
          slo: ['reads.p99<5ms', 'errors<0.1%'],
          sloAbort: true,
          store: 'mongodb://ann:pw-1234@perf-db/perf',
        },
        { env: {} },
      ),
    );
    expect(text).toContain(
      'objectives, checked on every step (exit 99 when one fails; --slo-abort stops the sweep there): reads.p99<5ms, errors<0.1%',
    );
    expect(text).toContain('Results store: mongodb://ann:****@perf-db/perf');
    expect(text).not.toContain('pw-1234');
  });
});

describe('objectives: verdicts', () => {
  const [result] = syntheticResults({
    runs: 1,
    level: 1000,
    noise: 0,
    seed: 1,
    label: 'x',
    clients: [1],
  });
  const step = result.steps[0];

  test('each objective against the step: actual value and pass or fail', () => {
    const verdicts = checkStepObjectives(
      parseObjectives([
        `reads.p99<${step.latencyMicros.reads.p99 + 1}us`,
        `reads.p99<${step.latencyMicros.reads.p99}us`,
        'total>999/s',
        'total>1001/s',
        'errors<0.1%',
      ]),
      step,
    );
    expect(verdicts.map((v) => [v.objective, v.pass])).toEqual([
      [`reads.p99<${step.latencyMicros.reads.p99 + 1}us`, true],
      [`reads.p99<${step.latencyMicros.reads.p99}us`, false],
      ['total>999/s', true],
      ['total>1001/s', false],
      ['errors<0.1%', true],
    ]);
    expect(verdicts[2]).toMatchObject({ clients: 1, actual: 1000, unit: 'ops/s' });
  });

  test('errors in % of all operations; a latency with no operations is not applicable', () => {
    const failing = {
      ...step,
      ops: { reads: 990, writes: 0, errors: 10 },
      latencyMicros: { ...step.latencyMicros, writes: { ...step.latencyMicros.writes, count: 0 } },
    };
    const [errors, writes] = checkStepObjectives(
      parseObjectives(['errors<0.5%', 'writes.p99<1ms']),
      failing,
    );
    expect(errors).toMatchObject({ actual: 1, pass: false });
    expect(writes).toMatchObject({ actual: null, pass: null });
  });

  test('exit 99 when one failed and the run went well; a failed run keeps its code', () => {
    const judged = {
      ...result,
      slo: {
        objectives: ['total>1/s'],
        abortOnFailure: false,
        verdicts: [{ clients: 1, objective: 'total>1/s', actual: 0.5, unit: 'ops/s', pass: false }],
        pass: false,
      },
    };
    expect(parseResult(JSON.stringify(judged), 'judged').slo?.pass).toBe(false);
    expect(sloOutcome(judged, 0)).toMatchObject({ exitCode: 99 });
    expect(sloOutcome(judged, 0).message).toContain('total>1/s at 1 client: 0.5 ops/s, FAIL');
    expect(sloOutcome(judged, 1).exitCode).toBe(1);
    expect(sloOutcome({ ...judged, slo: { ...judged.slo, aborted: true } }, 130).exitCode).toBe(99);
    expect(sloOutcome(result, 0)).toEqual({ exitCode: 0 });
  });
});

describe('objectives scoped to a client count or to the best step', () => {
  const [result] = syntheticResults({
    runs: 1,
    level: 1000,
    noise: 0,
    seed: 1,
    label: 'x',
    clients: [1, 8],
  });
  const steps = result.steps.map((s, i) => ({
    ...s,
    opsPerSec: { ...s.opsPerSec, total: [1000, 4500][i] },
  }));

  test('total@8 is judged at 8 clients only; unscoped at every step', () => {
    const objectives = parseObjectives(['total@8>4000/s', 'total>500/s']);
    expect(objectives[0]).toMatchObject({ at: 8, scope: 'total', limit: 4000 });
    expect(checkStepObjectives(objectives, steps[0]).map((v) => v.objective)).toEqual([
      'total>500/s',
    ]);
    expect(checkStepObjectives(objectives, steps[1]).map((v) => [v.objective, v.pass])).toEqual([
      ['total@8>4000/s', true],
      ['total>500/s', true],
    ]);
  });

  test('total@best is judged once, on the step of the highest total ops/s', () => {
    const objectives = parseObjectives(['total@best>4000/s', 'reads.p99@best<1us']);
    expect(checkStepObjectives(objectives, steps[1])).toEqual([]);
    const section = emptySloSection(objectives, false);
    const failed = addBestVerdicts(section, objectives, steps);
    expect(section.verdicts.map((v) => [v.objective, v.clients, v.pass])).toEqual([
      ['total@best>4000/s', 8, true],
      ['reads.p99@best<1us', 8, false],
    ]);
    expect(failed?.objective).toBe('reads.p99@best<1us');
    expect(section.pass).toBe(false);
  });

  test('a client count the run does not measure is bad input, named before anything starts', () => {
    expect(
      usageMessage(() => resolveBenchmarkOptions({ clients: [1, 4], slo: ['total@8>4000/s'] })),
    ).toBe(
      'option --slo: "total@8>4000/s": the run measures no step of 8 clients (its client counts: 1, 4)',
    );
    expect(resolveBenchmarkOptions({ clients: [1, 8], slo: ['total@8>4000/s'] }).slo?.[0].at).toBe(
      8,
    );
  });
});
