/**
 * One declaration per option: a table row gives the flag, the config key, the help with its default,
 * the schema and the parser; errors carry the option as data and are named for where the value came
 * from (a flag, a config file's line, an API key).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { z } from 'zod';
import { addOptions, option, tableDefaults, tableShape } from '../../lib/config/option-table';
import { EXIT, EXIT_CODES, exitCodesHelp, flagNamer, UsageError } from '../../lib/config/errors';
import { apiNamer } from '../../lib/config/error-place';
import { intArg, kebab, parseOptions } from '../../lib/config/validate';
import { RUN_DEFAULTS, RUN_OPTIONS } from '../../lib/run/options/run-option-table';
import { resolveRunPlan } from '../../lib/run/options/run-plan';
import { runCli } from '../support/cli';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mb-option-table-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The UsageError fn throws (fails the test when it throws anything else, or nothing). */
function usageErrorOf(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
  throw new Error('expected a UsageError, nothing was thrown');
}

describe('a table', () => {
  const table = {
    batchSize: option({
      flag: '--batch-size <n>',
      help: 'documents per batch',
      schema: z.number().int().min(1, 'must be at least 1'),
      default: 256,
      arg: intArg,
    }),
    load: option({ flag: '--no-load', help: 'use the existing data', schema: z.boolean() }),
    share: option({
      flag: '--share <f>',
      help: (d) => `a share (default: ${Number(d) * 100}%)`,
      schema: z.number(),
      default: 0.5,
    }),
    scenarios: option({ help: 'config files only', schema: z.array(z.unknown()) }),
  };

  it('gives commander its options: the default written into the help, the parser naming the flag, no default value set', () => {
    const command = addOptions(new Command('t').exitOverride(), table);
    expect(command.options.map((o) => o.flags)).toEqual([
      '--batch-size <n>',
      '--no-load',
      '--share <f>',
    ]);
    expect(command.options.map((o) => o.description)).toEqual([
      'documents per batch (default: 256)',
      'use the existing data',
      'a share (default: 50%)',
    ]);
    command.parse(['--batch-size', '64'], { from: 'user' });
    expect(command.opts().batchSize).toBe(64);
    expect(command.getOptionValueSource('share')).toBeUndefined();
    expect(() =>
      addOptions(new Command('t').exitOverride(), table).parse(['--batch-size', '6x'], {
        from: 'user',
      }),
    ).toThrow('option --batch-size: expected an integer, got "6x"');
  });

  it('gives zod its shape (every option optional, config-only keys included) and the defaults', () => {
    const shape = tableShape(table);
    expect(Object.keys(shape)).toEqual(['batchSize', 'load', 'share', 'scenarios']);
    expect(parseOptions(z.object(shape).strict(), {})).toEqual({});
    expect(tableDefaults(table)).toEqual({ batchSize: 256, share: 0.5 });
    const error = usageErrorOf(() => parseOptions(z.object(shape).strict(), { batchSize: 0 }));
    expect(error.message).toBe('option --batch-size: must be at least 1');
    expect(error.problems).toEqual([{ option: 'batchSize', text: 'must be at least 1' }]);
  });
});

describe("run's table", () => {
  it('spells every flag as its key (kebab-case; --no-KEY for a switch that is on by default)', () => {
    for (const [key, row] of Object.entries(RUN_OPTIONS)) {
      if (!('flag' in row) || row.flag === undefined) continue;
      // Or as the errors name it where the key cannot be the flag (opCount is --ops: the API's `ops` is the workload).
      expect([
        `--${kebab(key)}`,
        `--no-${kebab(key)}`,
        flagNamer(key).replace(/^option /, ''),
      ]).toContain(row.flag.split(' ')[0]);
    }
  });

  it('derives the defaults the resolution applies', () => {
    const plan = resolveRunPlan({ uri: 'mongodb://127.0.0.1:1' }, { env: {} });
    expect(plan.benchmark.batchSize).toBe(RUN_DEFAULTS.batchSize);
    expect(plan.benchmark.seconds).toBe(RUN_DEFAULTS.seconds);
    expect(plan.benchmark.reset).toBe(RUN_DEFAULTS.reset);
  });
});

