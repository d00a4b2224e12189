/**
 * The loader's document shape: integer `_id` 0..N-1 (so presets can pick a random existing
 * document), a random indexed integer `k` in [0, N), an indexed `group` (_id mod 100), a `counter`
 * the presets `$inc`, and `pad`: random text up to the requested BSON size.
 */
import { BSON } from 'mongodb';
import { Prng } from './prng';

export const INDEXED_FIELDS = ['k', 'group'] as const;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
// Slices of one random pool: cheap to make, and text-like rather than all zeros when compressed.
const POOL_EXTRA = 65_536;

/** Bytes of `pad` needed for a document of about `docSize` bytes (0 when the fields alone are bigger). */
export function documentPaddingLength(docSize: number): number {
  const base = BSON.calculateObjectSize({
    _id: 2_000_000_000,
    k: 2_000_000_000,
    group: 99,
    counter: 0,
    pad: '',
  });
  return Math.max(0, docSize - base);
}

export interface DocumentFactory {
  make(id: number): { _id: number; k: number; group: number; counter: number; pad: string };
}

export function documentFactory(docs: number, docSize: number, seed: number): DocumentFactory {
  const rng = new Prng(seed);
  const padLength = documentPaddingLength(docSize);
  let pool = '';
  const poolLength = padLength > 0 ? padLength + POOL_EXTRA : 0;
  const chunk: string[] = [];
  for (let i = 0; i < poolLength; i++) {
    chunk.push(ALPHABET[rng.nextBelow(ALPHABET.length)]);
    if (chunk.length === 8192) {
      pool += chunk.join('');
      chunk.length = 0;
    }
  }
  pool += chunk.join('');
  return {
    make(id: number) {
      const offset = padLength > 0 ? rng.nextBelow(POOL_EXTRA) : 0;
      return {
        _id: id,
        k: rng.nextBelow(Math.max(docs, 1)),
        group: id % 100,
        counter: 0,
        pad: pool.substr(offset, padLength),
      };
    },
  };
}
