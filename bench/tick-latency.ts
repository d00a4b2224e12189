/**
 * npx tsx bench/tick-latency.ts -- [--records 20000000] [--rounds 5]
 *
 * What the engine adds per op for the tick's latency buckets (lib/metrics/tick-latency.ts, read by
 * --metrics-port): TickLatency.record alone, over latencies spread from 20 µs to about half a second (a
 * deeper bucket search than most workloads make). Prints CPU ns per record for each round and the median;
 * set it beside `npm run bench:engine-loop` (the whole loop's CPU µs per op).
 */
import { UsageError } from '../lib/config/errors';
import { intArg } from '../lib/config/validate';
import { TickLatency } from '../lib/metrics/tick-latency';
import { median } from '../lib/metrics/trial-stats';

function parseArgs(argv: string[]): { records: number; rounds: number } {
  const args = { records: 20_000_000, rounds: 5 };
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    if (flag !== '--records' && flag !== '--rounds')
      throw new UsageError(`unknown option ${flag} (options: --records, --rounds)`);
    const n = intArg(flag)(argv[i + 1] ?? '');
    if (n < 1) throw new UsageError(`option ${flag}: must be at least 1, got ${n}`);
    args[flag.slice(2) as keyof typeof args] = n;
  }
  return args;
}

function main(): void {
  const { records, rounds } = parseArgs(process.argv.slice(2));
  const t = new TickLatency();
  // 20 µs growing by 0.4% a step: 4096 values up to ~0.5 s.
  const values = Float64Array.from({ length: 4096 }, (_, i) => 20 * Math.pow(1.004, i));
  const perRecord: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const before = process.cpuUsage();
    // Series 2 and 3: measured reads and writes, alternately.
    for (let i = 0; i < records; i++) t.record(2 + (i & 1), values[i & 4095]);
    const used = process.cpuUsage(before);
    t.take();
    const ns = ((used.user + used.system) * 1000) / records;
    perRecord.push(ns);
    console.log(`round ${round}: ${ns.toFixed(2)} CPU ns per record`);
  }
  console.log(`median: ${median(perRecord).toFixed(2)} CPU ns per record`);
}

main();