describe('errors carry their option; the edge names it for its source', () => {
  it('a key unknown in a config file gets its did-you-mean, the key as written kept as data', () => {
    const config = join(dir, 'typo.yaml');
    writeFileSync(config, 'uri: mongodb://127.0.0.1:1\nbatch-sise: 8\nmaxClient: 4\n');
    const error = usageErrorOf(() => resolveRunPlan({ config }, { env: {} }));
    expect(error.message).toBe(
      `config file ${config}:2: unknown key "batch-sise" (did you mean "batch-size"?)\nconfig file ${config}:3: unknown key "maxClient" (did you mean "maxClients"?)`,
    );
    expect(error.problems.map((p) => p.option)).toEqual(['batch-sise', 'maxClient']);
  });

  it("a flag's error names the flag, a config key's the file, line and key; both carry the option", async () => {
    const cli = await runCli([
      'run',
      '--uri',
      'mongodb://127.0.0.1:1',
      '--max-clients',
      '0',
      '--dry-run',
    ]);
    expect(cli.code).toBe(EXIT.usage);
    expect(cli.stderr).toContain(
      'option --max-clients: the maximum client count must be at least 1',
    );
    const config = join(dir, 'bad.yaml');
    writeFileSync(config, 'uri: mongodb://127.0.0.1:1\nmaxClients: 0\n');
    const fromFile = usageErrorOf(() => resolveRunPlan({ config }, { env: {} }));
    expect(fromFile.message).toBe(
      `config file ${config}:2: maxClients: the maximum client count must be at least 1`,
    );
    expect(fromFile.option).toBe('maxClients');
    const fromFlag = usageErrorOf(() =>
      resolveRunPlan({ uri: 'mongodb://127.0.0.1:1', maxClients: 0 }, { env: {} }),
    );
    expect(fromFlag.message).toBe(
      'option --max-clients: the maximum client count must be at least 1',
    );
    expect(fromFlag.option).toBe('maxClients');
  });

  it('a later check of a file value names its line; the same check of a flag names the flag', () => {
    const config = join(dir, 'warmup.yaml');
    writeFileSync(config, 'uri: mongodb://127.0.0.1:1\nwarmupMax: 5\n');
    expect(usageErrorOf(() => resolveRunPlan({ config }, { env: {} })).message).toBe(
      `config file ${config}:2: warmupMax: needs --warmup auto`,
    );
    expect(
      usageErrorOf(() =>
        resolveRunPlan({ uri: 'mongodb://127.0.0.1:1', warmupMax: 5 }, { env: {} }),
      ).message,
    ).toBe('option --warmup-max: needs --warmup auto');
  });

  it('the data survives being named for the API, path and joint included', () => {
    const error = new UsageError([
      { option: 'scenarios', path: [1, 'rate'], text: 'expected a rate' },
      { option: 'replayRate', joint: ' ', text: 'needs --workload-file' },
      { text: 'options --clients and --max-clients cannot be combined' },
    ]);
    expect(error.message).toBe(
      'option --scenarios[1].rate: expected a rate\noption --replay-rate needs --workload-file\noptions --clients and --max-clients cannot be combined',
    );
    const placed = error.placed(apiNamer);
    expect(placed.message).toBe(
      'option scenarios[1].rate: expected a rate\noption replayRate needs --workload-file\noptions --clients and --max-clients cannot be combined',
    );
    expect(placed.path).toEqual([1, 'rate']);
    expect(error.placed(() => undefined)).toBe(error);
  });
});

describe('a message written as text', () => {
  it('keeps its exact text, its option read back as data', () => {
    const texts = [
      'option --max-clients: must be at least 1',
      'option --scenarios[1].rate: expected a rate\noption --warmup auto: not with scenarios',
      'option --rate: rate[0].for: expected a duration',
      'option --tls-1x: odd\noption --foo-2: odd too',
      'options --clients and --max-clients cannot be combined',
      'option --x:no space',
      'config file a.yaml:3: unknown key "x"',
      '',
    ];
    for (const text of texts) expect(new UsageError(text).message).toBe(text);
    expect(new UsageError('option --scenarios[1].rate: expected a rate').problems).toEqual([
      { option: 'scenarios', path: [1, 'rate'], text: 'expected a rate' },
    ]);
    expect(new UsageError('option --foo-2: odd').option).toBe('foo-2');
  });
});

describe('exit codes', () => {
  it('one table: EXIT is its codes, and the general help lists them with their meanings', () => {
    expect(EXIT).toEqual({
      ok: 0,
      failed: 1,
      usage: 2,
      notCompared: 3,
      objectiveFailed: 99,
      sigint: 130,
      sigterm: 143,
    });
    const help = exitCodesHelp();
    expect(help).toContain(`  99   run: ${EXIT_CODES.objectiveFailed.meaning}`);
    expect(help).toContain(`  143  ${EXIT_CODES.sigterm.meaning}`);
    // compare's and history's own outcome is listed too: a script reading the exit code needs it.
    expect(help).toContain(`  3    compare, history: ${EXIT_CODES.notCompared.meaning}`);
  });
});
