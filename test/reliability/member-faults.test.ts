/**
 * kill, terminate and restart of a member of a deployment mongo-bench launched, with the stand-ins of
 * test/support/fake-bin (a launched stand-in replica set): the member's process is signalled (SIGKILL,
 * SIGTERM) and started again with the same arguments after `for`, else at the step's end, and by the
 * FaultKeeper when the run is interrupted (a member left dead is harm); every member runs when the run
 * stops the deployment, and nothing is left running. Refused (exit 2) on an existing deployment (--uri)
 * and the embedded server, and for a member the planned topology does not have. The stand-ins keep the
 * lock file and their replica-set config in the data directory, as mongod does (fake-bin/lock-file.ts,
 * fake-bin/replication.ts). Their figures are a test double's, never MongoDB's.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadResult } from '../../lib/report';
import type { ScenarioEvent } from '../../lib/result';
import { runCli } from '../support/cli';
import { startCli } from '../support/cli-child';
import {
  expectGone,
  FAKE_BIN,
  freePortRange,
  killLeftovers,
  leftovers,
  pidsWithCommandLine,
  tempDir,
} from '../support/processes';

let work: string;
beforeAll(() => {
  work = tempDir('member-faults');
});
afterAll(() => {
  killLeftovers(work);
  fs.rmSync(work, { recursive: true, force: true });
});

/** A launched 3-member stand-in replica set, one client, `seconds` measured. */
async function launchedArgs(name: string, seconds: number) {
  const base = await freePortRange(3);
  const dataDir = path.join(work, name, 'data');
  const out = path.join(work, name, 'out');
  const args = [
    'run',
    '--bin-dir',
    FAKE_BIN,
    '--topology',
    'replset',
    '--replicas',
    '3',
    '--base-port',
    String(base),
    '--data-dir',
    dataDir,
    '--out',
    out,
    '--clients',
    '1',
    '--seconds',
    String(seconds),
    '--warmup',
    '0',
    '--docs',
    '50',
    '--doc-size',
    '64',
    '--workers',
    '1',
    '--no-server-stats',
    '--test-double',
  ];
  return { args, dataDir, out, base };
}

/** The command line of a process (its argv joined by spaces), or undefined once it is gone. */
function commandLine(pid: number): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return undefined;
  }
}

/** Watches the processes whose command line names `dir` until stopped: every pid seen, with its last command line. */
function watchProcesses(dir: string) {
  const seen = new Map<number, string>();
  const look = () => {
    for (const pid of pidsWithCommandLine(dir)) {
      const line = commandLine(pid);
      // The latest non-empty one: a stand-in starts as `/usr/bin/env node ...` (its #! line) until env
      // execs node, and an exiting process (a zombie) reads as empty.
      if (line) seen.set(pid, line);
    }
  };
  look();
  const timer = setInterval(look, 50);
  return {
    seen,
    stop: () => clearInterval(timer),
  };
}

function eventOf(events: ScenarioEvent[] | undefined, action: string): ScenarioEvent {
  const found = events?.find((e) => e.action === action);
  expect(found).toBeDefined();
  return found!;
}

