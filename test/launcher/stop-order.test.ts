/**
 * stop() of a launched group (defect 8 of issue 12): routers, then the shards' members, then the
 * config servers; within a tier the secondaries before the PRIMARY; no SIGKILL for a process still
 * shutting down cleanly within the grace period; and how long each stop took. The stand-ins answer
 * hello as a member (PRIMARY or SECONDARY, as told) and take a while to exit on SIGTERM, as a
 * mongod writing its last checkpoint does.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { resolveBinaries } from '../../lib/launcher/binaries';
import { liveChildCount } from '../../lib/launcher/children';
import { launchProcesses } from '../../lib/launcher/launch';
import type { ProcessSpec } from '../../lib/launcher/spec';
import { freePorts, tempDir, writeScript } from '../support/processes';

const RECORDING_SERVER = path.resolve(__dirname, '../support/recording-server.ts');
const TSX_API = require.resolve('tsx/cjs/api');

/** A stand-in that serves hello with the role given in MEMBER_ROLE_<port>, and exits 0 `delayMs` after SIGTERM. */
function standIn(bin: string, name: 'mongod' | 'mongos', delayMs: number): void {
  writeScript(
    bin,
    name,
    [
      "const fs = require('node:fs');",
      `const { startRecordingServer } = require(${JSON.stringify(TSX_API)}).require(${JSON.stringify(RECORDING_SERVER)}, __filename);`,
      "const port = Number(process.argv[process.argv.indexOf('--port') + 1]);",
      "const role = process.env['MEMBER_ROLE_' + port] || 'standalone';",
      "const helloFields = role === 'primary' ? { setName: 'rs', isWritablePrimary: true, ismaster: true, secondary: false }",
      "  : role === 'secondary' ? { setName: 'rs', isWritablePrimary: false, ismaster: false, secondary: true } : role === 'mongos' ? { msg: 'isdbgrid' } : {};",
      'startRecordingServer({ port, helloFields }).then(() => {',
      "  process.on('SIGTERM', () => {",
      "    fs.appendFileSync(process.env.STOP_RECORD, port + ' ' + Date.now() + '\\n');",
      `    setTimeout(() => process.exit(0), ${delayMs});`,
      '  });',
      '});',
      'setInterval(() => {}, 1000);',
    ].join('\n'),
  );
}

describe('stop() of a launched group', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('stop-order');
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    expect(liveChildCount()).toBe(0);
  });

  it('stops mongos, then secondaries before the PRIMARY in each tier, then config servers; no SIGKILL; reports each duration', async () => {
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    standIn(bin, 'mongod', 600);
    standIn(bin, 'mongos', 100);
    const [cfg, primary, secondary1, secondary2, router] = await freePorts(5);
    const roles: Record<number, string> = {
      [cfg]: 'primary',
      [primary]: 'primary',
      [secondary1]: 'secondary',
      [secondary2]: 'secondary',
      [router]: 'mongos',
    };
    const record = path.join(dir, 'stops.txt');
    const env: NodeJS.ProcessEnv = { ...process.env, STOP_RECORD: record };
    for (const [port, role] of Object.entries(roles)) env[`MEMBER_ROLE_${port}`] = role;
    const member = (name: string, port: number, extra: string[] = []): ProcessSpec => ({
      name,
      kind: 'mongod',
      args: ['--replSet', 'rs', ...extra],
      host: '127.0.0.1',
      port,
      dbPath: path.join(dir, name),
    });
    // The PRIMARY is started first, so start order alone would stop it first.
    const group = await launchProcesses(
      [
        member('cfg-0', cfg, ['--configsvr']),
        member('rs-0', primary),
        member('rs-1', secondary1),
        member('rs-2', secondary2),
      ],
      { binaries: resolveBinaries({ binDir: bin, env: {} }), readyTimeoutMs: 30_000, env },
    );
    await group.launch([
      {
        name: 'mongos-0',
        kind: 'mongos',
        args: ['--configdb', `cfg/127.0.0.1:${cfg}`],
        host: '127.0.0.1',
        port: router,
      },
    ]);
    const report = await group.stop();
    expect(report.map((r) => [r.name, r.killed, r.code, r.wasPrimary === true])).toEqual([
      ['mongos-0', false, 0, false],
      ['rs-1', false, 0, false],
      ['rs-2', false, 0, false],
      ['rs-0', false, 0, true],
      ['cfg-0', false, 0, true],
    ]);
    // Each took its time to shut down (600 ms for the mongods) and was waited for, not killed.
    for (const r of report.filter((x) => x.name !== 'mongos-0'))
      expect(r.durationMs).toBeGreaterThanOrEqual(550);
    // As the processes saw it: the PRIMARY got SIGTERM only after both secondaries had exited.
    const at = Object.fromEntries(
      fs
        .readFileSync(record, 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(' ').map(Number)),
    );
    expect(at[primary]).toBeGreaterThanOrEqual(Math.max(at[secondary1], at[secondary2]) + 550);
    expect(at[cfg]).toBeGreaterThanOrEqual(at[primary] + 550);
    expect(at[router]).toBeLessThan(Math.min(at[secondary1], at[secondary2]));
  }, 60_000);
});
