/**
 * The experiments a matrix can run, by name: the only list of them. A new experiment is one folder
 * implementing Experiment plus one line here (or a registerExperiment call).
 */
import { Experiment } from './experiment';
import { indexCost } from './index-cost';
import { most } from './most';
import { presplitImport } from './presplit-import/one-way';
import { softlayer } from './softlayer';
import { writeConcernLatency } from './write-concern-latency';

const EXPERIMENTS = new Map<string, Experiment>(
  [most, writeConcernLatency, softlayer, presplitImport, indexCost].map((e) => [
    e.name,
    e as Experiment,
  ]),
);

export function registerExperiment<Kept>(experiment: Experiment<Kept>): void {
  if (EXPERIMENTS.has(experiment.name))
    throw new Error(`experiment "${experiment.name}" is already registered`);
  EXPERIMENTS.set(experiment.name, experiment as Experiment);
}

/** Names in registration order (the seeds' first). */
export function experimentNames(): string[] {
  return [...EXPERIMENTS.keys()];
}

export function allExperiments(): Experiment[] {
  return [...EXPERIMENTS.values()];
}

export function findExperiment(name: string): Experiment | undefined {
  return EXPERIMENTS.get(name);
}