describe('kill and terminate on a launched stand-in replica set', () => {
  it('kill member=1 for=1s: its process is gone, the same command line runs again under a new pid, every member runs at the end', async () => {
    const { args, dataDir, out, base } = await launchedArgs('kill', 5);
    const member = path.join(dataDir, 'rs0-1');
    const watch = watchProcesses(member);
    const cli = startCli([...args, '--event', '1:kill:member=1,for=1s']);
    const finished = await cli.finished;
    watch.stop();
    expect({ code: finished.code, output: cli.output() }).toMatchObject({ code: 0 });

    const [step] = (await loadResult(path.join(out, 'results.json'))).steps;
    const kill = eventOf(step.events, 'kill');
    expect(kill).toMatchObject({
      ok: true,
      signal: 'SIGKILL',
      for: 1,
      trial: 1,
      member: { name: 'rs0-1', address: `127.0.0.1:${base + 1}` },
      undo: { ok: true },
    });
    const { pid, restartedPid } = kill.member!;
    expect(restartedPid).toBeDefined();
    expect(restartedPid).not.toBe(pid);
    expect(kill.startedAt).toBeGreaterThanOrEqual(1);
    // Started again once its `for` was over, well before the 5 s window closed.
    expect(kill.endedAt! - kill.startedAt!).toBeGreaterThanOrEqual(1);
    expect(kill.endedAt!).toBeLessThan(5);
    // Both processes were seen, with the same command line; the first is gone for good.
    expect(watch.seen.get(pid!)).toBeDefined();
    expect(watch.seen.get(restartedPid!)).toBe(watch.seen.get(pid!));
    expectGone([pid!, restartedPid!]);
    // The stand-in found the lock file the SIGKILL left, as mongod does after an unclean shutdown.
    expect(fs.readFileSync(path.join(member, 'mongod.log'), 'utf8')).toContain(
      'Detected unclean shutdown - Lock file is not empty',
    );
    // Every member ran when the run stopped the deployment: each exited on the run's SIGTERM.
    const log = fs.readFileSync(path.join(out, 'command-log.txt'), 'utf8');
    expect(log).toContain(`stopped rs0-1 (pid ${restartedPid}): exit code 0`);
    for (const name of ['rs0-0', 'rs0-2'])
      expect(log).toMatch(new RegExp(`stopped ${name} \\(pid \\d+\\): exit code 0`));
    expect(cli.output()).toMatch(
      /\[faults\] kill rs0-1 \(127\.0\.0\.1:\d+, SIGKILL\) at 1\.\d+ s to \d\.\d+ s, trial 1: done; rs0-1 \(127\.0\.0\.1:\d+\) started again with the same arguments/,
    );
    expect(leftovers(dataDir)).toEqual([]);
  }, 90_000);

  it('terminate member=secondary without for: SIGTERM, started again at the step end', async () => {
    const { args, dataDir, out } = await launchedArgs('terminate', 3);
    const run = await runCli([...args, '--event', '1:terminate:member=secondary']);
    expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: 0 });
    const [step] = (await loadResult(path.join(out, 'results.json'))).steps;
    const terminate = eventOf(step.events, 'terminate');
    expect(terminate).toMatchObject({ ok: true, signal: 'SIGTERM', undo: { ok: true } });
    expect(terminate.for).toBeUndefined();
    expect(['rs0-1', 'rs0-2']).toContain(terminate.member!.name);
    // Held to the end of the 3 s window, then started again.
    expect(terminate.endedAt!).toBeGreaterThanOrEqual(3);
    const log = fs.readFileSync(path.join(out, 'command-log.txt'), 'utf8');
    expect(log).toContain(
      `stopped ${terminate.member!.name} (pid ${terminate.member!.restartedPid}): exit code 0`,
    );
    expectGone([terminate.member!.pid!, terminate.member!.restartedPid!]);
    expect(leftovers(dataDir)).toEqual([]);
  }, 90_000);

  it('an interrupted run (SIGINT) starts the killed member again before it stops the deployment', async () => {
    const { args, dataDir, out } = await launchedArgs('interrupted', 30);
    const cli = startCli([...args, '--event', '1:kill:member=2']);
    await cli.waitFor(/\[sweep\] step 1\/1/, 30_000);
    // Once the member is gone (1 s into the window).
    const member = path.join(dataDir, 'rs0-2');
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && pidsWithCommandLine(member).length > 0)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(pidsWithCommandLine(member)).toEqual([]);
    cli.child.kill('SIGINT');
    const finished = await cli.finished;
    expect(finished.code).toBe(130);
    expect(cli.output()).toMatch(
      /\[faults\] kill rs0-2 \(127\.0\.0\.1:\d+, SIGKILL\) at 1\.\d+ s to \d+\.\d+ s, trial 1: done; rs0-2 \(127\.0\.0\.1:\d+\) started again with the same arguments/,
    );
    const [step] = (await loadResult(path.join(out, 'results.json'))).steps;
    const kill = eventOf(step.events, 'kill');
    expect(kill.member!.restartedPid).toBeDefined();
    const log = fs.readFileSync(path.join(out, 'command-log.txt'), 'utf8');
    expect(log).toContain(`stopped rs0-2 (pid ${kill.member!.restartedPid}): exit code 0`);
    expect(leftovers(dataDir)).toEqual([]);
  }, 90_000);
});

describe('refused before anything starts (exit 2)', () => {
  const refused = async (...args: string[]) => {
    const run = await runCli(['run', '--out', path.join(work, 'refused'), ...args]);
    expect(run.code).toBe(2);
    return run.stderr;
  };

  it('on an existing deployment (--uri) and the embedded server', async () => {
    expect(
      await refused('--uri', 'mongodb://127.0.0.1:1/', '--event', '1:kill:member=primary'),
    ).toMatch(
      /option --event\[0\]: kill acts on a member's process of a deployment mongo-bench launched; this deployment was given with --uri: mongo-bench did not start its processes/,
    );
    expect(await refused('--event', '1:restart')).toMatch(
      /option --event\[0\]: restart acts on .*the embedded server is mongodb-memory-server's/,
    );
  });

  it('a member the planned topology does not have, or a selector it cannot read', async () => {
    const launched = ['--bin-dir', FAKE_BIN, '--topology', 'replset', '--replicas', '3'];
    expect(await refused(...launched, '--event', '1:kill:member=5')).toMatch(
      /option --event\[0\]: member: replica set rs0 has members 0\.\.2, got 5/,
    );
    expect(await refused(...launched, '--event', '1:terminate:member=leader')).toMatch(
      /option --event\[0\]\.member: expected HOST:PORT, primary, secondary or a member's number/,
    );
    expect(await refused(...launched, '--event', '1:restart:member=primary,for=2s')).toMatch(
      /option --event\[0\]: unknown key "for" for restart/,
    );
  });

  it('--dry-run lists each as a signal entry of the write plan, its restart said', async () => {
    const run = await runCli([
      'run',
      '--dry-run',
      '--bin-dir',
      FAKE_BIN,
      '--topology',
      'replset',
      '--replicas',
      '3',
      '--base-port',
      '24310',
      '--event',
      '1:kill:member=primary,for=2s',
      '--event',
      '3:restart:member=127.0.0.1:24311',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /signal on the primary \(a launched process\) \[a configured event\]: the run's kill at 1 s .*SIGKILL.*\(restored at the end: started again with the same arguments after 2 s, and when the run is interrupted or fails\)/,
    );
    expect(run.stdout).toMatch(/signal on 127\.0\.0\.1:24311 \(a launched process\).*restart/);
  });
});
