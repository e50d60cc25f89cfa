/**
 * The continue token of a protobuf list, read from its first bytes, as list.ts reads a JSON list's
 * (continueFromHead): gogo writes a list's ListMeta (field 1) before its items (field 2), and the
 * envelope's typeMeta before its raw, so the token is known long before the items have arrived.
 *
 * Guarantee: returns the token ('' = the last page) only when the whole ListMeta is in `head`;
 * undefined while it cannot tell (too few bytes, or not a list laid out so); never throws.
 */
const MAGIC = [0x6b, 0x38, 0x73, 0x00];

export function continueFromProtobufHead(head: Uint8Array): string | undefined {
  if (head.length < 4 || MAGIC.some((m, i) => head[i] !== m)) return undefined;
  let p = 4;
  const varint = (): number | undefined => {
    let r = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (p >= head.length) return undefined;
      const c = head[p++]!;
      r += (c & 0x7f) * 2 ** shift;
      if (c < 0x80) return r;
    }
    return undefined;
  };
  // runtime.Unknown: typeMeta (1), then raw (2), whose start is the list's.
  for (;;) {
    const tag = varint();
    if (tag === 0x12) {
      if (varint() === undefined) return undefined;
      break;
    }
    if (tag !== 0x0a) return undefined;
    const n = varint();
    if (n === undefined) return undefined;
    p += n;
  }
  if (varint() !== 0x0a) return undefined;
  const n = varint();
  if (n === undefined || p + n > head.length) return undefined;
  const end = p + n;
  let token = '';
  while (p < end) {
    const tag = varint();
    if (tag === undefined) return undefined;
    const wire = tag & 7;
    if (wire === 0) {
      if (varint() === undefined) return undefined;
    } else if (wire === 2) {
      const m = varint();
      if (m === undefined || p + m > end) return undefined;
      if (tag === 0x1a) token = Buffer.from(head.buffer, head.byteOffset + p, m).toString('utf8');
      p += m;
    } else return undefined;
  }
  return token;
}
