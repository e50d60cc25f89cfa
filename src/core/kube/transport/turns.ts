/**
 * Turns: a page of a list waits for its turn before this thread parses it, one page per turn of
 * the event loop, so what else arrived meanwhile (an extension host's messages from the workbench,
 * a watch event, a timer) is handled between two pages rather than after all of them.
 *
 * Why: pages of several lanes often complete in the same poll of the event loop; Node then runs
 * their handlers (each a JSON.parse of up to a few hundred KB and the rows made of it) one after
 * another before it reads the next message of any other socket. Granting turns from setImmediate,
 * one at a time, puts a poll of I/O between any two pages.
 *
 * Guarantees: waiters are granted in the order they asked (FIFO), at most one per event-loop turn;
 * every waiter is granted (nothing is dropped), an aborted one at once with the abort's reason.
 */
const waiting: { grant: () => void }[] = [];
let scheduled = false;

function next(): void {
  scheduled = false;
  const w = waiting.shift();
  if (waiting.length > 0) {
    scheduled = true;
    setImmediate(next); // queued from a check-phase callback: runs on the next turn, after a poll
  }
  w?.grant();
}

/** Resolves on this thread's next free turn (see above). */
export function pageTurn(signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const w = {
      grant: () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
    };
    const onAbort = () => {
      const i = waiting.indexOf(w);
      if (i >= 0) waiting.splice(i, 1);
      reject(signal!.reason);
    };
    if (signal?.aborted) return reject(signal.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    waiting.push(w);
    if (!scheduled) {
      scheduled = true;
      setImmediate(next);
    }
  });
}
