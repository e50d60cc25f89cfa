/**
 * UidTable: the owner index's uid -> node id. A lowercase UUID (what kube-apiserver gives every
 * object) is held as its 128 bits in an open-addressing table of words (linear probing; a delete
 * shifts the entries after it back, so no tombstones pile up), not as a string in a Map: 100,000
 * uids are a few typed arrays, no string or entry each for the collector to walk and promote. Any
 * other uid (a test's, a peer's odd one) goes in a Map.
 *
 * Guarantees:
 * - get(u) is the id last set for u until delete(u), else undefined; size counts the uids held.
 * - The table is at most half full (it doubles before), so a probe ends at a free slot; the hash
 *   mixes all four words, so uids that differ in any of them (sequential ones too) spread.
 */
import { uidWords } from '../kube/objects/uidWords';

const FREE = -1;
const FIRST_SLOTS = 1024;

export class UidTable {
  private words = new Uint32Array(4 * FIRST_SLOTS);
  /** The id in each slot; FREE when the slot holds nothing. */
  private slots = new Int32Array(FIRST_SLOTS).fill(FREE);
  private packed = 0;
  private readonly others = new Map<string, number>();
  /** The uid last looked up, as words when lastPacked; the slot it is in, or ~(where it would go). */
  private readonly key = new Uint32Array(4);
  private lastUid = '';
  private lastPacked = false;
  private lastSlot = 0;

  get size(): number {
    return this.packed + this.others.size;
  }

  get(uid: string): number | undefined {
    this.lastUid = uid;
    this.lastPacked = uidWords(uid, this.key, 0);
    if (!this.lastPacked) return this.others.get(uid);
    const s = this.slotOf(this.key, 0);
    this.lastSlot = s;
    return s >= 0 ? this.slots[s] : undefined;
  }

  set(uid: string, id: number): void {
    const s = this.get(uid);
    if (s !== undefined && this.lastPacked) this.slots[this.lastSlot] = id;
    else this.addLast(id);
  }

  /**
   * Adds the uid the last get() did not find, with `id`, without reading it again (a load's
   * objects are new uids: one parse and one probe each). Only right straight after that get().
   */
  addLast(id: number): void {
    if (!this.lastPacked) {
      this.others.set(this.lastUid, id);
      return;
    }
    if ((this.packed + 1) * 2 > this.slots.length) {
      this.grow();
      this.lastSlot = this.slotOf(this.key, 0);
    }
    const at = ~this.lastSlot;
    this.words.set(this.key, at * 4);
    this.slots[at] = id;
    this.packed++;
  }

  /** The last get()'s uid as words at `at` of `w`, when it is a lowercase UUID (else false, nothing written). */
  lastWordsInto(w: Uint32Array, at: number): boolean {
    if (this.lastPacked) w.set(this.key, at);
    return this.lastPacked;
  }

  /** Forgets `uid`; false when it was not held. */
  delete(uid: string): boolean {
    if (!uidWords(uid, this.key, 0)) return this.others.delete(uid);
    let i = this.slotOf(this.key, 0);
    if (i < 0) return false;
    const mask = this.slots.length - 1;
    // Backward shift: each entry after the hole that could live in it moves into it.
    for (let j = (i + 1) & mask; this.slots[j] !== FREE; j = (j + 1) & mask) {
      const home = hashOf(this.words, j * 4) & mask;
      // the entry at j may move to i when its home is not cyclically within (i, j]
      const between = i <= j ? home > i && home <= j : home > i || home <= j;
      if (between) continue;
      this.words.copyWithin(i * 4, j * 4, j * 4 + 4);
      this.slots[i] = this.slots[j]!;
      i = j;
    }
    this.slots[i] = FREE;
    this.packed--;
    return true;
  }

  clear(): void {
    this.words = new Uint32Array(4 * FIRST_SLOTS);
    this.slots = new Int32Array(FIRST_SLOTS).fill(FREE);
    this.packed = 0;
    this.others.clear();
  }

  /** The slot holding the words at `at` of `w`, or ~(the free slot where they would go). */
  private slotOf(w: Uint32Array, at: number): number {
    const mask = this.slots.length - 1;
    const k = this.words;
    for (let s = hashOf(w, at) & mask; ; s = (s + 1) & mask) {
      if (this.slots[s] === FREE) return ~s;
      const o = s * 4;
      if (k[o] === w[at] && k[o + 1] === w[at + 1] && k[o + 2] === w[at + 2] && k[o + 3] === w[at + 3]) return s;
    }
  }

  private grow(): void {
    const words = this.words;
    const slots = this.slots;
    this.words = new Uint32Array(words.length * 2);
    this.slots = new Int32Array(slots.length * 2).fill(FREE);
    for (let s = 0; s < slots.length; s++) {
      if (slots[s] === FREE) continue;
      const at = ~this.slotOf(words, s * 4);
      this.words.set(words.subarray(s * 4, s * 4 + 4), at * 4);
      this.slots[at] = slots[s]!;
    }
  }
}

/** A 32-bit mix of the four words at `at` (murmur3's finalizer over their multiplied words, xored). */
function hashOf(w: Uint32Array, at: number): number {
  let h = Math.imul(w[at]!, 0x9e3779b1) ^ Math.imul(w[at + 1]!, 0x85ebca6b) ^ Math.imul(w[at + 2]!, 0xc2b2ae35) ^ Math.imul(w[at + 3]!, 0x27d4eb2f);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
