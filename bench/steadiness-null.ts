/**
 * npm run bench:steadiness-null
 *
 * The not-steady warning on real steady runs: 8 runs of 15 s steps at 1 and 4 clients against the null
 * server (lib/calibrate/null-server.ts, its own process: a server that does not change), printing each
 * step's trend test and how many steps were flagged. The null server's figures are the load generator's,
 * never MongoDB's; on a shared machine, other work can move them within a step.
 */
import { spawnNullServer } from '../lib/calibrate/null-server-process';
import { NULL_SERVER_NS } from '../lib/calibrate/null-server';
import { runBenchmark } from '../lib/run/benchmark';
import { resolveRunOptions } from '../lib/run/options/run-options';
async function main(): Promise<void> {
  const server = await spawnNullServer();
  let alarms = 0;
  let steps = 0;
  try {
    for (let i = 0; i < 8; i++) {
      const o = resolveRunOptions({
        uri: server.uri,
        clients: [1, 4],
        seconds: 15,
        warmup: 2,
        load: false,
        serverStats: false,
        workers: 1,
        testDouble: true,
        ns: NULL_SERVER_NS,
        workload: '6to1',
      });
      o.outDir = undefined;
      const r = await runBenchmark(o);
      for (const s of r.steps) {
        steps++;
        const t = s.steadiness!.perSecond[0];
        const ns = s.warnings?.some((w) => w.code === 'not-steady');
        if (ns) alarms++;
        console.log(
          `run ${i} clients ${s.clients}: ${s.opsPerSec.total} ops/s, n ${t.n}, p ${t.pValue}, change ${t.changePercent}%, not-steady ${ns}`,
        );
      }
    }
  } finally {
    await server.stop();
  }
  console.log(`not-steady on ${alarms} of ${steps} steady null-server steps`);
}
void main();
