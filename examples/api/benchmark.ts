/**
 * Run a benchmark from code, watch its progress, stop it on Ctrl-C, write the report, and compare
 * with an earlier result.
 *
 *   npx tsx examples/api/benchmark.ts mongodb://127.0.0.1:27017 [baseline.json]
 */
import { benchmark, compare, renderComparisonText, renderReport, writeResult } from 'mongo-bench';

export async function main(uri: string, baselineFile?: string): Promise<number> {
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort('SIGINT')); // partial result, complete: false

  const result = await benchmark(
    {
      uri,
      workload: '6to1',
      clients: [1, 2, 4],
      seconds: 5,
      warmup: 1,
      docs: 1000,
      docSize: 512,
      label: 'example',
    },
    {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'step-start')
          console.log(`${event.clients} clients, trial ${event.trial}/${event.trials}`);
        if (event.type === 'step-done')
          console.log(`  ${Math.round(event.step.opsPerSec.total)} ops/s`);
      },
    },
  );
  await writeResult('reports/api-example/results.json', result);
  const { files } = await renderReport(result, 'reports/api-example');
  console.log(`report: ${files.length} files in reports/api-example`);

  if (!baselineFile) return 0;
  const comparison = await compare(baselineFile, result, {
    threshold: 5,
    out: 'reports/api-example/compare',
  });
  console.log(renderComparisonText(comparison));
  return comparison.regression ? 1 : 0;
}

if (require.main === module) {
  main(process.argv[2] ?? 'mongodb://127.0.0.1:27017', process.argv[3]).then(
    (code) => (process.exitCode = code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exitCode = 2;
    },
  );
}
