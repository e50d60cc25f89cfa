/**
 * RecordedObjects: the objects of a recording at one instant (Recording.objectsAt), a read-only
 * map from key to object whose keyframe objects stay JSON text until first read.
 *
 * Changes given as JSON text (a seek's LazyDelta) are not parsed either: a whole object replaces
 * the text or object held, a patch is queued behind what is held (PatchChain) and applied, in
 * order, on first read. So a seek costs its keys, and only the objects read are ever parsed.
 *
 * Guarantees: it behaves as a ReadonlyMap<string, Obj> (get, has, size, keys, values, entries,
 * iteration, forEach), each object as if every change had been applied as it came; an object is
 * built at most once, on first read; keys never need a parse. Objects and patches are cut at
 * MAX_OBJECT_DEPTH as they are parsed (core/kube/objects/depth.ts), so applying and reading them is bounded.
 */
import { capObjectDepth, parseJsonCapped } from '../kube/objects/depth';
import { applyMergePatch } from './diff';
import type { Obj } from './records';

/** What is held for a key until it is read: an object, its JSON text, or patches queued behind one. */
type Held = Obj | string | PatchChain;

/** Merge patches (objects or JSON text) to apply, in order, to `base` (undefined: none yet). */
class PatchChain {
  constructor(
    readonly base: Obj | string | undefined,
    readonly patches: (Obj | string)[],
  ) {}

  build(): Obj {
    let o: unknown = typeof this.base === 'string' ? parseJsonCapped(this.base) : this.base;
    for (const p of this.patches) o = applyMergePatch(o, typeof p === 'string' ? parseJsonCapped(p) : p);
    return o as Obj;
  }
}

/** How the writer spells a keyframe record: `{"k":"K","t":T,"seq":N,"key":"KEY","o":{...}}`. */
const K_PREFIX = '{"k":"K",';
const KEY_AT = '"key":';
const O_AT = ',"o":';

export class RecordedObjects implements ReadonlyMap<string, Obj> {
  private readonly m = new Map<string, Held>();

  /** Adds the objects of one keyframe block (its JSON lines); other records are ignored. */
  addKeyframeLines(text: string): void {
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      const line = text.slice(start, end);
      start = end + 1;
      if (!line.startsWith(K_PREFIX)) continue;
      const k = line.indexOf(KEY_AT);
      const o = k < 0 ? -1 : line.indexOf(O_AT, k);
      if (k < 0 || o < 0 || !line.endsWith('}')) {
        // Not the writer's usual spelling: parse the record whole.
        const r = JSON.parse(line) as { key: string; o: Obj };
        capObjectDepth(r.o);
        this.m.set(r.key, r.o);
        continue;
      }
      const raw = line.slice(k + KEY_AT.length, o);
      // A key without escapes is its quoted text; only one with a backslash needs JSON's parse.
      const key = raw.length >= 2 && raw.charCodeAt(0) === 34 && !raw.includes('\\') ? raw.slice(1, -1) : (JSON.parse(raw) as string);
      this.m.set(key, line.slice(o + O_AT.length, -1));
    }
  }

  /** Applies one change (a delta record; its object or patch may be JSON text, parsed when read). */
  apply(key: string, r: { op: 'A' | 'M' | 'D'; o?: Obj | string; p?: Obj | string }): void {
    if (r.op === 'D') this.m.delete(key);
    else if (r.o) this.m.set(key, r.o);
    else if (r.p) {
      const held = this.m.get(key);
      if (held instanceof PatchChain) held.patches.push(r.p);
      else this.m.set(key, new PatchChain(held, [r.p]));
    }
  }

  get size(): number {
    return this.m.size;
  }

  has(key: string): boolean {
    return this.m.has(key);
  }

  get(key: string): Obj | undefined {
    const v = this.m.get(key);
    if (v === undefined) return undefined;
    if (typeof v !== 'string' && !(v instanceof PatchChain)) return v;
    const o = typeof v === 'string' ? (parseJsonCapped(v) as Obj) : v.build();
    this.m.set(key, o);
    return o;
  }

  keys(): MapIterator<string> {
    return this.m.keys();
  }

  *entries(): MapIterator<[string, Obj]> {
    for (const k of this.m.keys()) yield [k, this.get(k)!];
  }

  *values(): MapIterator<Obj> {
    for (const k of this.m.keys()) yield this.get(k)!;
  }

  [Symbol.iterator](): MapIterator<[string, Obj]> {
    return this.entries();
  }

  forEach(fn: (value: Obj, key: string, map: ReadonlyMap<string, Obj>) => void): void {
    for (const [k, v] of this.entries()) fn(v, k, this);
  }
}
