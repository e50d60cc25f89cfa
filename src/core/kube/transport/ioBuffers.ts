/**
 * Part of the I/O thread (ioWorker.ts): body buffers the main thread has decoded and sent back,
 * reused so bodies cost no fresh memory (no page faults here, no unmapping there). Shipped as
 * source text: self-contained.
 */
export function bodyBuffers() {
  /** At most this many are kept; a recycled buffer past it is left to the collector. */
  const KEEP = 16;
  const pool: ArrayBuffer[] = [];
  /** A buffer of the pool that holds `size` bytes (the smallest such), if any. */
  const pooled = (size: number): Buffer | undefined => {
    let best = -1;
    for (let i = 0; i < pool.length; i++) if (pool[i].byteLength >= size && (best < 0 || pool[i].byteLength < pool[best].byteLength)) best = i;
    if (best < 0) return undefined;
    const ab = pool.splice(best, 1)[0];
    return Buffer.from(ab, 0, size);
  };
  /** Its ArrayBuffer is its own (never a slice of Node's shared pool), so it can be transferred. */
  const bodyBuffer = (size: number): Buffer => pooled(size) ?? Buffer.allocUnsafeSlow(size);
  const recycle = (ab: ArrayBuffer) => {
    if (pool.length < KEEP) pool.push(ab);
  };
  return { pooled, bodyBuffer, recycle };
}

export type BodyBuffers = ReturnType<typeof bodyBuffers>;
