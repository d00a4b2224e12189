import vm from 'node:vm';
import { ObjectId } from 'mongodb';
import {
  renderLegacyBenchRunScript,
  scriptFileName,
  shellLiteral,
} from '../../lib/workload/language/legacy-script';
import { presetOps } from '../../lib/workload/language/presets';

interface BenchRunArgs {
  ops: Record<string, unknown>[];
  parallel: number;
  seconds: number;
  host: string;
  randomSeed: number;
}

/** Runs the script as the legacy shell would, with a stand-in benchRun() that returns NumberLong-like counts. */
function runInFakeShell(script: string): { calls: BenchRunArgs[]; lines: string[] } {
  const calls: BenchRunArgs[] = [];
  const lines: string[] = [];
  const numberLong = (n: number) => ({ toNumber: () => n });
  const sandbox = {
    print: (s: string) => lines.push(s),
    db: { getMongo: () => ({ host: '127.0.0.1:27017' }) },
    benchRun: (args: BenchRunArgs) => {
      calls.push(JSON.parse(JSON.stringify(args)));
      return {
        note: 'values per second',
        errCount: numberLong(0),
        totalOps: numberLong(70 * args.parallel),
        'totalOps/s': 7 * args.parallel,
        findOne: 6 * args.parallel,
        update: args.parallel,
      };
    },
    ObjectId: (hex: string) => ({ $oid: hex }),
  };
  vm.runInNewContext(script, sandbox);
  return { calls, lines };
}

describe('renderLegacyBenchRunScript', () => {
  const workload = {
    name: '6to1',
    ops: presetOps('6to1', { ns: 'mongo_bench.docs', docs: 1000, docSize: 1024 }),
  };

  it('sweeps 1, 2, 4, ... max clients with benchRun() and prints one JSON line per client count', () => {
    const script = renderLegacyBenchRunScript({
      workload,
      maxClients: 8,
      seconds: 5,
      randomSeed: 99,
    });
    const { calls, lines } = runInFakeShell(script);
    expect(calls.map((c) => c.parallel)).toEqual([1, 2, 4, 8]);
    expect(
      calls.every((c) => c.seconds === 5 && c.host === '127.0.0.1:27017' && c.randomSeed === 99),
    ).toBe(true);
    expect(lines).toHaveLength(4);
    const parsed = lines.map((l) => JSON.parse(l));
    expect(parsed.map((p) => p.clients)).toEqual([1, 2, 4, 8]);
    expect(parsed[3]).toMatchObject({
      workload: '6to1',
      seconds: 5,
      totalOps: 560,
      errCount: 0,
      'totalOps/s': 56,
    });
  });

  it('passes the workload ops as recent legacy shells require them', () => {
    const { calls } = runInFakeShell(
      renderLegacyBenchRunScript({ workload, clients: [3], writeConcern: { w: 1 } }),
    );
    const ops = calls[0].ops;
    expect(ops).toHaveLength(7);
    expect(ops[0]).toEqual({
      op: 'findOne',
      ns: 'mongo_bench.docs',
      query: { _id: { '#RAND_INT': [0, 1000] } },
      readCmd: true,
    });
    expect(ops[6]).toMatchObject({
      op: 'update',
      ns: 'mongo_bench.docs',
      writeCmd: true,
      writeConcern: { w: 1 },
      update: { $inc: { counter: 1 } },
    });
  });

  it('fills ns, maps readPreference to readPrefMode and drops safe', () => {
    const { calls } = runInFakeShell(
      renderLegacyBenchRunScript({
        workload: {
          name: 'mine',
          ops: [
            { op: 'find', query: {}, readPreference: { mode: 'secondary' } },
            { op: 'insert', doc: { a: 1 }, safe: true },
            { op: 'let', target: 'x', value: 1 },
          ],
        },
        clients: [1],
        ns: 'db1.c1',
      }),
    );
    expect(calls[0].ops).toEqual([
      { op: 'find', query: {}, readPrefMode: 'secondary', ns: 'db1.c1', readCmd: true },
      { op: 'insert', doc: { a: 1 }, ns: 'db1.c1', writeCmd: true },
      { op: 'let', target: 'x', value: 1 },
    ]);
  });

  it('writes BSON values as shell literals and names the file after the workload', () => {
    expect(shellLiteral({ _id: new ObjectId('5f0000000000000000000000'), d: new Date(5) })).toBe(
      '{"_id": ObjectId("5f0000000000000000000000"), "d": new Date(5)}',
    );
    expect(scriptFileName('6to1')).toBe('benchrun-6to1.js');
    expect(scriptFileName('my workload/x')).toBe('benchrun-my_workload_x.js');
  });
});
