/**
 * SnapshotCache: the consistent snapshots behind paged lists.
 *
 * Guarantee: every page of one paged list comes from the array of object references taken at the
 * first page (the store never mutates stored objects, so the array is a frozen point in time).
 * A continue token names its snapshot and an offset; it is valid for `ttlMs` after the snapshot was
 * taken (like etcd compaction of the list's revision), after which the server answers 410 Expired.
 * At most `maxSnapshots` are kept; the oldest are evicted first (their tokens then expire early).
 */
import { randomBytes } from 'node:crypto';
import type { DemoObject } from '../store';
import { badRequest, continueExpired } from './status';

interface Snapshot {
  items: readonly DemoObject[];
  resourceVersion: string;
  expiresAt: number;
  /** Filters were applied: the apiserver then leaves out remainingItemCount. */
  filtered: boolean;
}

export interface ContinueToken {
  /** Upstream's token carries "v":"meta.k8s.io/v1"; ours also names the snapshot. */
  v: 'meta.k8s.io/v1';
  rv: number;
  snap: string;
  off: number;
  key: string;
}

export class SnapshotCache {
  private readonly snaps = new Map<string, Snapshot>();

  constructor(
    private readonly ttlMs: () => number,
    private readonly nowMs: () => number = Date.now,
    private readonly maxSnapshots = 2000,
  ) {}

  get size(): number {
    return this.snaps.size;
  }

  /** Keeps a snapshot and returns its id. */
  put(items: readonly DemoObject[], resourceVersion: string, filtered: boolean, key: string): string {
    this.sweep();
    while (this.snaps.size >= this.maxSnapshots) {
      const oldest = this.snaps.keys().next().value as string;
      this.snaps.delete(oldest);
    }
    const id = `${key}:${randomBytes(6).toString('hex')}`;
    this.snaps.set(id, { items, resourceVersion, expiresAt: this.nowMs() + this.ttlMs(), filtered });
    return id;
  }

  /** The snapshot a continue token points into; 400 for a malformed token, 410 for an expired one. */
  resolve(token: string, key: string): { snap: Snapshot; off: number; tok: ContinueToken } {
    const tok = decodeToken(token);
    if (!tok.snap.startsWith(`${key}:`)) throw badRequest(`continue key is not valid: the continue token was issued for a different list`);
    const snap = this.snaps.get(tok.snap);
    if (!snap || snap.expiresAt <= this.nowMs()) {
      this.snaps.delete(tok.snap);
      throw continueExpired(inconsistentToken(tok.key, key));
    }
    return { snap, off: tok.off, tok };
  }

  /** Ends a snapshot early (its last page was served). */
  release(id: string): void {
    this.snaps.delete(id);
  }

  clear(): void {
    this.snaps.clear();
  }

  private sweep(): void {
    const now = this.nowMs();
    for (const [id, s] of this.snaps) if (s.expiresAt <= now) this.snaps.delete(id);
  }
}

/** The token of a 410: rv -1, for the list `listKey`, continuing after `key` from the current state. */
export function inconsistentToken(key: string, listKey: string): string {
  return encodeToken({ v: 'meta.k8s.io/v1', rv: -1, snap: `${listKey}:-`, off: 0, key });
}

export function isInconsistentToken(t: ContinueToken, listKey: string): boolean {
  return t.rv === -1 && t.snap === `${listKey}:-`;
}

export function encodeToken(t: ContinueToken): string {
  return Buffer.from(JSON.stringify(t), 'utf8').toString('base64url');
}

export function decodeToken(token: string): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw badRequest('continue key is not valid: illegal base64 data or JSON');
  }
  const t = parsed as Partial<ContinueToken>;
  if (!t || t.v !== 'meta.k8s.io/v1' || typeof t.snap !== 'string' || typeof t.off !== 'number' || typeof t.rv !== 'number') {
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  return t as ContinueToken;
}
