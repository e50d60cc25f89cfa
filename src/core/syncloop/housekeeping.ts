import type { SyncLoop } from './syncloop';
import type { DesiredObject } from './state/desired';
import { computeObjectView, type ObjectView } from '../rows/objectView';
import { isPodResource } from '../kube/objects/objectKey';
import { type Pod } from '../kube/objects/pod';
import { isTerminalPhase } from './sync';

/**
 * HandlePodCleanups: upstream kubelet_pods.go, the case that catches what the others missed. It
 * compares the two sets and the workers and repairs every gap, whatever caused it:
 *
 * 1. Workers of pod UIDs no longer desired are driven to termination, and finished ones are
 *    forgotten (podWorkers.SyncKnownPods).
 * 2. Views in the actual state that no desired object and no worker accounts for are removed (a
 *    REMOVE that never arrived, a worker forgotten with its view still shown).
 * 3. Desired keys without a worker get one (work dropped before it started).
 * 4. Desired pods whose worker is idle with no work queued, or whose view is missing, are synced
 *    again (work dropped after it started). Non-pod objects (kept by their informers) whose view is
 *    missing or older than the object get it recomputed.
 * 5. Probe results of keys no longer desired are dropped.
 * 6. The wiring's hook runs (it restarts dead watches and relists).
 *
 * Every step reads current state only, so running it twice in a row does nothing the second time
 * (idempotent). A missed event about a pod is repaired within one housekeeping period of the sources
 * being right again. Views (step 2) and non-pod objects (step 4) are swept HOUSEKEEPING_SWEEP at a
 * time, each pass going on where the last one stopped: a missed event about them is repaired
 * within ceil(N / HOUSEKEEPING_SWEEP) periods (one period up to 16,384 objects; 7 at 100,000).
 * Upstream's HandlePodCleanups walks a node's pods (110 at most); walking every object of a
 * 100,000-object cluster every 2 s cost the extension host 14 % of a core under churn, and 14-21 s
 * passes at 1,000,000.
 */
export interface HousekeepingReport {
  removed: string[];
  /** Finished workers forgotten (their objects are gone and cleaned up). */
  forgotten: string[];
  terminating: string[];
  readded: string[];
  resynced: string[];
  hookError?: string;
}

/**
 * Items handled between two yields to the event loop: housekeeping walks every view and every
 * object the loop holds, 100,000 and more on a big cluster (measured: 300-900 ms in one go at
 * 100k, every 2 s), and the thread it runs on is the extension host's. A batch of this size
 * takes a few ms.
 */
export const HOUSEKEEPING_BATCH = 2_048;

/**
 * Lets the event loop run between batches. While it does, informer handlers may change the
 * desired and actual state, so every step below reads the current state of each item when it
 * handles it (never a snapshot taken before a yield): an object added meanwhile is never taken
 * for a leftover, one removed meanwhile is never re-added.
 */
/** Views, and non-pod objects, one pass looks at (see the header). */
export const HOUSEKEEPING_SWEEP = 16_384;

/** Where the last pass stopped, per loop: live Map iterators (entries added meanwhile are met, removed ones skipped). */
interface Sweep {
  views?: Iterator<ObjectView>;
  objects?: Iterator<DesiredObject>;
}
const sweeps = new WeakMap<SyncLoop, Sweep>();

/**
 * Up to `budget` items, going on from where the last pass stopped; a lap that ends starts again on
 * the next pass (never twice in one pass). `keep` filters without spending the budget. Items are
 * taken from the live iterator one at a time as the pass reaches them (no array of them: a copy of
 * 16,384 items lived across the pass's yields every 2 s, long enough to reach the old generation).
 * The position is saved when the pass stops taking, whether it ran to its budget or left early.
 */
function* slice<T>(sweep: Sweep, which: 'views' | 'objects', fresh: () => Iterator<T>, budget: number, keep: (x: T) => boolean = () => true): Generator<T> {
  let it: Iterator<T> | undefined = (sweep[which] as Iterator<T> | undefined) ?? fresh();
  let taken = 0;
  let seen = 0;
  try {
    while (taken < budget) {
      const r = it.next();
      if (r.done) {
        it = undefined;
        break;
      }
      const take = keep(r.value);
      // Skipped items cost a little too: bound them, or a lap of pods alone could run on unbounded.
      const last = ++seen >= 4 * budget;
      if (take) {
        taken++;
        yield r.value;
      }
      if (last) break;
    }
  } finally {
    (sweep as Record<string, unknown>)[which] = it;
  }
}

function* chain<T>(a: Iterable<T>, b: Iterable<T>): Generator<T> {
  yield* a;
  yield* b;
}

