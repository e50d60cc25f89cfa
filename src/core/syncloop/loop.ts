import { HOUSEKEEPING_PERIOD_MS, SYNC_PERIOD_MS, type SyncLoop } from './syncloop';
import { syncLoopIteration } from './iteration';
import { kv } from './log';
import { Ticker } from './ticker';

/** Upstream syncLoop's backoff on runtime errors: 100 ms, doubling, capped at 5 s. */
export const BACKOFF_BASE_MS = 100;
export const BACKOFF_MAX_MS = 5000;
export const BACKOFF_FACTOR = 2;

/**
 * syncLoop: upstream kubelet.go — ticks syncCh every second and housekeepingCh every two (or
 * opts.housekeepingPeriodMs), and runs
 * syncLoopIteration until the signal aborts or configCh closes. Before each iteration it checks
 * runtimeErrors(); while there is one it skips the iteration (a 'sync' mark, op 'skipped', carries the
 * error on the timeline) and sleeps 100 ms, 200, 400, ... capped at 5 s, and resets to 100 ms after
 * the first clean check.
 *
 * Guarantees: resolves (never rejects) when the signal aborts; on return the tickers are stopped
 * and the pod workers' in-flight syncs are aborted, so no timer or sync outlives the loop.
 */
export async function syncLoop(kl: SyncLoop, signal: AbortSignal): Promise<void> {
  kl.logger.info('Starting kubelet main sync loop', 0);
  const syncTicker = new Ticker(kl.clock, SYNC_PERIOD_MS, 'syncCh');
  const housekeepingTicker = new Ticker(kl.clock, kl.opts.housekeepingPeriodMs ?? HOUSEKEEPING_PERIOD_MS, 'housekeepingCh');
  let duration = BACKOFF_BASE_MS;
  try {
    while (!signal.aborted) {
      const err = kl.opts.runtimeErrors?.();
      if (err) {
        kl.logger.error(`Skipping pod synchronization${kv({ err: err.message })}`);
        // One mark per skip (at most one per BACKOFF_MAX_MS once backed off): where the loop is not running.
        const t = Math.round((kl.clock.now() - kl.origin) * 1000) / 1000;
        kl.timeline?.append({
          kind: 'iteration',
          t,
          durationMs: 0,
          source: 'sync',
          op: 'skipped',
          key: '',
          handler: 'none',
          outcome: 'error',
          message: `Skipping pod synchronization: ${err.message}`,
        });
        await kl.clock.sleep(duration, signal);
        duration = Math.min(BACKOFF_MAX_MS, BACKOFF_FACTOR * duration);
        continue;
      }
      duration = BACKOFF_BASE_MS;
      if (!(await syncLoopIteration(kl, syncTicker.C, housekeepingTicker.C, signal))) break;
    }
  } catch (e) {
    if (!signal.aborted) throw e;
  } finally {
    syncTicker.stop();
    housekeepingTicker.stop();
    kl.podWorkers.stop();
  }
}
