/**
 * Part of the I/O thread (ioWorker.ts): a list page's continue token, read from its bytes so the
 * next page can be requested before this one is parsed. Shipped as source text: self-contained.
 *
 * A list's continue token is looked for in its first SCAN bytes, before `"items"` (a typed list,
 * every built-in type, writes its metadata first; a Table writes it before `"columnDefinitions"`
 * and `"rows"`); a page whose token is not found there ends the
 * stream (token null). An unstructured list (custom resources: a Go map, keys sorted) writes
 * apiVersion, items, kind, metadata: its token is read from the last TAIL bytes when the body has
 * ended, and the next page is requested then, before the page is posted and parsed.
 */
import type { Fetch } from './ioProtocol';

export function pageTokens() {
  const SCAN = 64 * 1024;
  const TAIL = 4096;
  const CONTINUE = /"continue"\s*:\s*"((?:[^"\\]|\\.)*)"/;
  /** '' when the metadata has no token (the last page); null when the token is not a JSON string. */
  const unquote = (m: RegExpExecArray | null): string | null => {
    if (!m) return '';
    try {
      return JSON.parse(`"${m[1]}"`) as string;
    } catch {
      return null;
    }
  };

  /** The token of a list body from its leading bytes, once `"items"` is in view (else undefined); 'tail' for items-first lists. */
  const tokenOf = (head: string): string | null | undefined | 'tail' => {
    // A Table (kind, apiVersion, metadata, columnDefinitions, rows) writes its metadata first too.
    let at = head.indexOf('"items"');
    for (const marker of ['"columnDefinitions"', '"rows"']) {
      const m = head.indexOf(marker);
      if (m >= 0 && (at < 0 || m < at)) at = m;
    }
    if (at < 0) return head.length >= SCAN ? null : undefined;
    if (head.lastIndexOf('"metadata"', at) < 0) return 'tail'; // a typed list always writes metadata first
    return unquote(CONTINUE.exec(head.slice(0, at)));
  };

  /** The token of an items-first list from its last bytes: the list's metadata is its last key. */
  const tailTokenOf = (f: Pick<Fetch, 'body' | 'size' | 'chunks'>): string | null => {
    let tail: string;
    if (f.body) tail = f.body.toString('latin1', Math.max(0, f.size - TAIL), f.size);
    else {
      const last: Buffer[] = [];
      for (let i = f.chunks.length - 1, n = 0; i >= 0 && n < TAIL; i--) (last.unshift(f.chunks[i]), (n += f.chunks[i].length));
      const b = Buffer.concat(last);
      tail = b.toString('latin1', Math.max(0, b.length - TAIL));
    }
    const at = tail.lastIndexOf('"metadata":');
    if (at < 0) return null;
    return unquote(CONTINUE.exec(tail.slice(at)));
  };

  return { SCAN, tokenOf, tailTokenOf };
}

export type PageTokens = ReturnType<typeof pageTokens>;
