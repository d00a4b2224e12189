/**
 * The compiled stand-ins (test/support/compiled-stand-ins.ts) that jest's workers start instead of
 * going through tsx: the same program, so the same answers, with and without MONGO_BENCH_FAKE_BIN_JS.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compileStandIns, FAKE_BIN_JS_ENV } from '../support/compiled-stand-ins';
import { FAKE_BIN } from '../support/processes';

function run(binary: 'mongod' | 'mongos', args: string[], compiled: string | undefined): { status: number; output: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, MONGO_BENCH_FAKE_VERSION: '6.0.20' };
  if (compiled === undefined) delete env[FAKE_BIN_JS_ENV];
  else env[FAKE_BIN_JS_ENV] = compiled;
  try {
    return { status: 0, output: execFileSync(path.join(FAKE_BIN, binary), args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (e) {
    const err = e as { status: number; stdout: string; stderr: string };
    return { status: err.status, output: `${err.stdout}${err.stderr}` };
  }
}

describe('compiled stand-ins', () => {
  test('global setup names the compiled copy for the workers, and compiling again gives the same file', () => {
    const compiled = compileStandIns();
    expect(fs.existsSync(compiled)).toBe(true);
    expect(process.env[FAKE_BIN_JS_ENV]).toBe(compiled);
  });

  test('mongod and mongos answer the same compiled as through tsx (a version, a refused option)', () => {
    const compiled = compileStandIns();
    for (const [binary, args] of [['mongod', ['--version']], ['mongos', ['--configdb', 'cfg/127.0.0.1:1', '--dbpath', '/x']]] as const) {
      const viaTsx = run(binary, [...args], undefined);
      expect(viaTsx.output).not.toBe('');
      expect(run(binary, [...args], compiled)).toEqual(viaTsx);
    }
  });
});
