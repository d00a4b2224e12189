/**
 * What jest's workers start compiled once per run instead of through tsx (test/support/compiled-stand-ins.ts,
 * test/support/compiled-cli.ts): the same programs, so the same answers with and without the
 * environment variable that names the compiled copy.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI_JS_ENV, compileCli } from './support/compiled-cli';
import { compileStandIns, FAKE_BIN_JS_ENV } from './support/compiled-stand-ins';
import { CLI_ENTRY, ROOT } from './support/cli-child';
import { FAKE_BIN } from './support/processes';

function run(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): { status: number; output: string } {
  try {
    return {
      status: 0,
      output: execFileSync(process.execPath, [file, ...args], {
        cwd: ROOT,
        env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    };
  } catch (e) {
    const err = e as { status: number; stdout: string; stderr: string };
    return { status: err.status, output: `${err.stdout}${err.stderr}` };
  }
}

function without(name: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, MONGO_BENCH_FAKE_VERSION: '6.0.20' };
  delete env[name];
  return env;
}

const viaTsxOnly = process.env.MONGO_BENCH_TEST_TSX === '1';

describe('compiled stand-ins', () => {
  test('global setup names the compiled copy for the workers (unless MONGO_BENCH_TEST_TSX=1), and compiling again gives the same file', () => {
    const compiled = compileStandIns();
    expect(fs.existsSync(compiled)).toBe(true);
    expect(process.env[FAKE_BIN_JS_ENV]).toBe(viaTsxOnly ? undefined : compiled);
  });

  test('mongos answers the same compiled as through tsx (a refused option: the whole program loaded)', () => {
    const compiled = compileStandIns();
    for (const [binary, args] of [
      ['mongos', ['--configdb', 'cfg/127.0.0.1:1', '--dbpath', '/x']],
    ] as const) {
      const viaTsx = run(path.join(FAKE_BIN, binary), [...args], without(FAKE_BIN_JS_ENV));
      expect(viaTsx.output).not.toBe('');
      expect(
        run(path.join(FAKE_BIN, binary), [...args], {
          ...without(FAKE_BIN_JS_ENV),
          [FAKE_BIN_JS_ENV]: compiled,
        }),
      ).toEqual(viaTsx);
    }
  });
});

describe('compiled CLI', () => {
  test('global setup names the compiled entry (unless MONGO_BENCH_TEST_TSX=1), in .test-dist/ beside the sources', () => {
    const entry = compileCli();
    expect(process.env[CLI_JS_ENV]).toBe(viaTsxOnly ? undefined : entry);
    expect(path.relative(ROOT, entry)).toBe(path.join('.test-dist', 'cli-entry.js'));
  });

  test('answers the same compiled as through tsx (a refused option of run: the whole CLI loaded)', () => {
    const entry = compileCli();
    for (const args of [['run', '--clients', 'many']]) {
      const viaTsx = run('--require', ['tsx/cjs', CLI_ENTRY, ...args], without(CLI_JS_ENV));
      expect(viaTsx.output).not.toBe('');
      expect(run(entry, args, without(CLI_JS_ENV))).toEqual(viaTsx);
    }
  });
});
