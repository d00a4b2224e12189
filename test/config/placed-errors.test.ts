/**
 * Errors keep their place (issue 25, point 5): a check made after a config file was read names the
 * file and line, not a flag the user never typed; an API call is told its own key, with a suggestion.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchmarkOptions, planTopology, readBenchmarkConfig, run } from 'mongo-bench';
import { resolveRunPlan } from '../../lib/run/options/run-plan';
import { usageMessage } from '../support/cli';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mb-placed-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const messageOf = usageMessage;

describe('run --config', () => {
  it('names the YAML file and line of a bad write concern, and suggests "j" for "journal"', () => {
    const path = file(
      'wc.yaml',
      'uri: mongodb://127.0.0.1:27017\nseconds: 2\nwriteConcern: {w: 1, journal: true}\n',
    );
    expect(messageOf(() => resolveRunPlan({ config: path }))).toBe(
      `config file ${path}:3: writeConcern: unknown field "journal" (did you mean "j"?); fields: w, j, wtimeout, wtimeoutMS`,
    );
  });

  it('names the JSON file and line, with the key as written (kebab-case too)', () => {
    const path = file(
      'wc.json',
      '{\n  "uri": "mongodb://127.0.0.1:27017",\n\n  "write-concern": {"w": 1, "journal": true}\n}\n',
    );
    expect(messageOf(() => resolveRunPlan({ config: path }))).toMatch(
      new RegExp(`^config file ${path}:4: write-concern: unknown field "journal"`),
    );
  });

  it('names the file for other later checks too (a namespace without a dot)', () => {
    const path = file('ns.yaml', 'uri: mongodb://127.0.0.1:27017\nns: orders\n');
    expect(messageOf(() => resolveRunPlan({ config: path }))).toBe(
      `config file ${path}:2: ns: expected "database.collection", got "orders"`,
    );
  });

  it('names the flag when the command line gave the value over the file', () => {
    const path = file('ns-overridden.yaml', 'uri: mongodb://127.0.0.1:27017\nns: orders\n');
    expect(messageOf(() => resolveRunPlan({ config: path, ns: 'also-bad' }))).toBe(
      'option --ns: expected "database.collection", got "also-bad"',
    );
  });
});

describe('the API', () => {
  const uri = 'mongodb://127.0.0.1:27017';
  it('names an unknown key as the API spells it, with a suggestion (not the CLI flag)', () => {
    expect(messageOf(() => benchmarkOptions({ uri, maxClient: 4 } as never))).toBe(
      'option maxClient: unknown key (did you mean "maxClients"?)',
    );
  });

  it('names the API key in the shared checks', () => {
    expect(messageOf(() => benchmarkOptions({ uri, clients: [0] }))).toBe(
      'option clients: each client count must be at least 1',
    );
    expect(
      messageOf(() => benchmarkOptions({ uri, writeConcern: { w: 1, journal: true } })),
    ).toMatch(/^option writeConcern: unknown field "journal" \(did you mean "j"\?\)/);
  });

  it('readBenchmarkConfig names the file and line (a YAML object write concern is accepted, as benchmark() takes one)', () => {
    const path = file('api.yaml', `uri: ${uri}\nwriteConcern:\n  w: 1\n  journal: true\n`);
    expect(messageOf(() => readBenchmarkConfig(path))).toMatch(
      new RegExp(`^config file ${path}:3: writeConcern: unknown field "journal"`),
    );
    const good = file('api-good.yaml', `uri: ${uri}\nwriteConcern:\n  w: 1\n  j: true\n`);
    expect(readBenchmarkConfig(good).writeConcern).toEqual({ w: 1, j: true });
    expect(messageOf(() => readBenchmarkConfig(good, { maxClient: 2 } as never))).toBe(
      'option maxClient: unknown key (did you mean "maxClients"?)',
    );
  });

  it('run() names its own keys too, and a config file it is given by file and line', async () => {
    await expect(run({ uri, maxClient: 4 } as never)).rejects.toThrow(
      /^option maxClient: unknown key \(did you mean "maxClients"\?\)$/,
    );
    await expect(run({ uri, clients: [0] })).rejects.toThrow(
      /^option clients: each client count must be at least 1$/,
    );
    const path = file('run-api.yaml', `uri: ${uri}\nwriteConcern: {w: 1, journal: true}\n`);
    await expect(run({ config: path })).rejects.toThrow(
      new RegExp(`^config file ${path}:2: writeConcern: unknown field "journal"`),
    );
  });

  it('planTopology suggests the key it knows', () => {
    expect(messageOf(() => planTopology({ topology: 'sharded', shard: 2 } as never))).toBe(
      'unknown key "shard" (did you mean "shards"?)',
    );
  });
});
