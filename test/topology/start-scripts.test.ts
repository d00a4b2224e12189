/**
 * The generated bash scripts, run with bash as a user runs them, against a recorder binary that
 * writes down its argv and working folder (no mongod needed): absolute paths resolved when the
 * script runs, the WiredTiger cache share, mongos in a step of its own, and the stop order.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  cacheSizeGbPerMongod,
  planFromOptions,
  renderScriptFiles,
  TopologyInput,
} from '../../lib/topology';

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'mongo-bench-start-sh-'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

/** Writes the scripts of a plan into tmp/scripts and a recorder binary into tmp/bin. */
function writeScripts(input: TopologyInput): string {
  const dir = path.join(tmp, 'scripts');
  mkdirSync(dir, { recursive: true });
  for (const f of renderScriptFiles(planFromOptions(input)))
    writeFileSync(path.join(dir, f.file), f.text);
  mkdirSync(path.join(tmp, 'bin'));
  const recorder = path.join(tmp, 'bin', 'recorder');
  // One line per call: the binary's name, its working folder, then its arguments.
  writeFileSync(
    recorder,
    '#!/bin/sh\n{ printf "%s %s" "$(basename "$0")" "$PWD"; printf " %s" "$@"; printf "\\n"; } >> "$RECORD"\n',
  );
  chmodSync(recorder, 0o755);
  return dir;
}

function bash(script: string, cwd: string, env: Record<string, string> = {}) {
  const record = path.join(tmp, 'calls.txt');
  const r = spawnSync('bash', [script], {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      MONGOD: path.join(tmp, 'bin', 'recorder'),
      MONGOS: path.join(tmp, 'bin', 'recorder'),
      RECORD: record,
      ...env,
    },
  });
  let calls: string[][] = [];
  try {
    calls = readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' '));
  } catch {
    // No call made.
  }
  return { ...r, calls };
}

const argOf = (call: string[], name: string) => call[call.indexOf(name) + 1];

describe('00-start.sh run with bash', () => {
  it('passes absolute --dbpath, --logpath, --pidfilepath and --keyFile, resolved against the folder it runs from', () => {
    const scripts = writeScripts({ topology: 'replset', replicas: 3, auth: true });
    const workdir = path.join(tmp, 'work');
    mkdirSync(workdir);
    const r = bash(path.join(scripts, '00-start.sh'), workdir);
    expect(r.status).toBe(0);
    expect(r.calls).toHaveLength(3);
    const dataDir = path.join(fsReal(workdir), 'mongo-bench-data');
    r.calls.forEach((call, i) => {
      // A forked mongod runs from /: every path it gets must be absolute.
      expect(argOf(call, '--pidfilepath')).toBe(`${dataDir}/rs0-${i}/mongod.pid`);
      expect(argOf(call, '--dbpath')).toBe(`${dataDir}/rs0-${i}`);
      expect(argOf(call, '--logpath')).toBe(`${dataDir}/rs0-${i}/mongod.log`);
      expect(argOf(call, '--keyFile')).toBe(`${dataDir}/keyfile`);
      expect(call).toContain('--fork');
    });
    // MONGO_BENCH_DATA_DIR chooses the folder; a relative one is made absolute too.
    rmSync(path.join(tmp, 'calls.txt'));
    const again = bash(path.join(scripts, '00-start.sh'), workdir, {
      MONGO_BENCH_DATA_DIR: 'elsewhere',
    });
    expect(again.status).toBe(0);
    expect(argOf(again.calls[0], '--pidfilepath')).toBe(
      `${path.join(fsReal(workdir), 'elsewhere')}/rs0-0/mongod.pid`,
    );
  });

  it('gives each mongod its share of the memory for the WiredTiger cache, or MONGO_BENCH_CACHE_GB', () => {
    const scripts = writeScripts({ topology: 'sharded', shards: 5, replicas: 3 });
    const r = bash(path.join(scripts, '00-start.sh'), tmp);
    expect(r.status).toBe(0);
    const mongods = r.calls.filter((c) => c[0] === 'recorder');
    expect(mongods).toHaveLength(16);
    const memKb = Number(/^MemTotal:\s+(\d+)/m.exec(readFileSync('/proc/meminfo', 'utf8'))![1]);
    const expected = cacheSizeGbPerMongod(memKb * 1024, 16).toFixed(2);
    for (const call of mongods) expect(argOf(call, '--wiredTigerCacheSizeGB')).toBe(expected);
    rmSync(path.join(tmp, 'calls.txt'));
    const chosen = bash(path.join(scripts, '00-start.sh'), tmp, { MONGO_BENCH_CACHE_GB: '0.5' });
    expect(chosen.calls.map((c) => argOf(c, '--wiredTigerCacheSizeGB'))).toEqual(
      Array(16).fill('0.5'),
    );
  });

  it('a sharded 00-start.sh starts no mongos; 15-start-mongos.sh does, with its own absolute pid file', () => {
    const scripts = writeScripts({
      topology: 'sharded',
      shards: 2,
      replicas: 1,
      mongos: 2,
      hashed: true,
    });
    const start = bash(path.join(scripts, '00-start.sh'), tmp);
    expect(start.status).toBe(0);
    expect(start.calls.some((c) => c.includes('--configdb'))).toBe(false);
    expect(start.calls).toHaveLength(3);
    rmSync(path.join(tmp, 'calls.txt'));
    const routers = bash(path.join(scripts, '15-start-mongos.sh'), tmp);
    expect(routers.status).toBe(0);
    expect(routers.calls.map((c) => argOf(c, '--pidfilepath'))).toEqual([
      `${fsReal(tmp)}/mongo-bench-data/mongos-0/mongos.pid`,
      `${fsReal(tmp)}/mongo-bench-data/mongos-1/mongos.pid`,
    ]);
    expect(routers.calls.every((c) => !c.includes('--wiredTigerCacheSizeGB'))).toBe(true);
  });

  it('15-start-mongos.sh refuses to run where 00-start.sh has not', () => {
    const scripts = writeScripts({ topology: 'sharded', hashed: true });
    const r = bash(path.join(scripts, '15-start-mongos.sh'), tmp);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('run 00-start.sh from this folder first');
    expect(r.calls).toEqual([]);
  });
});

