/**
 * Randomized interleaved trials (Abedi & Brecht, "Conducting Repeatable Experiments in Highly Variable
 * Cloud Computing Environments", ICPE 2017; Kalibera & Jones, "Rigorous Benchmarking in Reasonable
 * Time", 2013): several run configurations measured as randomized complete blocks. For each client
 * count, each round runs every configuration once; so a machine that changes over minutes (another
 * job, a warming cache, thermal limits) weighs on every configuration alike, and a difference between
 * them is a difference between configurations.
 *
 * The order guards against a position effect (the slot after another configuration's trial runs on a
 * server that configuration warmed or dirtied): first an unmeasured round of every configuration, so
 * no measured trial takes the server's cold start; then the rounds in pairs, an order drawn from a
 * seeded generator and its reverse (AB then BA, or BA then AB), so that each configuration holds each
 * slot equally often; an odd last round is drawn alone.
 *
 * Each configuration is an ordinary run (its own connection, its own loader once, its own warm-up per
 * trial, its own results.json); the runs go side by side, and a TrialScheduler gives them turns
 * (BenchmarkHooks.turn): one trial (with its set-up) or one data preparation at a time, trials in the
 * drawn order. Every run waits at connect (BenchmarkHooks.connected) until all have connected and
 * identified their servers, so that what the servers alone decide (a refusal) is decided before the
 * first trial. A run that ends early (a failure, an interrupt) gives up its remaining turns.
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
  /** The unmeasured first round (trial 0), before the first client count's measured rounds. */
  unmeasured: { clients: number; order: number[] };
  /** Measured rounds: rounds 1 and 2 a pair (an order and its reverse), 3 and 4, ...; an odd last alone. */
  order: { clients: number; rounds: number[][] }[];
}

/** The trial number of the unmeasured first round (measured trials count from 1). */
export const UNMEASURED_TRIAL = 0;

/**
 * Draws the order of every round: a seeded Fisher-Yates shuffle for the unmeasured round, then one
 * per pair of measured rounds (the pair's second round runs the reverse), one for an odd last round.
 */
export function drawDesign(
  sides: number,
  clientCounts: readonly number[],
  rounds: number,
  seed: number,
): InterleavedDesign {
  const prng = new Prng(seed);
  const shuffle = (): number[] => {
    const perm = Array.from({ length: sides }, (_, i) => i);
    for (let i = perm.length - 1; i > 0; i--) {
      const j = prng.nextBelow(i + 1);
      [perm[i], perm[j]] = [perm[j], perm[i]];
    }
    return perm;
  };
  const unmeasured = { clients: clientCounts[0], order: shuffle() };
  const order = clientCounts.map((clients) => {
    const drawn: number[][] = [];
    while (drawn.length < rounds) {
      const perm = shuffle();
      drawn.push(perm);
      if (drawn.length < rounds) drawn.push([...perm].reverse());
    }
    return { clients, rounds: drawn };
  });
  return { kind: 'randomized complete blocks', seed, rounds, unmeasured, order };
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
    const unmeasured = design.unmeasured.order.map((side) => ({
      side,
      clients: design.unmeasured.clients,
      trial: UNMEASURED_TRIAL,
    }));
    this.queue = [
      ...unmeasured,
      ...design.order.flatMap((o) =>
        o.rounds.flatMap((perm, r) =>
          perm.map((side) => ({ side, clients: o.clients, trial: r + 1 })),
        ),
      ),
    ];
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
  hooks?: Omit<BenchmarkHooks, 'turn' | 'connected' | 'unmeasuredRound'>;
}

/** What a run waiting at connect is told when another run ended before it connected: that run's failure is the one reported. */
class StoppedAtConnect extends Error {
  constructor() {
    super('stopped at connect: another configuration ended before it connected');
  }
}

/**
 * Holds every run at connect until all have connected (or ended), then decides once: `check` sees
 * every server as identified (it throws to refuse them); a run that ended before connecting stops
 * the others there.
 */
function connectBarrier(
  count: number,
  check: ((targets: ResultDocument['target'][]) => void) | undefined,
): {
  connected: (side: number) => NonNullable<BenchmarkHooks['connected']>;
  ended: (side: number) => void;
} {
  const arrivals = Array.from({ length: count }, () => {
    let arrive: (target: ResultDocument['target'] | undefined) => void = () => undefined;
    const arrived = new Promise<ResultDocument['target'] | undefined>((resolve) => {
      arrive = resolve;
    });
    return { arrive, arrived };
  });
  const decision = Promise.all(arrivals.map((a) => a.arrived)).then((targets) => {
    if (targets.some((t) => t === undefined)) throw new StoppedAtConnect();
    check?.(targets as ResultDocument['target'][]);
  });
  // Nobody may await the decision (every run failed before connecting): no unhandled rejection.
  decision.catch(() => undefined);
  return {
    connected: (side) => async (target) => {
      arrivals[side].arrive(target);
      await decision;
    },
    ended: (side) => arrivals[side].arrive(undefined),
  };
}

/**
 * Runs the configurations' trials interleaved (see the module's comment). They must share client
 * counts and trials (the caller checks and says which key differs). `check` sees every server once
 * all have connected, before any data is prepared or any trial run: what it throws (a UsageError
 * refusing these servers) ends every run there and is what rejects. Resolves with every run's result
 * (a run that failed rejects the whole, after every run has ended) and the design drawn.
 */
export async function runInterleaved(
  runs: readonly InterleavedRun[],
  seed: number,
  check?: (targets: ResultDocument['target'][]) => void,
): Promise<{ results: ResultDocument[]; design: InterleavedDesign }> {
  const first = runs[0].options;
  const design = drawDesign(runs.length, first.clients, first.trials, seed);
  const scheduler = new TrialScheduler(design);
  const barrier = connectBarrier(runs.length, check);
  const settled = await Promise.allSettled(
    runs.map((run, side) =>
      runBenchmark(run.options, {
        ...run.hooks,
        turn: scheduler.turnFor(side),
        connected: barrier.connected(side),
        unmeasuredRound: true,
      }).finally(() => {
        barrier.ended(side);
        scheduler.retire(side);
      }),
    ),
  );
  const failures = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
  const failed = failures.find((f) => !(f instanceof StoppedAtConnect)) ?? failures[0];
  if (failures.length > 0) throw failed;
  return {
    results: settled.map((s) => (s as PromiseFulfilledResult<ResultDocument>).value),
    design,
  };
}
