/**
 * Objects nested through one member `a`, as a tenant's deep custom resource is, for the deep-object
 * tests: their JSON text (built as text, so no stack is needed to make one 10,000 levels deep), and
 * how many levels a value holds and what ends it (read in a loop, so no stack to read one either).
 */

/** The JSON of `levels` objects nested through `a` around `leaf` (a JSON value's text). */
export function nestedText(levels: number, leaf: string): string {
  return '{"a":'.repeat(levels) + leaf + '}'.repeat(levels);
}

/** Levels of `a` below `v`, and what is at the end. */
export function chain(v: unknown): { levels: number; end: unknown } {
  let levels = 0;
  while (typeof v === 'object' && v !== null && 'a' in v) {
    v = (v as { a: unknown }).a;
    levels++;
  }
  return { levels, end: v };
}
