/**
 * Part of the I/O thread (ioWorker.ts): a protobuf list page's continue token, read from its first
 * bytes so the next page can be requested before this one is decoded, as ioPages.ts reads a JSON
 * page's. Shipped as source text: self-contained (the walker of ../protobuf cannot come along).
 *
 * The bytes are kube-apiserver's envelope (apimachinery runtime/serializer/protobuf): "k8s\0", then
 * runtime.Unknown { 1 typeMeta { 1 apiVersion, 2 kind }, 2 raw, ... }, and in raw the list, whose
 * generated Marshal writes its ListMeta (field 1: 1 selfLink, 2 resourceVersion, 3 continue,
 * 4 remainingItemCount) before its items (field 2).
 *
 * Guarantee: tokenOf gives the token ('' = the last page) only when the envelope names a *List kind
 * and the whole ListMeta is in the head; undefined while more bytes could tell; null when they never
 * will (not laid out so, not a list, malformed): the stream then ends and the calling thread decodes
 * the page, and says what is wrong with it. The token is never read from a non-list's fields.
 */
export function protobufListMeta() {
  const PROTOBUF = 'application/vnd.kubernetes.protobuf';
  /** Whether an answer's Content-Type is Kubernetes protobuf (parameters ignored). */
  const isProtobuf = (contentType: unknown): boolean =>
    String(contentType ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase() === PROTOBUF;

  /** A protobuf list's continue token from its first bytes, `head` holding one byte per char (latin1). */
  const tokenOf = (head: string): string | null | undefined => {
    const n = head.length;
    if (n < 4) return 'k8s\0'.startsWith(head) ? undefined : null;
    if (!head.startsWith('k8s\0')) return null;
    let p = 4;
    /** A varint of at most 5 bytes (tags, lengths); undefined past the head's end, NaN if longer. */
    const varint = (): number | undefined => {
      let r = 0;
      for (let shift = 0; shift < 35; shift += 7) {
        if (p >= n) return undefined;
        const c = head.charCodeAt(p++);
        r += (c & 0x7f) * 2 ** shift;
        if (c < 0x80) return r;
      }
      return NaN;
    };
    let kind = '';
    // runtime.Unknown: typeMeta (1) before raw (2); raw's bytes are the list's.
    for (;;) {
      const tag = varint();
      if (tag === undefined) return undefined;
      const len = varint();
      if (len === undefined) return undefined;
      if (Number.isNaN(len) || (tag !== 0x0a && tag !== 0x12)) return null;
      if (tag === 0x12) break;
      const end = p + len;
      if (end > n) return undefined;
      while (p < end) {
        const t = varint();
        const m = varint();
        if (t === undefined || m === undefined || Number.isNaN(m) || p + m > end || (t & 7) !== 2) return null;
        if (t === 0x12) kind = head.slice(p, p + m);
        p += m;
      }
    }
    if (!kind.endsWith('List')) return null;
    // The list: its ListMeta first, whole.
    const tag = varint();
    if (tag === undefined) return undefined;
    if (tag !== 0x0a) return null;
    const len = varint();
    if (len === undefined) return undefined;
    if (Number.isNaN(len)) return null;
    const end = p + len;
    if (end > n) return undefined;
    let token = '';
    while (p < end) {
      const t = varint();
      if (t === undefined || Number.isNaN(t)) return null;
      if ((t & 7) === 0) {
        const v = varint(); // remainingItemCount: an int64, at most 10 bytes
        if (v === undefined) return null;
        if (Number.isNaN(v)) while (p < end && head.charCodeAt(p - 1) >= 0x80) p++;
      } else if ((t & 7) === 2) {
        const m = varint();
        if (m === undefined || Number.isNaN(m) || p + m > end) return null;
        if (t === 0x1a) token = Buffer.from(head.slice(p, p + m), 'latin1').toString('utf8');
        p += m;
      } else return null;
    }
    return p === end ? token : null;
  };

  return { isProtobuf, tokenOf };
}

export type ProtobufListMeta = ReturnType<typeof protobufListMeta>;
