/**
 * Part of the I/O thread (ioWorker.ts): spare connections. Shipped as source text: self-contained.
 *
 * Spares (the `warm` message, ioWarm.ts) are opened ahead of the lists, while the main thread still
 * waits for discovery and the access reviews, so a lane's first page does not also wait for a TCP
 * and TLS handshake (two round trips far away). They belong to the agent that opened them (so to
 * one channel); the agent's createConnection hands one out before it would dial. A spare is a
 * connection, never a request: the server sees no request it would not have seen.
 */
import type { Socket } from 'node:net';
import type { Spare } from './ioProtocol';

export function spareConnections() {
  /** A spare connection nobody took is closed after this long (unref'd: it never holds the thread). */
  const SPARE_IDLE_MS = 30_000;
  let spares: Spare[] = [];
  const drop = (sp: Spare) => {
    clearTimeout(sp.timer);
    spares = spares.filter((x) => x !== sp);
  };
  /** A spare of `owner` to `key` (host:port), a ready one first. */
  const take = (owner: unknown, key: string): Socket | undefined => {
    const fits = (x: Spare) => x.owner === owner && x.key === key && !x.socket.destroyed;
    let at = spares.findIndex((x) => fits(x) && x.ready);
    if (at < 0) at = spares.findIndex(fits);
    if (at < 0) return undefined;
    const sp = spares[at];
    drop(sp);
    return sp.socket;
  };
  /** Keeps a connection `owner` just dialled to `key` as a spare (until taken, failed or idle). */
  const add = (socket: Socket, owner: unknown, key: string): Spare => {
    const sp: Spare = { socket, owner, key, ready: false, timer: setTimeout(() => (drop(sp), socket.destroy()), SPARE_IDLE_MS) };
    sp.timer.unref?.();
    spares.push(sp);
    return sp;
  };
  /** Destroys the spares of one agent (the others' channels keep theirs). */
  const destroyOf = (owner: unknown) => {
    const mine = spares.filter((x) => x.owner === owner);
    spares = spares.filter((x) => x.owner !== owner);
    for (const sp of mine) (clearTimeout(sp.timer), sp.socket.destroy());
  };
  /** The agent, made to hand out its spares before it dials; `a.dial` is its own createConnection. */
  const sparing = (a: any) => {
    const dial = a.createConnection;
    a.createConnection = function (this: unknown, options: { host?: string; port?: number | string }, cb: unknown) {
      return take(a, `${options.host}:${options.port}`) ?? dial.call(this, options, cb);
    };
    a.dial = dial;
    return a;
  };
  const countOf = (owner: unknown) => spares.filter((x) => x.owner === owner).length;
  const liveOf = (owner: unknown) => spares.filter((x) => x.owner === owner && !x.socket.destroyed);
  return { drop, add, destroyOf, sparing, countOf, liveOf };
}

export type Spares = ReturnType<typeof spareConnections>;
