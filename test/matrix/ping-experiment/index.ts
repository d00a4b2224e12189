/**
 * A small experiment, all in this folder: the round-trip time of `ping`, one command at a time. It is
 * registered by the test that uses it (registerExperiment), which is the only other line it needs.
 */
import { z } from 'zod';
import { Experiment, RunContext, RunOutcome } from '../../../lib/experiments/experiment';
import { positiveInt } from '../../../lib/experiments/parameters';

const PARAMETERS = z.object({ pings: positiveInt('pings') }).strict();

async function run(ctx: RunContext): Promise<RunOutcome> {
  const { pings } = ctx.parameters as z.output<typeof PARAMETERS>;
  const samplesMs: number[] = [];
  for (let i = 0; i < pings && !ctx.signal?.aborted; i++) {
    const started = performance.now();
    await ctx.client.db('admin').command({ ping: 1 });
    samplesMs.push(performance.now() - started);
  }
  ctx.progress(`${samplesMs.length} pings`);
  const avg = samplesMs.reduce((a, b) => a + b, 0) / Math.max(1, samplesMs.length);
  return {
    status: ctx.signal?.aborted ? 'interrupted' : 'ok',
    measures: { avgMs: avg, maxMs: Math.max(...samplesMs), pings: samplesMs.length },
    details: { firstMs: samplesMs[0] ?? null },
  };
}

export const ping: Experiment = {
  name: 'ping',
  description: 'round-trip time of the ping command, one at a time',
  parameters: PARAMETERS,
  sizing: {
    full: { pings: 50 },
    scaled: 'pings',
    defaultScale: 1,
    scaleNote: '--scale 1 = 50 pings per configuration',
  },
  preset: [{ label: 'ping' }],
  run,
  // It writes no file of its own.
  files: { configuration: [] },
  measures: [
    { key: 'avgMs', csv: 'avg_ms', title: 'Average', unit: 'ms' },
    { key: 'maxMs', csv: 'max_ms', title: 'Max', unit: 'ms' },
    { key: 'pings', csv: 'pings', title: 'Pings', unit: 'count' },
  ],
  charts: [
    {
      file: 'ping-latency.png',
      title: 'ping round trip by configuration',
      yTitle: 'ms',
      measures: ['avgMs', 'maxMs'],
      scale: 'linear',
    },
  ],
  notes: ['ping measures the round trip only: no data is read or written.'],
};
