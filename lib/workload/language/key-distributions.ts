/**
 * The key distributions YCSB made standard, for the #ZIPF, #HOTSPOT and #LATEST template operators
 * (mongo-bench extensions, docs/workload.md). Modelled on YCSB's generators (brianfrankcooper/YCSB,
 * core/src/main/java/site/ycsb/generator/): ZipfianGenerator (Gray et al., "Quickly Generating
 * Billion-Record Synthetic Databases", SIGMOD 1994), ScrambledZipfianGenerator, HotspotIntegerGenerator,
 * SkewedLatestGenerator. Each draws from a caller's uniform [0, 1) source so a client's seed repeats it.
 */

/** YCSB's default skew (ZipfianGenerator.ZIPFIAN_CONSTANT). */
export const DEFAULT_THETA = 0.99;

/** Sums 1/i^theta exactly up to this many items, and by the integral beyond (error < 1e-6 relative). */
const EXACT_ZETA_ITEMS = 1_000_000;

/** zeta(n, theta) = sum over i = 1..n of 1 / i^theta. */
export function zeta(n: number, theta: number): number {
  const exact = Math.min(n, EXACT_ZETA_ITEMS);
  let sum = 0;
  for (let i = 1; i <= exact; i++) sum += 1 / i ** theta;
  if (n > exact) {
    // Euler-Maclaurin: the integral of x^-theta from m to n, plus the end corrections.
    const m = exact;
    sum += (n ** (1 - theta) - m ** (1 - theta)) / (1 - theta) + (n ** -theta - m ** -theta) / 2;
  }
  return sum;
}

/** Ranks 0..n-1, rank r drawn with probability proportional to 1/(r+1)^theta (0 the most popular). */
export class Zipfian {
  private readonly alpha: number;
  private readonly eta: number;
  private readonly halfPowTheta: number;
  readonly zetan: number;

  constructor(
    readonly items: number,
    readonly theta = DEFAULT_THETA,
    zetan?: number,
  ) {
    if (!Number.isInteger(items) || items < 1)
      throw new RangeError(`items must be an integer >= 1, got ${items}`);
    if (!(theta > 0 && theta < 1)) throw new RangeError(`theta must lie in (0, 1), got ${theta}`);
    this.zetan = zetan ?? zeta(items, theta);
    const zeta2 = 1 + 0.5 ** theta;
    this.alpha = 1 / (1 - theta);
    this.eta = (1 - (2 / items) ** (1 - theta)) / (1 - zeta2 / this.zetan);
    this.halfPowTheta = 0.5 ** theta;
  }

  /** A rank from a uniform u in [0, 1) (ZipfianGenerator.nextLong). */
  rank(u: number): number {
    const uz = u * this.zetan;
    if (uz < 1) return 0;
    if (uz < 1 + this.halfPowTheta) return Math.min(1, this.items - 1);
    return Math.min(
      this.items - 1,
      Math.floor(this.items * (this.eta * u - this.eta + 1) ** this.alpha),
    );
  }
}

/**
 * Spreads a rank over the key range so the popular keys are not neighbours (YCSB's
 * ScrambledZipfianGenerator hashes the rank with 64-bit FNV; here murmur3's 32-bit finaliser, a
 * bijection on 32 bits, then modulo the range).
 */
export function scramble(rank: number, items: number): number {
  let h = (rank ^ (rank / 4294967296)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) % items;
}

/** HotspotIntegerGenerator: hotOps of the draws fall uniformly in the first hotSet of [0, items), the rest uniformly in the others. */
export function hotspot(
  u1: number,
  u2: number,
  items: number,
  hotSet: number,
  hotOps: number,
): number {
  const hot = Math.max(1, Math.min(items, Math.round(items * hotSet)));
  if (u1 < hotOps || hot === items) return Math.floor(u2 * hot);
  return hot + Math.floor(u2 * (items - hot));
}

/**
 * SkewedLatestGenerator over a growing key count: the newest key is the most popular, then the one
 * before it, and so on (a zipfian over age). zeta is kept per count and updated incrementally as the
 * count grows, as YCSB's ZipfianGenerator does (zeta(n) from zeta(n - k) plus k terms).
 */
export class Latest {
  private count = 0;
  private zetan = 0;
  private zipf?: Zipfian;

  constructor(readonly theta = DEFAULT_THETA) {}

  /** How many keys back from the newest, for `count` keys so far (0 = the newest). */
  age(count: number, u: number): number {
    if (count <= 1) return 0;
    if (count !== this.count) {
      if (count > this.count && this.count > 0 && count - this.count < EXACT_ZETA_ITEMS) {
        for (let i = this.count + 1; i <= count; i++) this.zetan += 1 / i ** this.theta;
      } else {
        this.zetan = zeta(count, this.theta);
      }
      this.count = count;
      this.zipf = new Zipfian(count, this.theta, this.zetan);
    }
    return (this.zipf as Zipfian).rank(u);
  }
}
