/**
 * Part of the I/O thread (ioWorker.ts): a Table page made smaller before it crosses to the thread
 * that parses it. Shipped as source text: self-contained.
 *
 * Why: a Table asked for with includeObject=Metadata carries each row's PartialObjectMetadata,
 * managedFields and all (the field managers' fieldsV1 trees: most of a realistic pod row's bytes),
 * and the parsing thread JSON.parses them only to drop them (list.ts compactItem). Cut here, they
 * cost that thread nothing; this scan, on this thread, reads a page at a fraction of JSON.parse's
 * cost (strings are skipped by a native search for their closing quote).
 *
 * Guarantee: cut(body, size) removes exactly the members `rows[i].object.metadata.managedFields`
 * whose value is an array (with the comma that joined each to its neighbours), compacting the
 * bytes in place, and returns the new size; the rest of the page is byte for byte what the server
 * sent, so JSON.parse of the result equals JSON.parse of the page with those members deleted.
 * Nothing else is touched: not a label or annotation of that name, not a field of a row's cells or
 * of an object other than its metadata. A page that is not a well-formed Table as far as the scan
 * can tell (unbalanced, a string not closed) is left whole (size returned as given): the parsing
 * thread then says what is wrong with it, as it does today.
 */
export function tableTrimmer() {
  const QUOTE = 0x22;
  const BACKSLASH = 0x5c;
  const COLON = 0x3a;
  const COMMA = 0x2c;
  const OPEN_OBJECT = 0x7b;
  const CLOSE_OBJECT = 0x7d;
  const OPEN_ARRAY = 0x5b;
  const CLOSE_ARRAY = 0x5d;
  const MAX_DEPTH = 512;
  const space = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

  /** The index of the quote that closes the string opened at `open`, or -1. */
  const closeOf = (b: Buffer, open: number, end: number): number => {
    let q = open;
    for (;;) {
      q = b.indexOf(QUOTE, q + 1);
      if (q < 0 || q >= end) return -1;
      let n = 0;
      while (b[q - 1 - n] === BACKSLASH) n++;
      if (n % 2 === 0) return q;
    }
  };

  /** The index just past the array that opens at `open` (strings inside skipped), or -1. */
  const arrayEnd = (b: Buffer, open: number, end: number): number => {
    let depth = 0;
    for (let i = open; i < end; i++) {
      const c = b[i];
      if (c === QUOTE) {
        i = closeOf(b, i, end);
        if (i < 0) return -1;
      } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) depth++;
      else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
        if (--depth === 0) return i + 1;
      }
    }
    return -1;
  };

  /** The key a member at this depth must have for its value to lie on the path to the cut (depth 5 is the cut itself). */
  const PATH: (string | undefined)[] = [undefined, 'rows', undefined, 'object', 'metadata', 'managedFields'];

  const cut = (b: Buffer, size: number): number => {
    // onPath[d]: the value being read at depth d (a member of an object, an element of an array) is on the path.
    const onPath = new Uint8Array(MAX_DEPTH + 1);
    const isObject = new Uint8Array(MAX_DEPTH + 1);
    let depth = 0;
    let expectKey = false;
    /** The runs to cut, start and end by turns: made only once the whole page has been read. */
    const cuts: number[] = [];
    /** Where the bytes after the last cut start. */
    let from = 0;
    for (let i = 0; i < size; i++) {
      const c = b[i];
      if (c === QUOTE) {
        const close = closeOf(b, i, size);
        if (close < 0) return size;
        if (expectKey && isObject[depth]) {
          expectKey = false;
          const want = PATH[depth];
          const len = close - i - 1;
          const hit = want !== undefined && len === want.length && b.toString('latin1', i + 1, close) === want;
          // a key's value is on the path only when its container is, all the way up
          const on = hit && (depth === 1 || onPath[depth - 1] === 1);
          onPath[depth] = on ? 1 : 0;
          if (on && depth === 5) {
            let v = close + 1;
            while (v < size && space(b[v])) v++;
            if (b[v] !== COLON) return size;
            v++;
            while (v < size && space(b[v])) v++;
            if (b[v] === OPEN_ARRAY) {
              const after = arrayEnd(b, v, size);
              if (after < 0) return size;
              let next = after;
              while (next < size && space(b[next])) next++;
              let start = i;
              let stop = after;
              if (b[next] === COMMA)
                stop = next + 1; // the members after it keep their own commas
              else {
                // the last member: the comma before it goes (a lone member leaves `{}`)
                let p = i - 1;
                while (p >= from && space(b[p])) p--;
                if (p >= from && b[p] === COMMA) start = p;
              }
              cuts.push(start, stop);
              from = stop;
              i = stop - 1;
              expectKey = b[stop - 1] === COMMA;
              continue;
            }
          }
        }
        i = close;
      } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (++depth > MAX_DEPTH) return size;
        isObject[depth] = c === OPEN_OBJECT ? 1 : 0;
        // an object's members are on the path by their keys; an array's elements, where the path takes any index, by the array's
        onPath[depth] = c === OPEN_ARRAY && depth < PATH.length && PATH[depth] === undefined ? onPath[depth - 1]! : 0;
        expectKey = c === OPEN_OBJECT;
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        if (--depth < 0) return size;
        expectKey = false;
      } else if (c === COMMA) expectKey = isObject[depth] === 1;
    }
    if (depth !== 0 || cuts.length === 0) return size;
    let out = cuts[0]!;
    for (let k = 1; k < cuts.length; k += 2) out += b.copy(b, out, cuts[k]!, k + 1 < cuts.length ? cuts[k + 1]! : size);
    return out;
  };

  return { cut };
}

export type TableTrimmer = ReturnType<typeof tableTrimmer>;
