/**
 * The imported documents: `_id` = sequence number (unique, increasing), the ranged key spread over
 * the pre-split range the way the seeds did it (g = count & 63 cycles through 0..63, so every batch
 * touches every chunk of a pre-split collection), and `pad` up to the requested BSON size.
 */
import { BSON } from 'mongodb';
import { PresplitRange } from '../../topology/options';
import { tidy } from '../../topology/split';

/** How many distinct key values a non-integer range is cut into. */
const NON_INTEGER_SLOTS = 64;

/** The key value of document `seq`: cycles through the range's integers (or 64 even steps of a non-integer range). */
export function keyValueAt(seq: number, range: PresplitRange): number {
  const integer = Number.isInteger(range.min) && Number.isInteger(range.max);
  if (integer) return range.min + (seq % (range.max - range.min));
  const slot = seq % NON_INTEGER_SLOTS;
  return tidy(range.min + ((range.max - range.min) * slot) / NON_INTEGER_SLOTS);
}

export interface ImportDocument {
  _id: number;
  [key: string]: number | string;
}

/** Makes documents of about `docSize` bytes: the padding is computed once from the largest field values. */
export function documentMaker(
  keyField: string,
  range: PresplitRange,
  docSize: number,
): (seq: number) => ImportDocument {
  const widest = { _id: 2_000_000_000, [keyField]: 1.5e300, pad: '' };
  const padLength = Math.max(0, docSize - BSON.calculateObjectSize(widest));
  // Not all one letter, so compression does not make the documents vanish on disk.
  const pool = 'mongo-bench presplit-import padding 0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ '.repeat(
    Math.ceil((padLength + 97) / 80),
  );
  return (seq) => ({
    _id: seq,
    [keyField]: keyValueAt(seq, range),
    pad: pool.substr(seq % 97, padLength),
  });
}
