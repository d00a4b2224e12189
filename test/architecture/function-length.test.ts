/**
 * No function in lib/ runs past 200 lines (constructors, accessors, methods and arrow functions included; a
 * closure counts in the function that holds it), and the run's four orchestrators read as a sequence of
 * named phases: each under 120 lines. A long function is a chapter that hides its state in closures.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { functionLengths } from './function-lengths';

const root = join(__dirname, '..', '..');
const libFiles = execFileSync(
  'git',
  ['ls-files', '--cached', '--others', '--exclude-standard', 'lib'],
  { cwd: root, encoding: 'utf8' },
)
  .split('\n')
  .filter((file) => file.endsWith('.ts'));

const MAX_LINES = 200;
/** The run told as phases: each of these only calls them in order. */
const PHASED = [
  ['lib/workload/engine/engine.ts', 'runStep'],
  ['lib/run/benchmark.ts', 'runBenchmark'],
  ['lib/run/execute.ts', 'executeRun'],
  ['lib/matrix/runner.ts', 'runOnTarget'],
] as const;
const PHASED_MAX_LINES = 120;

describe('the length of functions in lib/', () => {
  const lengths = functionLengths(root, libFiles);

  it('reads every function, nested ones included', () => {
    expect(lengths.length).toBeGreaterThan(1000);
    expect(lengths.some((f) => f.name === 'constructor')).toBe(true);
  });

  it(`has no function over ${MAX_LINES} lines`, () => {
    const long = lengths
      .filter((f) => f.lines > MAX_LINES)
      .map((f) => `${f.where} ${f.name}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });

  it.each(PHASED)(`%s %s is under ${PHASED_MAX_LINES} lines`, (file, name) => {
    const found = lengths.filter((f) => f.where.startsWith(`${file}:`) && f.name === name);
    expect(found).toHaveLength(1);
    expect(found[0].lines).toBeLessThan(PHASED_MAX_LINES);
  });

  it('counts a function from its first line to its last, closures included', () => {
    const own = functionLengths(root, ['test/architecture/function-lengths.ts']);
    const outer = own.find((f) => f.name === 'functionLengths')!;
    const inner = own.find((f) => f.name === 'visit')!;
    expect(outer.lines).toBeGreaterThan(inner.lines);
    expect(Number(inner.where.split(':')[1])).toBeGreaterThan(Number(outer.where.split(':')[1]));
  });
});
