/**
 * The server and cluster half of the run's write plan (lib/run/options/run-write-plan.ts), before
 * anything connects: every change a run makes to a cluster it did not start is an entry with its
 * consent (--setup's data distribution, a scenario's events), the entries that are set back at the end
 * say how, --dry-run prints both, and a change without its consent is refused at once (exit 2).
 */
import { resolveRunPlan } from '../../lib/run/options/run-plan';
import type { RunFlags } from '../../lib/run/options/run-options';
import { planProblems, RunWritePlan } from '../../lib/run/options/run-write-plan';
import { renderDryRun } from '../../lib/run/options/dry-run';
import { describeEntry, ServerEntry } from '../../lib/server/write-plan';

const URI = 'mongodb://127.0.0.1:1';
const plan = (flags: Partial<RunFlags>) => resolveRunPlan(flags as RunFlags, { env: {} });
const servers = (p: RunWritePlan) => p.entries.filter((e): e is ServerEntry => e.kind === 'server');

describe("the run's cluster changes", () => {
  it('--setup lists each change with --setup as its consent; the balancer and the chunk size say what is set back', () => {
    const p = plan({ uri: URI, setup: true, presplit: '0:100', chunkSize: 64 }).writePlan;
    expect(servers(p).map((e) => [e.change, e.consent, e.restore !== undefined])).toEqual([
      ['enable-sharding', '--setup', false],
      ['shard-collection', '--setup', false],
      ['chunk-size', '--setup', true],
      ['split', '--setup', false],
      ['move-chunk', '--setup', false],
      // A pre-split stops the balancer for its splits and moves, also without --stop-balancer.
      ['balancer', '--setup', true],
    ]);
    const chunk = servers(p).find((e) => e.change === 'chunk-size')!;
    expect(chunk.ns).toBe('mongo_bench.docs');
    expect(describeEntry(chunk)).toMatch(
      /^chunk-size on cluster \[--setup\]: chunk size 64 MB .*\(restored at the end: the chunk size as found: config\.settings chunksize back to its old value, or removed/,
    );
    expect(describeEntry(servers(p).find((e) => e.change === 'balancer')!)).toBe(
      "balancer on cluster [--setup]: stop the balancer for the splits and moves, then start it again if it was running (restored at the end: the balancer's mode as found before the run (balancerStatus): started again if it was running, stopped again if it was off)",
    );
    expect(
      describeEntry(
        servers(plan({ uri: URI, setup: true, stopBalancer: true }).writePlan).find(
          (e) => e.change === 'balancer',
        )!,
      ),
    ).toMatch(
      /^balancer on cluster \[--setup\]: stop the balancer for the run \(restored at the end: /,
    );
    expect(planProblems(p)).toBeUndefined();
  });

  it("a scenario's balancer and step-down events are listed, each with the event as its consent", () => {
    const full = plan({
      uri: URI,
      ...({
        scenarios: [
          {
            name: 'w',
            ops: [{ op: 'insert', doc: { a: 1 } }],
            rate: 10,
            duration: '20s',
            events: [
              { at: '2s', action: 'stopBalancer' },
              { at: '5s', action: 'startBalancer' },
              { at: '8s', action: 'stepDown', seconds: 30 },
            ],
          },
        ],
      } as object),
    });
    const p = full.writePlan;
    expect(p.consents.has('event')).toBe(true);
    expect(servers(p).map((e) => [e.change, e.target, e.consent, e.restore !== undefined])).toEqual(
      [
        ['balancer', 'cluster', 'event', true],
        ['balancer', 'cluster', 'event', true],
        ['step-down', 'the primary', 'event', false],
      ],
    );
    expect(describeEntry(servers(p)[0])).toMatch(
      /^balancer on cluster \[a configured event\]: scenario w's stopBalancer at 2 s \(balancerStop\) \(restored at the end: the balancer's mode as found/,
    );
    expect(planProblems(p)).toBeUndefined();
    const text = renderDryRun(full);
    expect(text).toContain("the cluster changes of the scenarios' events, listed under Writes");
    expect(text).toContain(
      "  step-down on the primary [a configured event]: scenario w's stepDown at 8 s (replSetStepDown 30 s",
    );
  });

  it('--dry-run prints every cluster change and what is set back at the end', () => {
    const text = renderDryRun(
      plan({
        uri: URI,
        setup: true,
        presplit: '0:100',
        stopBalancer: true,
        chunkSize: 64,
        dryRun: true,
      }),
    );
    expect(text).toContain(
      '  at the end (also after Ctrl-C or SIGTERM): the balancer started again if it was running, the chunk size set back as found; the sharding, splits and moves are kept',
    );
    expect(text).toMatch(
      /\n {2}balancer on cluster \[--setup\]: stop the balancer for the run \(restored at the end: /,
    );
    expect(text).toMatch(/\n {2}chunk-size on cluster \[--setup\]: .*\(restored at the end: /);
  });

  it('a change without its consent is refused before anything connects (exit 2), naming the change and the consent', () => {
    const entry = (
      change: ServerEntry['change'],
      consent: ServerEntry['consent'],
    ): ServerEntry => ({
      kind: 'server',
      change,
      target: 'cluster',
      detail: `${change} detail`,
      consent,
    });
    const refused: RunWritePlan = {
      ours: false,
      consents: new Set(['--setup']),
      entries: [
        entry('split', '--setup'),
        entry('balancer', 'event'),
        entry('server-parameter', '--allow-server-changes'),
      ],
      unplannable: [],
    };
    expect(planProblems(refused)?.split('\n')).toEqual([
      "nothing was written: 2 of the run's writes are refused",
      '  - balancer on cluster [a configured event]: balancer detail: changes a deployment mongo-bench did not start; event allows it (a configured event makes the change it names)',
      '  - server-parameter on cluster [--allow-server-changes]: server-parameter detail: changes a deployment mongo-bench did not start; --allow-server-changes allows it (changes server parameters)',
    ]);
    // On a deployment mongo-bench starts everything is its own.
    expect(planProblems({ ...refused, ours: true })).toBeUndefined();
  });
});
