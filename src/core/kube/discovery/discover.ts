/**
 * discover(): aggregated discovery first, the legacy per-group documents when the server answers
 * the plain form.
 *
 * GET /api and GET /apis are sent with the aggregated Accept list (v2, then v2beta1, then plain
 * JSON, as client-go does). A server that supports aggregated discovery answers an
 * APIGroupDiscoveryList (two requests in all); an older one answers APIVersions / APIGroupList, and
 * we then fetch /api/{v} and /apis/{g}/{v} for every served version (a few at a time through a
 * WorkerPool), so a resource served only by a non-preferred version is not missed.
 *
 * Errors: failing to read /api or /apis at all throws (nothing can be loaded; the caller reports a
 * fatal error). A group version that fails, or is marked Stale, is a DiscoveryFailure value.
 *
 * Deadlines: every discovery request has one (`timeoutMs`, default 32 s as client-go's discovery
 * client), covering its retries. A group version that never answers (a hung aggregated APIService
 * behind /apis/{g}/{v}) is one DiscoveryFailure after its deadline, and the rest of discovery, and
 * the load, go on; a root (/api, /apis) that never answers fails discovery after its deadline.
 * Discovery as a whole has a deadline too (`overallTimeoutMs`, default 64 s): thousands of group
 * versions, each within its own deadline, cannot hold it for ever. A group version not answered by
 * then is a DiscoveryFailure that names the overall deadline; the group versions that answered in
 * time are in the result, so their types still load.
 */
import { abortReason } from '../../clock';
import { WorkerPool } from '../../pool';
import type { KubeTransport } from '../transport/transport';
import { KubeApiError } from '../errors';
import {
  groupVersionOf,
  isAggregatedDiscovery,
  parseAggregated,
  parseApiVersions,
  parseGroupList,
  parseResourceList,
  type ApiGroup,
  type Discovery,
  type DiscoveryFailure,
} from './parse';

export const AGGREGATED_DISCOVERY_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,' +
  'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,' +
  'application/json';

export interface DiscoverOptions {
  signal?: AbortSignal;
  /** Skip the aggregated form (for servers or tests that need the legacy path). */
  legacyOnly?: boolean;
  /**
   * Legacy mode: fetch only each group's preferred version (fewer requests, but resources served
   * only by another version are then missed). Default false: every version, as client-go's
   * ServerPreferredResources does, so listableResources() can pick each resource's best version.
   */
  preferredOnly?: boolean;
  /** Legacy mode: parallel group-version fetches. Default 8. */
  concurrency?: number;
  /** Deadline of each discovery request (its retries included), ms; 0 = none. Default 32 s. */
  timeoutMs?: number;
  /** Deadline of the whole discovery, ms; 0 = none. Default 64 s. */
  overallTimeoutMs?: number;
}

export const DEFAULT_DISCOVERY_TIMEOUT_MS = 32_000;
/**
 * Two request deadlines: a root may take all of one and the group versions still get the other.
 * A real cluster's legacy discovery (hundreds of group versions, 8 at a time) takes seconds.
 */
export const DEFAULT_DISCOVERY_OVERALL_TIMEOUT_MS = 2 * DEFAULT_DISCOVERY_TIMEOUT_MS;

/** The reason a discovery request is given up on at its deadline. */
export class DiscoveryTimeoutError extends Error {
  override readonly name = 'DiscoveryTimeoutError';
  constructor(
    readonly path: string,
    readonly timeoutMs: number,
    /** It was the whole discovery's deadline (overallTimeoutMs), not the request's own. */
    readonly overall = false,
  ) {
    super(
      overall
        ? `GET ${path}: not answered before discovery's overall deadline of ${timeoutMs} ms`
        : `GET ${path}: no answer within the discovery deadline of ${timeoutMs} ms`,
    );
  }
}

/** When discovery as a whole is given up (clock time), and its length. */
interface OverallDeadline {
  at: number;
  ms: number;
}

/** GET a discovery document, given up on (its request aborted) at its deadline or discovery's, whichever comes first. */
async function getWithDeadline<T>(
  t: KubeTransport,
  path: string,
  accept: string | undefined,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  deadline: OverallDeadline | undefined,
): Promise<T> {
  const left = deadline ? deadline.at - t.clock.now() : Infinity;
  if (deadline && left <= 0) throw new DiscoveryTimeoutError(path, deadline.ms, true);
  const own = timeoutMs > 0 ? timeoutMs : Infinity;
  if (own === Infinity && left === Infinity) return (await t.getJson<T>({ path, accept, signal })).body;
  const overall = left < own;
  const ac = new AbortController();
  const onAbort = () => ac.abort(abortReason(signal!));
  if (signal?.aborted) throw abortReason(signal);
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer = t.clock.setTimer(Math.min(own, left), () =>
    ac.abort(overall ? new DiscoveryTimeoutError(path, deadline!.ms, true) : new DiscoveryTimeoutError(path, timeoutMs)),
  );
  try {
    return (await t.getJson<T>({ path, accept, signal: ac.signal })).body;
  } finally {
    timer.cancel();
    signal?.removeEventListener('abort', onAbort);
  }
}

