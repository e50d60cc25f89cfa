/**
 * Paged LIST, after client-go's tools/pager/pager.go.
 *
 * Guarantees:
 * - Pages are requested with `limit` and followed by `continue` until the continue token is empty.
 *   A page may hold fewer items than the limit, or none: only the token ends the list.
 * - Continuation requests carry no resourceVersion / resourceVersionMatch (the token encodes the
 *   snapshot; the server rejects both together), exactly as the pager clears them.
 * - A 410 Expired on a continuation (the snapshot was compacted away mid-list) falls back to one
 *   full, unpaged list at the originally requested resourceVersion, and the pages received so far
 *   are discarded first, so no object is doubled. A 410 on the first page is an error, as upstream.
 * - Items are pushed into the caller's `sink` as each page is parsed, so on a failure the caller
 *   still holds what was received (marked partial by the loader) and the page's raw bytes are gone.
 * - Memory: managedFields are dropped (large, and nothing we show uses them) unless asked for; in
 *   metadata-only mode an item keeps only its metadata, whether or not the server honoured the
 *   PartialObjectMetadataList Accept header.
 */
import { KubeApiError, KubeTransportError } from './errors';
import { resourcePath } from './paths';
import type { KubeTransport, RetryInfo } from './transport';
import type { GroupVersionResource, KubeObject, ListMeta } from './types';

export const METADATA_ONLY_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size; 0 or unset = a single unpaged list. */
  limit?: number;
  /** Unset = most recent (a consistent read); '0' = any (may come from the watch cache). */
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  metadataOnly?: boolean;
  keepManagedFields?: boolean;
  /** Per-request deadline (ms), overriding the transport's. */
  requestTimeoutMs?: number;
}

export interface ListHooks {
  signal?: AbortSignal;
  /** Receives every item as its page is parsed (truncated to empty on a 410 fallback). */
  sink?: KubeObject[];
  onPage?: (page: { index: number; items: number; bytes: number; more: boolean }) => void;
  onRetry?: (info: RetryInfo) => void;
  /** Called when a 410 on a continuation makes the list fall back to one full list. */
  onFallback?: (error: KubeApiError) => void;
}

export interface ListResult {
  items: KubeObject[];
  /** The list's resourceVersion: where a watch of the same selection starts. */
  resourceVersion: string;
  pages: number;
  retries: number;
  bytes: number;
  fellBackToFullList: boolean;
}

interface ListBody {
  kind?: string;
  metadata?: ListMeta;
  items?: unknown[] | null;
}

export function compactItem(raw: unknown, metadataOnly: boolean, keepManagedFields: boolean): KubeObject {
  const o = raw as KubeObject;
  const meta = o.metadata ?? {};
  if (!keepManagedFields && meta.managedFields) delete meta.managedFields;
  return metadataOnly ? { metadata: meta } : o;
}

export async function listAll(t: KubeTransport, gvr: GroupVersionResource, opts: ListOptions = {}, hooks: ListHooks = {}): Promise<ListResult> {
  const path = resourcePath(gvr, opts.namespace);
  const items = hooks.sink ?? [];
  const accept = opts.metadataOnly ? METADATA_ONLY_ACCEPT : 'application/json';
  const result: ListResult = { items, resourceVersion: '', pages: 0, retries: 0, bytes: 0, fellBackToFullList: false };
  const onRetry = (info: RetryInfo) => {
    result.retries++;
    hooks.onRetry?.(info);
  };
  const fetchPage = async (query: Record<string, string | number | undefined>) => {
    const res = await t.getJson<ListBody>({ path, query, accept, signal: hooks.signal, onRetry, timeoutMs: opts.requestTimeoutMs });
    const body = res.body;
    if (!body || typeof body !== 'object' || (body.items !== undefined && body.items !== null && !Array.isArray(body.items))) {
      throw new KubeTransportError('malformed', `GET ${path}: response is not a list (no items array)`, path);
    }
    const page = body.items ?? [];
    const before = items.length;
    for (const raw of page) items.push(compactItem(raw, !!opts.metadataOnly, !!opts.keepManagedFields));
    result.pages++;
    result.bytes += res.bytes;
    result.resourceVersion = body.metadata?.resourceVersion ?? result.resourceVersion;
    const next = body.metadata?.continue ?? '';
    hooks.onPage?.({ index: result.pages - 1, items: items.length - before, bytes: res.bytes, more: next !== '' });
    return next;
  };
  const selectors = { labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector };
  const limit = opts.limit && opts.limit > 0 ? opts.limit : undefined;

  let cont = '';
  for (;;) {
    try {
      cont = await fetchPage(
        cont
          ? { ...selectors, limit, continue: cont }
          : { ...selectors, limit, resourceVersion: opts.resourceVersion, resourceVersionMatch: opts.resourceVersionMatch },
      );
    } catch (e) {
      if (!(cont && e instanceof KubeApiError && e.isExpired)) throw e;
      // The continue token expired mid-list: what we hold is from a snapshot that no longer exists.
      // Start over with one full list, as client-go's pager does with FullListIfExpired.
      hooks.onFallback?.(e);
      items.length = 0;
      result.fellBackToFullList = true;
      await fetchPage({ ...selectors, resourceVersion: opts.resourceVersion, resourceVersionMatch: opts.resourceVersionMatch });
      return result;
    }
    if (!cont) return result;
  }
}
