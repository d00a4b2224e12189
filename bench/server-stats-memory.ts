/**
 * Does a long step's memory stay flat with the server sampler on? Runs the sampler against four
 * in-process processes serving full serverStatus documents (test/support/server-status-double.ts),
 * one tick standing for one second (interval 2 ms), for N ticks, and prints the heap after a GC at
 * checkpoints: what remains per tick is the reduced snapshot (a few numbers), not the document.
 * Run: npm run bench:server-stats [-- ticks]  (default 3000)
 */
import { performance } from 'node:perf_hooks';
import { Sampler } from '../lib/server-stats/sampler';
import { snapshotOf, ServerSnapshot } from '../lib/server-stats/snapshot';
import { ServerStatusDouble } from '../test/support/server-status-double';

const ticks = Number(process.argv[2] ?? 3000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

async function main(): Promise<void> {
  const doubles = ['a', 'b', 'c', 'd'].map(
    () =>
      new ServerStatusDouble({
        version: '7.0',
        repl: { setName: 'rs', primary: true, hosts: ['a'] },
      }),
  );
  const docBytes = JSON.stringify(doubles[0].serverStatus()).length;
  const sampler = new Sampler<ServerSnapshot>(
    doubles.map((d, i) => ({
      id: `p${i}`,
      read: async () => (d.record('insert', 10), snapshotOf(d.serverStatus())),
    })),
    { intervalMs: 2 },
  );
  gc!();
  const base = process.memoryUsage().heapUsed;
  await sampler.start();
  const started = performance.now();
  const checkpoints = [ticks / 10, ticks / 2, ticks].map(Math.round);
  for (const at of checkpoints) {
    while (Object.values(sampler.snapshot())[0].length < at)
      await new Promise((r) => setTimeout(r, 50));
    gc!();
    const grown = process.memoryUsage().heapUsed - base;
    const readings = Object.values(sampler.snapshot()).reduce((n, l) => n + l.length, 0);
    console.log(
      `after ${at} ticks (= ${at} s of a step at 1 s): heap +${(grown / 1024).toFixed(0)} KiB for ${readings} readings = ${(grown / readings).toFixed(0)} bytes per reading (a serverStatus document here: ${docBytes} bytes as JSON)`,
    );
  }
  await sampler.stop({ finalSample: false });
  console.log(`took ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

void main();