describe('99-stop.sh run with bash', () => {
  it('stops the routers, then the shards, then the config servers, each tier after the one before has exited', async () => {
    const scripts = writeScripts({ topology: 'sharded', shards: 2, replicas: 1, hashed: true });
    const dataDir = path.join(tmp, 'mongo-bench-data');
    // Stand-ins that take a while to exit on SIGTERM, like a mongod writing its last checkpoint.
    const names = ['mongos-0', 'cfg-0', 'shard0-0', 'shard1-0'];
    const exits: string[] = [];
    const children = names.map((name) => {
      mkdirSync(path.join(dataDir, name), { recursive: true });
      const binary = name.startsWith('mongos') ? 'mongos' : 'mongod';
      // bash -c '...' mongod --pidfilepath FILE: the process's command line names its pid file, as
      // the one 00-start.sh starts does.
      const pidFile = path.join(fsReal(dataDir), name, `${binary}.pid`);
      const child = spawn('bash', [
        '-c',
        'trap "sleep 0.3; exit 0" TERM; while true; do sleep 0.05; done',
        binary,
        '--pidfilepath',
        pidFile,
      ]);
      writeFileSync(pidFile, `${child.pid}\n`);
      child.on('exit', () => exits.push(name));
      return child;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const r = await runStopScript(scripts);
    expect(r.code).toBe(0);
    const killed = r.stdout
      .split('\n')
      .filter((l) => l.startsWith('+ kill'))
      .map((l) => l.split('# ')[1]);
    expect(killed).toEqual(['mongos-0', 'shard0-0', 'shard1-0', 'cfg-0']);
    expect(exits[0]).toBe('mongos-0');
    expect(exits[exits.length - 1]).toBe('cfg-0');
    for (const c of children) expect(c.exitCode ?? c.signalCode).not.toBeNull();
  });

  it('stops a mongod whose binary has another name (MONGOD=/opt/mongodb-7.0/bin/mongod-7.0), matched by its pid file', async () => {
    const scripts = writeScripts({ topology: 'replset', replicas: 1 });
    const dir = path.join(tmp, 'mongo-bench-data', 'rs0-0');
    mkdirSync(dir, { recursive: true });
    const pidFile = path.join(fsReal(dir), 'mongod.pid');
    const child = spawn('bash', [
      '-c',
      'trap "exit 0" TERM; while true; do sleep 0.05; done',
      '/opt/mongodb-7.0/bin/mongod-7.0',
      '--port',
      '27017',
      '--pidfilepath',
      pidFile,
    ]);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      writeFileSync(pidFile, `${child.pid}\n`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const r = await runStopScript(scripts);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`+ kill ${child.pid}  # rs0-0`);
      await exited;
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('leaves alone a process that a stale pid file names but that is no mongod or mongos', async () => {
    const scripts = writeScripts({ topology: 'replset', replicas: 1 });
    const dir = path.join(tmp, 'mongo-bench-data', 'rs0-0');
    mkdirSync(dir, { recursive: true });
    const bystander = spawn('sleep', ['30']);
    try {
      writeFileSync(path.join(dir, 'mongod.pid'), `${bystander.pid}\n`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const r = await runStopScript(scripts);
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain('+ kill');
      expect(r.stderr).toContain(`skip rs0-0: pid ${bystander.pid} in `);
      expect(bystander.exitCode ?? bystander.signalCode).toBeNull();
    } finally {
      bystander.kill();
    }
  });
});

function runStopScript(
  scripts: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn('bash', [path.join(scripts, '99-stop.sh')], { cwd: tmp });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function fsReal(p: string): string {
  return spawnSync('bash', ['-c', 'cd "$1" && pwd -P', '_', p], { encoding: 'utf8' }).stdout.trim();
}
