/**
 * Randomized interleaved trials (Abedi & Brecht, "Conducting Repeatable Experiments in Highly Variable
 * Cloud Computing Environments", ICPE 2017; Kalibera & Jones, "Rigorous Benchmarking in Reasonable
 * Time", 2013): several run configurations measured as randomized complete blocks. For each client
 * count, each round runs every configuration once, in an order drawn from a seeded generator; so a
 * machine that changes over minutes (another job, a warming cache, thermal limits) weighs on every
 * configuration alike, and a difference between them is a difference between configurations.
 *
 * Each configuration is an ordinary run (its own connection, its own loader once, its own warm-up per
 * trial, its own results.json); the runs go side by side, and a TrialScheduler gives them turns
 * (BenchmarkHooks.turn): one trial (with its set-up) or one data preparation at a time, trials in the
 * drawn order. A run that ends early (a failure, an interrupt) gives up its remaining turns.
 */
import { Prng } from '../workload/language/prng';
import { ResultDocument } from '../result';
import { runBenchmark, BenchmarkHooks } from './benchmark';
import { RunOptions } from './options/run-options';

/** The drawn order: per client count, per round, the configurations' indices in the order they ran. */
export interface InterleavedDesign {
  kind: 'randomized complete blocks';
  seed: number;
  rounds: number;
  order: { clients: number; rounds: number[][] }[];
}

/** Draws the order of every round: a seeded Fisher-Yates shuffle of the configurations per round. */
export function drawDesign(
  sides: number,
  clientCounts: readonly number[],
  rounds: number,
  seed: number,
): InterleavedDesign {
  const prng = new Prng(seed);
  const order = clientCounts.map((clients) => ({
    clients,
    rounds: Array.from({ length: rounds }, () => {
      const perm = Array.from({ length: sides }, (_, i) => i);
      for (let i = perm.length - 1; i > 0; i--) {
        const j = prng.nextBelow(i + 1);
        [perm[i], perm[j]] = [perm[j], perm[i]];
      }
      return perm;
    }),
  }));
  return { kind: 'randomized complete blocks', seed, rounds, order };
}

interface Slot {
  side: number;
  clients: number;
  trial: number;
}

/** Gives the runs their turns: one holder at a time; trials in the design's order. */
export class TrialScheduler {
  private readonly queue: Slot[];
  private holder: number | undefined;
  private readonly retired = new Set<number>();
  private waiters: (() => void)[] = [];

  constructor(design: InterleavedDesign) {
    this.queue = design.order.flatMap((o) =>
      o.rounds.flatMap((perm, r) =>
        perm.map((side) => ({ side, clients: o.clients, trial: r + 1 })),
      ),
    );
  }

  /** The BenchmarkHooks.turn of one run. */
  turnFor(side: number): NonNullable<BenchmarkHooks['turn']> {
    return async (kind, clients, trial) => {
      if (kind === 'trial') this.skipPassed(side, clients, trial);
      await this.until(
        () =>
          this.holder === undefined && (kind === 'prepare' || this.isNext(side, clients, trial)),
      );
      this.holder = side;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (kind === 'trial' && this.isNext(side, clients, trial)) this.queue.shift();
        if (this.holder === side) this.holder = undefined;
        this.wake();
      };
    };
  }

  /** A run that ended: its remaining slots are dropped and a turn it still held is freed. */
  retire(side: number): void {
    this.retired.add(side);
    for (let i = this.queue.length - 1; i >= 0; i--)
      if (this.queue[i].side === side) this.queue.splice(i, 1);
    if (this.holder === side) this.holder = undefined;
    this.wake();
  }

  private isNext(side: number, clients: number, trial: number): boolean {
    this.dropRetired();
    const head = this.queue[0];
    // A slot the design does not hold (more trials than rounds): the run goes when nothing else is due.
    if (!this.queue.some((s) => s.side === side && s.clients === clients && s.trial === trial))
      return true;
    return (
      head !== undefined && head.side === side && head.clients === clients && head.trial === trial
    );
  }

  /** A run asking for a later slot has moved past its earlier ones (a failed step): drop them. */
  private skipPassed(side: number, clients: number, trial: number): void {
    const at = this.queue.findIndex(
      (s) => s.side === side && s.clients === clients && s.trial === trial,
    );
    if (at < 0) return;
    for (let i = at - 1; i >= 0; i--) if (this.queue[i].side === side) this.queue.splice(i, 1);
    this.wake();
  }

  private dropRetired(): void {
    while (this.queue.length > 0 && this.retired.has(this.queue[0].side)) this.queue.shift();
  }

  private until(ready: () => boolean): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (ready()) resolve();
        else this.waiters.push(check);
      };
      this.waiters.push(check);
    });
  }

  private wake(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const check of waiting) check();
  }
}

export interface InterleavedRun {
  options: RunOptions;
  hooks?: Omit<BenchmarkHooks, 'turn'>;
}

/**
 * Runs the configurations' trials interleaved (see the module's comment). They must share client
 * counts and trials (the caller checks and says which key differs). Resolves with every run's result
 * (a run that failed rejects the whole, after every run has ended) and the design drawn.
 */
export async function runInterleaved(
  runs: readonly InterleavedRun[],
  seed: number,
): Promise<{ results: ResultDocument[]; design: InterleavedDesign }> {
  const first = runs[0].options;
  const design = drawDesign(runs.length, first.clients, first.trials, seed);
  const scheduler = new TrialScheduler(design);
  const settled = await Promise.allSettled(
    runs.map((run, side) =>
      runBenchmark(run.options, { ...run.hooks, turn: scheduler.turnFor(side) }).finally(() =>
        scheduler.retire(side),
      ),
    ),
  );
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return {
    results: settled.map((s) => (s as PromiseFulfilledResult<ResultDocument>).value),
    design,
  };
}
