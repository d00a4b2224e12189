/**
 * Split-point math for pre-splitting a numeric, ranged shard key over [min, max) into one chunk per
 * shard: where to `split`, and a `find` point inside each chunk for `moveChunk`.
 */
import { UsageError } from '../config/errors';
import { PresplitRange } from './options';

export interface PresplitChunk {
  /** Which shard (by position) the chunk should live on. */
  shardIndex: number;
  /** A value inside the chunk (its midpoint), for moveChunk's `find`. */
  findPoint: number;
  /** The chunk's bounds after the splits; the first and last chunks extend to MinKey / MaxKey. */
  min: number | 'MinKey';
  max: number | 'MaxKey';
}

export interface PresplitPlan {
  /** Interior boundaries, ascending: where to `split`. Empty for one shard. */
  splitPoints: number[];
  chunks: PresplitChunk[];
  warnings: string[];
}

/**
 * Rounds away binary floating-point noise (0.1 * 3 = 0.30000000000000004) so the points read as a
 * person would write them: 64 * 3 / 5 is 38.4, not 38.400000000000006.
 */
export function tidy(value: number): number {
  return Number(value.toPrecision(15));
}

/** min + (max - min) * i / n, computed so that exact decimal results come out exact. */
function fraction(range: PresplitRange, i: number, n: number): number {
  return tidy(range.min + ((range.max - range.min) * i) / n);
}

export function presplit(
  range: PresplitRange,
  shards: number,
  option = 'option --presplit',
): PresplitPlan {
  if (!Number.isFinite(range.min) || !Number.isFinite(range.max)) {
    throw new UsageError(
      `${option}: the bounds must be finite numbers, got ${range.min}:${range.max}`,
    );
  }
  if (!(range.min < range.max))
    throw new UsageError(`${option}: MIN must be less than MAX, got ${range.min}:${range.max}`);
  if (!Number.isInteger(shards) || shards < 1)
    throw new UsageError(`option --shards: must be at least 1, got ${shards}`);

  const splitPoints: number[] = [];
  for (let i = 1; i < shards; i++) splitPoints.push(fraction(range, i, shards));
  const chunks: PresplitChunk[] = [];
  for (let i = 0; i < shards; i++) {
    chunks.push({
      shardIndex: i,
      findPoint: fraction(range, 2 * i + 1, 2 * shards),
      min: i === 0 ? 'MinKey' : splitPoints[i - 1],
      max: i === shards - 1 ? 'MaxKey' : splitPoints[i],
    });
  }
  // A range too narrow for the number's precision would give repeated points: chunks that cannot exist.
  const bounds = [range.min, ...splitPoints, range.max];
  for (let i = 1; i < bounds.length; i++) {
    if (!(bounds[i] > bounds[i - 1])) {
      throw new UsageError(
        `${option}: the range ${range.min}:${range.max} is too narrow to cut into ${shards} chunks at double precision`,
      );
    }
  }

  const warnings: string[] = [];
  if (shards === 1)
    warnings.push(
      `${option}: with one shard there is nothing to distribute; no split or move is planned`,
    );
  const integerBounds = Number.isInteger(range.min) && Number.isInteger(range.max);
  if (integerBounds && shards > 1 && range.max - range.min < shards) {
    warnings.push(
      `${option}: [${range.min}, ${range.max}) holds only ${range.max - range.min} integer value(s) for ${shards} shards; ` +
        'if the key holds integers, some chunks will stay empty',
    );
  }
  return { splitPoints, chunks, warnings };
}
