/**
 * How hard the load generator itself worked during a step: each worker's event-loop utilization
 * (ELU: the share of wall time its loop was running code rather than waiting for replies) and the
 * process's CPU. A loop that was almost never idle could not issue ops any faster: the step measured
 * mongo-bench, not the server, and is marked client-bound.
 */
import { availableParallelism } from 'node:os';
import { performance, EventLoopUtilization } from 'node:perf_hooks';
import type { ClientLoad, StepResult } from '../result';
import { counted } from '../common/values';

export type { ClientLoad };

/** A worker whose loop was busier than this (share of the measured window) makes the step client-bound. */
export const CLIENT_BOUND_ELU = 0.9;

/** The ELU a worker should stay under for headroom; the estimate of workers needed aims at it. */
export const COMFORTABLE_ELU = 0.75;

/** What one event loop (a worker thread, or the main thread with --workers 1) measured over its window. */
export interface LoopReading {
  /** 0..1: busy share of the loop over the window, polling for exact due times left out. */
  eventLoopUtilization: number;
  /** 0..1: the share of the window the loop spent polling for exact due times (absent: none). */
  pollingUtilization?: number;
  /** Process CPU (user + system, all threads) over the window, microseconds. */
  cpuMicros: number;
  /** The window's wall time, microseconds. */
  wallMicros: number;
}

/** Cores available to this process. */
export function availableCores(): number {
  return availableParallelism();
}

/**
 * Starts measuring now; `read()` gives the figures since then. `pollingMs`: the loop's running total of
 * time spent polling for due times (the open model's exact arrivals): a loop that polls never idles, so
 * ELU alone would read it as saturated; that time is taken out of its busy time and reported apart.
 */
export class LoadProbe {
  private readonly elu: EventLoopUtilization = performance.eventLoopUtilization();
  private readonly cpu = process.cpuUsage();
  private readonly startedAt = performance.now();
  private readonly polledAtStart: number;

  constructor(private readonly pollingMs?: () => number) {
    this.polledAtStart = pollingMs?.() ?? 0;
  }

