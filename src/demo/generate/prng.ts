/**
 * A seeded PRNG (mulberry32): the generator's only source of variety, so one seed always gives
 * the same objects, byte for byte, on any machine (no Math.random, no clock, no crypto).
 */
const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** The alphabet of Kubernetes generated name suffixes and pod-template-hashes (no vowels). */
const SAFE = 'bcdfghjklmnpqrstvwxz2456789';
const HEX = '0123456789abcdef';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export class Rng {
  private s: number;

  constructor(seed: number) {
    this.s = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(arr: readonly T[]): T {
    return arr[this.int(arr.length)]!;
  }

  private chars(alphabet: string, n: number): string {
    let out = '';
    for (let i = 0; i < n; i++) out += alphabet[this.int(alphabet.length)];
    return out;
  }

  /** A generateName-style suffix: `x7k2p`. */
  suffix(n = 5): string {
    return this.chars(SAFE, n);
  }

  hex(n: number): string {
    return this.chars(HEX, n);
  }

  alnum(n: number): string {
    return this.chars(LOWER_ALNUM, n);
  }

  /** Base64 of n pseudo-random bytes (Secret data). */
  base64(nBytes: number): string {
    const full = Math.floor(nBytes / 3);
    let out = this.chars(B64, full * 4);
    const rest = nBytes % 3;
    if (rest === 1) out += this.chars(B64, 2) + '==';
    else if (rest === 2) out += this.chars(B64, 3) + '=';
    return out;
  }

  /** A UUID v4 drawn from this stream (deterministic, unlike crypto.randomUUID). */
  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[this.int(4)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}