/** Every HOUSEKEEPING_BATCH items, a turn of the event loop; otherwise nothing (no promise per item). */
function breathe(done: number, signal: AbortSignal): Promise<void> | undefined {
  if (done % HOUSEKEEPING_BATCH !== 0) return undefined;
  return new Promise<void>((r) => setImmediate(r)).then(() => {
    if (signal.aborted) throw signal.reason;
  });
}

export async function handlePodCleanups(kl: SyncLoop, signal: AbortSignal): Promise<HousekeepingReport> {
  const report: HousekeepingReport = { removed: [], forgotten: [], terminating: [], readded: [], resynced: [] };
  // Step 1 reads the pods alone, in one synchronous pass (no yield: the pod workers are reconciled
  // with one consistent set). The desired set is asked through its UID index, not copied: this runs
  // every 2 s over every pod, and a copy of 20,000 entries each time was garbage for the major GC.
  const desiredPods = { has: (uid: string) => kl.desired.hasPodUID(uid) };
  kl.podWorkers.syncKnownPods(desiredPods, report.forgotten, (_uid, key, state, orphan) => {
    if (orphan && state !== 'terminated') report.terminating.push(key);
  });

  let sweep = sweeps.get(kl);
  if (!sweep) sweeps.set(kl, (sweep = {}));
  let done = 0;
  for (const view of slice(sweep, 'views', () => kl.actual.values(), HOUSEKEEPING_SWEEP)) {
    const turn = breathe(++done, signal);
    if (turn) await turn;
    const cur = kl.actual.get(view.key);
    if (!cur || cur.uid !== view.uid) continue; // replaced or removed meanwhile
    if (kl.desired.get(view.key)?.obj.metadata.uid === view.uid || kl.podWorkers.isKnown(view.uid)) continue;
    if (kl.actual.delete(view.key, view.uid)) report.removed.push(view.key);
  }

  const objects = slice(
    sweep,
    'objects',
    () => kl.desired.values(),
    HOUSEKEEPING_SWEEP,
    (d) => !isPodResource(d.resource),
  );
  // The pods are walked live (a Map iterator across the yields: a pod added meanwhile is met and
  // checked like the others, one removed meanwhile is skipped), not copied first.
  for (const entry of chain(objects, kl.desired.pods())) {
    const turn = breathe(++done, signal);
    if (turn) await turn;
    const d = kl.desired.get(entry.key);
    if (!d) continue; // removed meanwhile
    const uid = d.obj.metadata.uid;
    if (!isPodResource(d.resource)) {
      // Kept by its informer: a view missing or older than the object is recomputed here.
      const view = kl.actual.get(d.key);
      if (!view || view.uid !== uid || view.resourceVersion !== d.obj.metadata.resourceVersion) {
        kl.actual.set(computeObjectView(d.key, d.obj, d.resource));
        report.resynced.push(d.key);
      }
      continue;
    }
    const known = kl.podWorkers.isKnown(uid);
    if (isTerminalPhase(d.obj as Pod) && (!known || kl.podWorkers.isFinished(uid))) {
      // Upstream restarts only active pods: a terminal one whose worker finished, or that has none
      // (rejected at admission, or finished and forgotten), gets none until it is deleted. It is
      // still shown until then: a view missing or older than the object is recomputed.
      const view = kl.actual.get(d.key);
      if (!view || view.uid !== uid || view.resourceVersion !== d.obj.metadata.resourceVersion) {
        kl.actual.set(computeObjectView(d.key, d.obj, d.resource));
        report.resynced.push(d.key);
      }
      continue;
    }
    if (!known) {
      kl.podWorkers.UpdatePod({ updateType: 'create', key: d.key, obj: d.obj, resource: d.resource });
      report.readded.push(d.key);
      continue;
    }
    // A worker with work in hand (made meanwhile, or busy) needs nothing; a finished one waits to be forgotten.
    if (kl.podWorkers.isWorking(uid) || kl.podWorkers.isFinished(uid)) continue;
    // Work dropped after it started: a view missing, or a worker with nothing queued. (A view older
    // than the pod is not work lost: status-only changes wait for the PLEG, the prober or the resync,
    // as upstream's RECONCILE does.)
    const view = kl.actual.get(d.key);
    if (!view || view.uid !== uid || !kl.workQueue.has(uid)) {
      kl.podWorkers.UpdatePod({ updateType: 'sync', key: d.key, obj: d.obj, resource: d.resource });
      report.resynced.push(d.key);
    }
  }

  for (const uid of kl.probeResults.keys()) if (!desiredPods.has(uid)) kl.probeResults.delete(uid);

  if (kl.opts.onHousekeeping) {
    try {
      await kl.opts.onHousekeeping(signal);
    } catch (e) {
      if (signal.aborted) throw e;
      report.hookError = e instanceof Error ? e.message : String(e);
    }
  }
  return report;
}
