/**
 * The row a tree command acts on when a click ran it: the tree view's selection, read once VS Code
 * knows the row again.
 *
 * Why this waits: VS Code names the selected rows by handle, and when a row's parent is refreshed
 * (a kind row's count, or its sync-loop freshness when the loop stops) it forgets the handles of
 * that parent's children until it has read them again. A click in that window reaches the command
 * with a selection it cannot resolve: empty. The row's command carries no argument for the same
 * reason (an argument is handed over under an id VS Code drops with the refreshed row, and the click
 * is then lost without a word to the extension).
 *
 * Guarantees:
 * - A resolvable selection is answered at once; so is an empty one while the tree has no refresh
 *   that VS Code has not read back (nothing was clicked: the command was run from the palette).
 * - Otherwise the selection is read again after each read of children, until it resolves or
 *   `settleMs` has passed (then undefined), or the signal aborts (rejects with its reason).
 *   No listener or timer outlives the wait.
 */
import { abortReason, type Clock } from '../../core/clock';

export interface SelectionSource<T> {
  /** The selected rows as VS Code resolves them now. */
  selection(): readonly T[];
  /** Whether the tree fired a refresh that VS Code has not read any children for since. */
  rereadPending(): boolean;
  /** Calls `cb` after each read of children, once VS Code knows their handles again; returns the unsubscribe. */
  onChildrenRead(cb: () => void): () => void;
}

/** How long a click's selection may wait for VS Code to read a refreshed row's children again. */
export const SELECTION_SETTLE_MS = 3000;

export function settledSelection<T>(src: SelectionSource<T>, clock: Clock, settleMs: number, signal?: AbortSignal): Promise<T | undefined> {
  const now = src.selection()[0];
  if (now !== undefined || !src.rereadPending()) return Promise.resolve(now);
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T | undefined>((resolve, reject) => {
    const end = (f: () => void) => {
      off();
      timer.cancel();
      signal?.removeEventListener('abort', onAbort);
      f();
    };
    const onAbort = () => end(() => reject(abortReason(signal!)));
    const off = src.onChildrenRead(() => {
      const node = src.selection()[0];
      if (node !== undefined) end(() => resolve(node));
    });
    const timer = clock.setTimer(settleMs, () => end(() => resolve(undefined)));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