export async function discover(t: KubeTransport, opts: DiscoverOptions = {}): Promise<Discovery> {
  const accept = opts.legacyOnly ? 'application/json' : AGGREGATED_DISCOVERY_ACCEPT;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS;
  const overallMs = opts.overallTimeoutMs ?? DEFAULT_DISCOVERY_OVERALL_TIMEOUT_MS;
  const deadline = overallMs > 0 ? { at: t.clock.now() + overallMs, ms: overallMs } : undefined;
  const [api, apis] = await Promise.all([
    getWithDeadline(t, '/api', accept, timeoutMs, opts.signal, deadline).then((body) => ({ body })),
    getWithDeadline(t, '/apis', accept, timeoutMs, opts.signal, deadline).then((body) => ({ body })),
  ]);
  const groups: ApiGroup[] = [];
  const failures: DiscoveryFailure[] = [];
  const legacyFetches: { group: string; version: string; preferred: string }[] = [];
  let aggregated = 0;

  for (const [path, doc] of [
    ['/api', api.body],
    ['/apis', apis.body],
  ] as const) {
    if (isAggregatedDiscovery(doc)) {
      aggregated++;
      const parsed = parseAggregated(doc);
      groups.push(...parsed.groups);
      failures.push(...parsed.failures);
    } else if (path === '/api') {
      const versions = parseApiVersions(doc);
      for (const v of opts.preferredOnly ? versions.slice(0, 1) : versions) legacyFetches.push({ group: '', version: v, preferred: versions[0] });
    } else {
      for (const g of parseGroupList(doc)) {
        for (const v of opts.preferredOnly ? [g.preferredVersion] : g.versions)
          if (v) legacyFetches.push({ group: g.name, version: v, preferred: g.preferredVersion });
      }
    }
  }

  if (legacyFetches.length > 0) {
    const byGroup = new Map<string, ApiGroup>();
    const pool = new WorkerPool<(typeof legacyFetches)[number], void>({
      concurrency: opts.concurrency ?? 8,
      signal: opts.signal,
      run: async (f, ctx) => {
        const path = f.group ? `/apis/${f.group}/${f.version}` : `/api/${f.version}`;
        const body = await getWithDeadline(t, path, undefined, timeoutMs, ctx.signal, deadline);
        const resources = parseResourceList(body, f.group, f.version);
        let g = byGroup.get(f.group);
        if (!g) byGroup.set(f.group, (g = { name: f.group, preferredVersion: f.preferred, versions: [] }));
        g.versions.push({ version: f.version, stale: false, resources });
      },
      onResult: (r) => {
        if (r.status === 'error') {
          const e = r.error;
          failures.push({
            groupVersion: groupVersionOf(r.task.group, r.task.version),
            status: e instanceof KubeApiError ? e.status : undefined,
            message: e instanceof Error ? e.message : String(e),
          });
        }
      },
    });
    try {
      for (const f of legacyFetches) await pool.submit(f);
    } catch {
      // only refused after an abort, which the summary below reports
    }
    const summary = await pool.close();
    if (summary.aborted) throw opts.signal?.reason ?? new Error('discovery aborted');
    // Keep the server's order: the core group first, then /apis order.
    for (const f of legacyFetches) {
      const g = byGroup.get(f.group);
      if (g && !groups.includes(g)) groups.push(g);
    }
    // Versions in the server's order (the pool completes them in any order).
    const rank = new Map(legacyFetches.map((f, i) => [`${f.group}/${f.version}`, i]));
    for (const g of byGroup.values()) g.versions.sort((a, b) => rank.get(`${g.name}/${a.version}`)! - rank.get(`${g.name}/${b.version}`)!);
    // A group whose preferred version failed falls back to another version that loaded.
    for (const g of byGroup.values())
      if (!g.versions.some((v) => v.version === g.preferredVersion) && g.versions[0]) g.preferredVersion = g.versions[0].version;
  }

  return { mode: aggregated === 2 ? 'aggregated' : 'legacy', groups, failures };
}
