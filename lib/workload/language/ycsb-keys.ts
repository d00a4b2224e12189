/**
 * YCSB's record keys and key choosers, as its CoreWorkload draws them (brianfrankcooper/YCSB,
 * core/src/main/java/site/ycsb/workloads/CoreWorkload.java; the generators in
 * core/src/main/java/site/ycsb/generator/). Used by the #YCSB_KEY and #YCSB_KEYNUM template operators
 * (./template.ts) and the ycsb-a..f presets (./ycsb-workloads.ts). Pure: every draw takes its uniform
 * [0, 1) number from the caller, so a client's seed repeats it.
 */
import { Zipfian, DEFAULT_THETA } from './key-distributions';

// core/src/main/java/site/ycsb/Utils.java: FNV_OFFSET_BASIS_64 = 0xCBF29CE484222325, FNV_PRIME_64 = 1099511628211
// = 2^40 + 0x1b3. Computed on two 32-bit halves (doubles hold the partial products exactly): five times
// faster than BigInt on the per-op path.
const BASIS_HI = 0xcbf29ce4;
const BASIS_LO = 0x84222325;
const PRIME_LOW = 0x1b3;
const TWO_32 = 4294967296;

/** The hash as its two 32-bit halves (unsigned): Utils.fnvhash64 before its Math.abs. */
function fnvHalves(value: number): [number, number] {
  let hi = BASIS_HI;
  let lo = BASIS_LO;
  let vLo = value >>> 0;
  let vHi = Math.floor(value / TWO_32) >>> 0;
  for (let i = 0; i < 8; i++) {
    const octet = i < 4 ? vLo & 0xff : vHi & 0xff;
    if (i < 4) vLo >>>= 8;
    else vHi >>>= 8;
    lo = (lo ^ octet) >>> 0;
    // (hi, lo) * (2^40 + 0x1b3) mod 2^64: lo's 2^40 term lands in hi as lo * 2^8.
    const low = lo * PRIME_LOW;
    const carry = Math.floor(low / TWO_32);
    hi = (hi * PRIME_LOW + carry + lo * 256) >>> 0;
    lo = low >>> 0;
  }
  return [hi, lo];
}

/** Java's Math.abs on a long: a negative value negated (two's complement); Long.MIN_VALUE stays as it is. */
function absHalves(hi: number, lo: number): [number, number, boolean] {
  if (hi < 0x80000000) return [hi, lo, false];
  if (hi === 0x80000000 && lo === 0) return [hi, lo, true];
  const negLo = (~lo + 1) >>> 0;
  const negHi = (~hi + (negLo === 0 ? 1 : 0)) >>> 0;
  return [negHi, negLo, false];
}

/**
 * Utils.fnvhash64: FNV-1a over the 8 low-order bytes of the value, as a Java long (wrapping), then
 * Math.abs. For key numbers 0 .. 2^53 - 1.
 */
export function fnvhash64(value: number): bigint {
  const [hi, lo, min] = absHalves(...fnvHalves(value));
  return min ? -(1n << 63n) : (BigInt(hi) << 32n) | BigInt(lo);
}

/** fnvhash64(value) % modulus, for a modulus >= 1 (an int mod, as Java's `%` on the non-negative hash). */
export function fnvhash64Mod(value: number, modulus: number): number {
  const [hi, lo, min] = absHalves(...fnvHalves(value));
  if (min) return Number(-(1n << 63n) % BigInt(modulus));
  // (hi * 2^32 + lo) mod m, exact in doubles while m * m < 2^53.
  if (modulus < 94_906_265) return ((hi % modulus) * (TWO_32 % modulus) + lo) % modulus;
  return Number(((BigInt(hi) << 32n) | BigInt(lo)) % BigInt(modulus));
}

/**
 * CoreWorkload.buildKeyName with YCSB's defaults, insertorder=hashed and zeropadding=1: "user" then
 * the decimal FNV-64 hash of the key number (e.g. key 0 is "user6284781860667377211").
 */
export function ycsbKeyName(keynum: number): string {
  return `user${fnvhash64(keynum)}`;
}

/**
 * ScrambledZipfianGenerator with YCSB's constant 0.99: a zipfian rank over ITEM_COUNT = 10^10 items
 * with the precomputed ZETAN, hashed with fnvhash64, modulo the key count. (Not the #ZIPF operator's
 * scrambling, a zipfian over the key count itself: the hot key's share differs, 3.8% here.)
 */
export const SCRAMBLED_ZIPFIAN_ITEM_COUNT = 10_000_000_000;
export const SCRAMBLED_ZIPFIAN_ZETAN = 26.46902820178302;
// ZipfianGenerator(0, ITEM_COUNT, 0.99, ZETAN): items = max - min + 1.
const SCRAMBLED_RANKS = new Zipfian(
  SCRAMBLED_ZIPFIAN_ITEM_COUNT + 1,
  DEFAULT_THETA,
  SCRAMBLED_ZIPFIAN_ZETAN,
);

export function scrambledZipfianKeynum(u: number, itemcount: number): number {
  return fnvhash64Mod(SCRAMBLED_RANKS.rank(u), itemcount);
}

/**
 * SkewedLatestGenerator over `count` keys numbered 0..count-1 (count-1 the newest): `max - zipfian.nextLong(max)`
 * with max = count - 1 (the basis counter's lastValue), so the newest key is the most popular and key 0 is
 * never drawn (as in YCSB). `ranks` is a zipfian of at least `count - 1` items.
 */
export function latestKeynum(
  u: number,
  count: number,
  ranks: { age(count: number, u: number): number },
): number {
  const max = count - 1;
  if (max <= 0) return 0;
  return max - ranks.age(max, u);
}
