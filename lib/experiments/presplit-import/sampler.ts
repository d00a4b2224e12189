/**
 * The per-shard sampler is the general server sampler (lib/server-stats/sampler.ts) reading one
 * counter per source: each shard's primary and the mongos.
 */
import { SampleSource, Sampler } from '../../server-stats/sampler';

export type CounterSource = SampleSource<number>;
export const CounterSampler = Sampler<number>;
export type CounterSampler = Sampler<number>;