  read(): LoopReading {
    const elu = performance.eventLoopUtilization(this.elu);
    const cpu = process.cpuUsage(this.cpu);
    const total = elu.active + elu.idle;
    const polled = Math.min(
      elu.active,
      Math.max(0, (this.pollingMs?.() ?? this.polledAtStart) - this.polledAtStart),
    );
    // One window for every share: the loop's own (active + idle) where it has one. A separate clock read
    // after it would count a preemption between the two reads into the window of one figure only.
    const windowMs = total > 0 ? total : performance.now() - this.startedAt;
    return {
      eventLoopUtilization: round3(total > 0 ? (elu.active - polled) / total : elu.utilization),
      ...(polled > 0 && total > 0 ? { pollingUtilization: round3(polled / total) } : {}),
      cpuMicros: cpu.user + cpu.system,
      wallMicros: Math.round(windowMs * 1000),
    };
  }
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
export const round1 = (x: number): number => Math.round(x * 10) / 10;

export function cpuPercentOf(reading: Pick<LoopReading, 'cpuMicros' | 'wallMicros'>): number {
  return reading.wallMicros > 0 ? round1((reading.cpuMicros / reading.wallMicros) * 100) : 0;
}

export function isClientBound(load: Pick<ClientLoad, 'eventLoopUtilization'>): boolean {
  return load.eventLoopUtilization.some((u) => u > CLIENT_BOUND_ELU);
}

/** Several trials of one step: per worker, the busiest trial (a saturated trial is what matters). */
export function mergeClientLoads(loads: ClientLoad[]): ClientLoad | undefined {
  if (loads.length === 0) return undefined;
  const workers = Math.max(...loads.map((l) => l.workers));
  const eventLoopUtilization = Array.from({ length: workers }, (_, w) =>
    Math.max(0, ...loads.map((l) => l.eventLoopUtilization[w] ?? 0)),
  );
  const polling = loads.some((l) => l.pollingUtilization)
    ? {
        pollingUtilization: Array.from({ length: workers }, (_, w) =>
          Math.max(0, ...loads.map((l) => l.pollingUtilization?.[w] ?? 0)),
        ),
      }
    : {};
  return {
    workers,
    eventLoopUtilization,
    ...polling,
    cpuPercent: Math.max(...loads.map((l) => l.cpuPercent)),
    cores: loads[0].cores,
  };
}

/**
 * An estimate of the workers a client-bound step would have needed for every loop to sit at
 * COMFORTABLE_ELU: workers x busiest ELU / 0.75, rounded up. A saturated loop reads at most 100%, so
 * it hides how far past saturation the step was: the true need can be higher (say so).
 */
export function workersNeeded(load: Pick<ClientLoad, 'workers' | 'eventLoopUtilization'>): number {
  const busiest = Math.max(0, ...load.eventLoopUtilization);
  return Math.max(load.workers + 1, Math.ceil((load.workers * busiest) / COMFORTABLE_ELU));
}

/** The client counts of the steps that were client-bound. */
export function clientBoundClients(steps: readonly StepResult[]): number[] {
  return steps.filter((s) => s.clientBound === true).map((s) => s.clients);
}

const BOTTLENECK = 'mongo-bench was the bottleneck here';
const MEANING = 'these figures measure the load generator; use more workers or more machines';

/** The words every output uses for a client-bound step. */
export const CLIENT_BOUND_MESSAGE = `${BOTTLENECK}: ${MEANING}`;

/** The warning, in two lines short enough for a chart: which steps (of which result), and what it means. */
export function clientBoundWarningLines(
  clients: readonly number[],
  label?: string,
): [string, string] {
  const which =
    clients.length === 1 && clients[0] === 1 ? '1 client' : `${clients.join(', ')} clients`;
  return [`CLIENT-BOUND at ${which}${label ? ` (${label})` : ''}: ${BOTTLENECK}:`, MEANING];
}

/** One line for a step's load: "2 workers, busiest event loop 97% busy, process CPU 190% of a core". */
export function describeClientLoad(load: ClientLoad): string {
  const busiest = Math.max(0, ...load.eventLoopUtilization);
  return `${load.workers} worker${load.workers === 1 ? '' : 's'}, busiest event loop ${Math.round(busiest * 100)}% busy, process CPU ${Math.round(load.cpuPercent)}% of a core`;
}

/** The same for a step run by agents: their load side by side (lib/agents/merge.ts). */
export function describeAgentsLoad(load: ClientLoad, agents: number): string {
  const busiest = Math.max(0, ...load.eventLoopUtilization);
  return `${agents} agent${agents === 1 ? '' : 's'} with ${load.workers} event loop${load.workers === 1 ? '' : 's'} in all, busiest ${Math.round(busiest * 100)}% busy, CPU ${Math.round(load.cpuPercent)}% of a core in all`;
}

/**
 * What to say at the end of a sweep with client-bound steps: how many workers (and cores) it would
 * have needed, as an estimate. Undefined when no step was client-bound.
 */
export function sweepAdvice(steps: readonly StepResult[]): string | undefined {
  const bound = steps.filter((s) => s.clientBound === true && s.client);
  if (bound.length === 0) return undefined;
  const needed = Math.max(...bound.map((s) => workersNeeded(s.client!)));
  const cores = bound[0].client!.cores;
  const machine =
    needed + 1 > cores
      ? ` This machine has ${cores} core${cores === 1 ? '' : 's'}: run from a bigger one, or split the clients over several machines.`
      : '';
  if (bound.some((s) => s.agents?.length)) {
    return (
      `mongo-bench was the bottleneck at ${counted(clientBoundClients(steps), 'client')}: at least one agent's event loop was saturated (steps[].agents says which). ` +
      `Estimate: about ${needed} event loops in all (more agents, or agents on bigger machines with more --workers) would keep every loop under ${Math.round(COMFORTABLE_ELU * 100)}% busy; a saturated loop reads 100% however far past its limit it is, so take this as a lower bound.`
    );
  }
  return (
    `mongo-bench was the bottleneck at ${counted(clientBoundClients(steps), 'client')}. ` +
    `Estimate: about ${needed} worker threads (--workers ${needed}) on ${needed + 1} cores, one per worker plus the main thread, would keep every event loop under ${Math.round(COMFORTABLE_ELU * 100)}% busy. ` +
    `A saturated loop reads 100% however far past its limit it is, so take this as a lower bound.${machine}`
  );
}
