import { Fifo } from './fifo';

/**
 * AsyncQueue: an unbounded, single-consumer stream of values, consumed with `for await`.
 *
 * Guarantees:
 * - push() never blocks and never fails while the queue is open: a producer (a pool worker) can
 *   never wait on a slow consumer, so no producer/consumer deadlock is possible. The price is memory:
 *   values the consumer has not read yet stay buffered.
 * - Every pushed value is yielded exactly once, in push order; after end() the iterator finishes
 *   once the buffer is drained.
 * - If the consumer stops early (break/return), the buffer is released and later pushes are dropped,
 *   so an abandoned stream retains nothing.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private buf = new Fifo<T>();
  private waiter: ((r: IteratorResult<T>) => void) | undefined;
  private ended = false;
  private abandoned = false;
  private taken = false;

  push(value: T): void {
    if (this.ended) throw new Error('AsyncQueue: push after end');
    if (this.abandoned) return;
    const w = this.waiter;
    if (w) {
      this.waiter = undefined;
      w({ value, done: false });
    } else {
      this.buf.push(value);
    }
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    const w = this.waiter;
    if (w) {
      this.waiter = undefined;
      w({ value: undefined, done: true });
    }
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Values buffered and not yet read. */
  get buffered(): number {
    return this.buf.length;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.taken) throw new Error('AsyncQueue has a single consumer; it is already being iterated');
    this.taken = true;
    return {
      next: (): Promise<IteratorResult<T>> => {
        if (this.buf.length > 0) return Promise.resolve({ value: this.buf.shift() as T, done: false });
        if (this.ended || this.abandoned) return Promise.resolve({ value: undefined, done: true });
        if (this.waiter) return Promise.reject(new Error('AsyncQueue: next() called again before the previous one settled'));
        return new Promise((resolve) => (this.waiter = resolve));
      },
      return: (): Promise<IteratorResult<T>> => {
        this.abandoned = true;
        this.buf.drain();
        const w = this.waiter;
        this.waiter = undefined;
        w?.({ value: undefined, done: true });
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
