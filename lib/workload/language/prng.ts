/**
 * A small seeded PRNG (sfc32) so a run can be repeated: client i of a step uses seed + i.
 * Math.random cannot be seeded, and one generator per client keeps clients independent of each
 * other's timing.
 */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    // splitmix32 spreads a small integer seed over the four words of state.
    let s = seed >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  /** A uniformly distributed unsigned 32-bit integer. */
  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1) with 32 bits of randomness. */
  nextFloat(): number {
    return this.nextUint32() / 4294967296;
  }

  /** An integer in [0, n) for n >= 1 (n up to 2^53). */
  nextBelow(n: number): number {
    if (n <= 4294967296) return Math.floor(this.nextFloat() * n);
    // Ranges wider than 32 bits: combine two draws (53 bits).
    const high = this.nextUint32() >>> 11; // 21 bits
    const low = this.nextUint32();
    return Math.floor(((high * 4294967296 + low) / 9007199254740992) * n);
  }
}
