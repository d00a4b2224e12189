/** summary.md for a run through agents: the agents, their clocks and each one's share of every step. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ResultDocument } from '../../lib/result';
import { renderSummaryMarkdown } from '../../lib/report/summary-md';
import { formatStepTable } from '../../lib/metrics/format-step';
import { sweepAdvice } from '../../lib/metrics/client-load';

const base = JSON.parse(
  readFileSync(join(__dirname, '..', 'fixtures', 'result-complete.json'), 'utf8'),
) as ResultDocument;
const latency = (p99: number, count: number) => ({
  avg: p99 / 2,
  p50: p99 / 2,
  p95: p99,
  p99,
  p999: p99,
  max: p99,
  count,
});

describe('summary.md of a run through agents', () => {
  it("lists the agents with their clock offsets and each agent's share of each step", () => {
    const step = base.steps[0];
    const result: ResultDocument = {
      ...base,
      agents: {
        controlUri: 'mongodb://127.0.0.1:27017/',
        controlDb: 'mongo_bench_control',
        runId: 'r1',
        coordinatorClockOffsetMs: 0.4,
        agents: [
          {
            name: 'k1',
            host: 'load-1',
            cores: 16,
            version: '0.1.0',
            clockOffsetMs: -2.25,
            clockRttMs: 0.8,
          },
          {
            name: 'k2',
            host: 'load-2',
            cores: 16,
            version: '0.1.0',
            clockOffsetMs: 7.5,
            clockRttMs: 1.1,
          },
        ],
      },
      steps: [
        {
          ...step,
          agents: [
            {
              agent: 'k1',
              first: 0,
              count: 1,
              status: 'ok',
              ops: { reads: 600, writes: 100, errors: 0 },
              opsPerSec: 700,
              latencyMicros: { reads: latency(2500, 600), writes: latency(4000, 100) },
              clientBound: false,
            },
            {
              agent: 'k2',
              first: 1,
              count: 3,
              status: 'lost',
              ops: { reads: 60, writes: 10, errors: 2 },
              opsPerSec: 70,
              clientBound: true,
            },
          ],
        },
        ...base.steps.slice(1),
      ],
    };
    const md = renderSummaryMarkdown([result], []);
    expect(md).toContain('### Agents');
    expect(md).toContain('| k1 | load-1 | 16 | 0.1.0 | -2.3 | 0.8 |');
    expect(md).toContain('| k2 | load-2 | 16 | 0.1.0 | 7.5 | 1.1 |');
    expect(md).toMatch(
      new RegExp(
        `\\| ${step.clients} \\| k1 \\| 0 \\| ok \\| 700 \\| 2\\.5\\d* \\| 4\\.0*\\d* \\| 0 \\| no \\|`,
      ),
    );
    expect(md).toMatch(
      new RegExp(
        `\\| ${step.clients} \\| k2 \\| 1\\.\\.3 \\| lost \\| 70 \\| – \\| – \\| 2 \\| yes \\|`,
      ),
    );
  });

  it("the step table and the advice speak of agents, not of this machine's worker threads", () => {
    const step = {
      ...base.steps[0],
      client: { workers: 3, eventLoopUtilization: [0.5, 0.97, 0.6], cpuPercent: 210, cores: 6 },
      clientBound: true,
      agents: [
        {
          agent: 'k1',
          first: 0,
          count: 1,
          status: 'ok' as const,
          ops: { reads: 1, writes: 0, errors: 0 },
          opsPerSec: 1,
        },
        {
          agent: 'k2',
          first: 1,
          count: 2,
          status: 'ok' as const,
          ops: { reads: 1, writes: 0, errors: 0 },
          opsPerSec: 1,
        },
      ],
    };
    expect(formatStepTable(step)).toContain(
      'load generator: 2 agents with 3 event loops in all, busiest 97% busy, CPU 210% of a core in all',
    );
    const advice = sweepAdvice([step])!;
    expect(advice).toContain("at least one agent's event loop was saturated");
    expect(advice).toContain('more agents');
    expect(advice).not.toContain('--workers 4)');
  });

  it('says nothing about agents for a run without them', () => {
    expect(renderSummaryMarkdown([base], [])).not.toContain('### Agents');
  });
});
