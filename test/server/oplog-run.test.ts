/**
 * A run on a replica-set stand-in reads each member's oplog before and after every step, over the
 * sampler's per-process connection (on database `local`), and records steps[].oplog: the bytes the step
 * wrote and the window at that rate; `--min-oplog-window` raises the `oplog-window` warning naming its
 * threshold. The stand-in is the recording server answering as a one-member set's primary (hello's
 * setName and hosts), with a serverStatus that counts its ops (test/support/server-status-double.ts)
 * and a modelled `local.oplog.rs` (test/support/oplog-double.ts: one entry per inserted document, the
 * server source cited there). No real replica set measured these figures.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadResult, StepOplog } from '../../lib/result';
import { resolveRunOptions } from '../../lib/run/options/run-options';
import { runCli } from '../support/cli';
import { OplogDouble } from '../support/oplog-double';
import {
  CommandHandler,
  defaultReply,
  RecordingServer,
  startRecordingServer,
} from '../support/recording-server';
import { ServerStatusDouble } from '../support/server-status-double';
import { describeNeeding } from '../support/servers';

const ENTRY_BYTES = 300;
const OPLOG_BYTES = 64 * 1024 * 1024;

/** hello as a one-member set's writable primary (TopologyCoordinator::fillHelloForReplSet's fields). */
function primaryHello(legacy: boolean): CommandHandler {
  return (body, db, server, connection) => {
    const me = `127.0.0.1:${server.port}`;
    return {
      ...defaultReply(legacy ? 'isMaster' : 'hello', body, db, connection?.id),
      setName: 'rs0',
      setVersion: 1,
      hosts: [me],
      primary: me,
      me,
      secondary: false,
    };
  };
}

describeNeeding('recording', 'the oplog window in a run on a replica-set stand-in', () => {
  let server: RecordingServer;
  let oplog: OplogDouble;
  let dir: string;

  beforeEach(async () => {
    oplog = new OplogDouble(OPLOG_BYTES, ENTRY_BYTES);
    const status = new ServerStatusDouble({
      version: '7.0',
      repl: { setName: 'rs0', primary: true, hosts: ['127.0.0.1'] },
    });
    server = await startRecordingServer({
      handlers: {
        ...oplog.handlers(status.handlers()),
        hello: primaryHello(false),
        isMaster: primaryHello(true),
      },
    });
    dir = mkdtempSync(join(tmpdir(), 'mb-oplog-run-'));
  });
  afterEach(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function run(extra: string[]) {
    const out = join(dir, 'run');
    const r = await runCli([
      'run',
      '--uri',
      `mongodb://127.0.0.1:${server.port}/?directConnection=true`,
      '--workload',
      'insert-only',
      '--clients',
      '1',
      '--seconds',
      '1',
      '--warmup',
      '0',
      '--workers',
      '1',
      '--docs',
      '50',
      '--doc-size',
      '128',
      '--test-double',
      '--out',
      out,
      ...extra,
    ]);
    expect(r.stderr).not.toMatch(/unexpected error/i);
    return { r, result: await loadResult(join(out, 'results.json')), out };
  }

  it('records each member’s oplog over the step: the bytes it wrote, the window at that rate', async () => {
    const { result } = await run([]);
    expect(result.target.topology).toBe('replicaSet');
    const step = result.steps[0];
    const o = step.oplog as StepOplog;
    expect(o).toBeDefined();
    expect(o.members).toHaveLength(1);
    const [m] = o.members;
    expect(m.host).toBe(`127.0.0.1:${server.port}`);
    expect(m.set).toBe('rs0');
    // The load's 50 entries were there before the step; the step's inserts after them.
    expect(m.start?.entries).toBeGreaterThanOrEqual(50);
    expect(m.end?.configuredBytes).toBe(OPLOG_BYTES);
    expect(m.averageEntryBytes).toBe(ENTRY_BYTES);
    // One entry per inserted document: the count over the step's ts range is the step's inserts.
    expect(m.entries).toBe(step.ops.writes);
    expect(m.bytes).toBe(step.ops.writes * ENTRY_BYTES);
    expect(m.bytesPerSecond).toBeGreaterThan(0);
    expect(m.windowSeconds).toBeCloseTo(OPLOG_BYTES / m.bytesPerSecond!, -1);
    expect(m.wrapped).toBeUndefined();
    // The reads happened outside the measured window: the servers' count still agrees with the clients'.
    expect(result.server?.checks.map((c) => c.status)).toEqual(['ok']);
    // No threshold given and none set on the server: no warning.
    expect(o.minWindowSeconds).toBeUndefined();
    expect((step.warnings ?? []).map((w) => w.code)).not.toContain('oplog-window');
  }, 60_000);

  it('--min-oplog-window 100h: the oplog-window warning names the threshold', async () => {
    const { r, result, out } = await run(['--min-oplog-window', '100h']);
    expect(r.code).toBe(0);
    const step = result.steps[0];
    expect(step.oplog?.minWindowSeconds).toBe(360_000);
    expect(step.oplog?.minWindowFrom).toBe('--min-oplog-window');
    const warning = (step.warnings ?? []).find((w) => w.code === 'oplog-window');
    expect(warning?.message).toContain('less than 4 d 4 h (--min-oplog-window)');
    expect(warning?.message).toContain(`127.0.0.1:${server.port}`);
    // The report says it from the result alone.
    const report = join(dir, 'report');
    expect((await runCli(['report', join(out, 'results.json'), '--out', report])).code).toBe(0);
    expect(readFileSync(join(report, 'summary.md'), 'utf8')).toContain('oplog-window');
  }, 60_000);
});

describe('--min-oplog-window', () => {
  const base = { uri: 'mongodb://127.0.0.1:1' };
  it('takes a duration: 1h, 90m, 45s, or seconds from a config file or the API', () => {
    expect(resolveRunOptions({ ...base, minOplogWindow: '1h' }).minOplogWindowSeconds).toBe(3600);
    expect(resolveRunOptions({ ...base, minOplogWindow: '90m' }).minOplogWindowSeconds).toBe(5400);
    expect(resolveRunOptions({ ...base, minOplogWindow: 45 }).minOplogWindowSeconds).toBe(45);
    expect(resolveRunOptions(base).minOplogWindowSeconds).toBeUndefined();
  });
  it('refuses what is not a duration, and a run without the sampler', () => {
    expect(() => resolveRunOptions({ ...base, minOplogWindow: 'soon' })).toThrow(
      /min-oplog-window.*expected a duration such as 1h/,
    );
    expect(() => resolveRunOptions({ ...base, minOplogWindow: '1h', serverStats: false })).toThrow(
      /needs the server sampler/,
    );
  });
});
