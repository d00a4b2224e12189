/** index.html's layout for a run of one step: the timeline leads; no charts by client count with one point each. */
import { buildCharts } from '../../lib/report/chart-registry';
import { reportPageModel } from '../../lib/report/index-html';
import { syntheticResults } from '../history/synthetic';

/** A synthetic result with ten seconds of samples per step, so it has a timeline. */
function withSeconds(clients: number[], label: string) {
  const [r] = syntheticResults({ runs: 1, level: 1000, noise: 0, seed: 1, label, clients });
  return {
    ...r,
    steps: r.steps.map((s) => ({
      ...s,
      perSecond: Array.from({ length: 10 }, (_, t) => ({ t, reads: 900, writes: 100, errors: 0 })),
    })),
  };
}

const headings = (model: ReturnType<typeof reportPageModel>) =>
  model.blocks.flatMap((b) => (b.kind === 'section' ? [b.heading] : []));

describe('index.html: one step against a sweep', () => {
  it('one client count: the timeline first, no throughput or latency by client count', () => {
    const one = withSeconds([8], 'ramp');
    const sections = headings(reportPageModel([one], buildCharts([one])));
    expect(sections[0]).toBe("Over time: the clients' view and the servers'");
    expect(sections).not.toContain('Throughput by concurrent clients');
    expect(sections).not.toContain('Latency percentiles');
  });

  it('a sweep keeps its charts by client count first', () => {
    const sweep = withSeconds([1, 2, 4], 'sweep');
    const sections = headings(reportPageModel([sweep], buildCharts([sweep])));
    expect(sections.slice(0, 3)).toEqual([
      'Throughput by concurrent clients',
      'Latency percentiles',
      "Over time: the clients' view and the servers'",
    ]);
  });
});
