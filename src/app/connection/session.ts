/**
 * Session: the one owner of what the window is connected to: the target (TargetState), its one
 * client (Connections), and which cluster the window's model shows (context, server, namespace
 * scope). The only caller of the window model's `retarget`. No 'vscode' import.
 *
 * Work on the cluster (a load, the sync loop's start, a namespace listing) begins a Lease before it
 * connects, and asks the lease to show its connection once it is open.
 *
 * Guarantees:
 * - A switch of target aborts every lease begun before it, closes the client, empties the model
 *   and then tells `onDidSwitch` listeners, all synchronously, in that order.
 * - A lease begun on one target never writes to the model once another target is current: its
 *   show() returns false and its `into` drops every write. So a load still connecting (an exec
 *   credential plugin can take minutes) when the user switches context cannot leave the model on
 *   the old context, nor put the old cluster's objects under the new one's name.
 * - show() is the one retarget of a load: another context (or server) empties the model first.
 */
import type { LoadInto } from '../load/loadRunner';
import type { ResourceModel } from '../model/resourceModel';
import type { ConnectionTarget, Connections, OpenConnection } from './connection';
import type { TargetState } from './target';

export interface Lease {
  /** Aborted when the target switches, or when the `parent` given to begin() aborts. */
  readonly signal: AbortSignal;
  /** True while the target this lease began on is still the window's. */
  readonly current: boolean;
  /**
   * The window's client for the lease's target (opening it if needed). Throws as Connections.get,
   * and with the signal's reason as soon as the lease is aborted (the opening itself goes on, and
   * a switch closes what it opens).
   */
  connect(): Promise<OpenConnection>;
  /**
   * Shows `conn`'s context and server in the model, with `namespaces` as its scope when given
   * (emptying it for another context or scope). False, and nothing written, when no longer current.
   */
  show(conn: OpenConnection, namespaces?: readonly string[]): boolean;
  /** The model as a load writes it: every write is dropped once the lease is no longer current. */
  readonly into: LoadInto;
  /** Done with the lease: it stops listening to its parent. */
  release(): void;
}

export class Session {
  private epoch = 0;
  private readonly leases = new Set<AbortController>();
  private readonly listeners = new Set<(t: ConnectionTarget) => void>();

  constructor(
    readonly target: TargetState,
    private readonly connections: Connections,
    private readonly model: ResourceModel,
  ) {
    target.onDidChange((t) => this.switched(t));
  }

  /** Told after a switch of target has stopped the old target's work and emptied the model. */
  onDidSwitch(fn: (t: ConnectionTarget) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  begin(parent?: AbortSignal): Lease {
    const epoch = this.epoch;
    const target = this.target.current();
    const ac = new AbortController();
    const onParent = () => ac.abort(parent!.reason);
    const release = () => {
      parent?.removeEventListener('abort', onParent);
      this.leases.delete(ac);
    };
    if (parent?.aborted) ac.abort(parent.reason);
    else parent?.addEventListener('abort', onParent, { once: true });
    this.leases.add(ac);
    const current = () => this.epoch === epoch;
    const { model } = this;
    return {
      signal: ac.signal,
      get current() {
        return current();
      },
      connect: () => settledOrAborted(this.connections.get(target), ac.signal),
      show: (conn, namespaces) => {
        if (!current()) return false;
        model.retarget({ context: conn.context.name, server: conn.context.server, ...(namespaces ? { namespaces } : {}) });
        return true;
      },
      into: {
        rescope: (ns) => current() && model.rescope(ns),
        registerTypes: (types) => void (current() && model.registerTypes(types)),
        applyResult: (r) => void (current() && model.applyResult(r)),
        retainFailures: (keys) => void (current() && model.retainFailures(keys)),
        retainTypes: (keys) => void (current() && model.retainTypes(keys)),
      },
      release,
    };
  }

  /** The open client of the current target, if one is open (nothing is opened). */
  peek(): Promise<OpenConnection | undefined> {
    return this.connections.peek(this.target.current());
  }

  /** The current target's client, opening it; undefined when it cannot be opened (for reads that report nothing). */
  async open(): Promise<OpenConnection | undefined> {
    return this.connections.get(this.target.current()).catch(() => undefined);
  }

  /** Closes the client: the next connect opens a fresh one (reading the kubeconfig again). */
  close(): void {
    this.connections.close();
  }

  private switched(t: ConnectionTarget): void {
    this.epoch++;
    for (const ac of [...this.leases]) ac.abort(new Error('the cluster changed'));
    this.leases.clear();
    this.connections.close();
    this.model.retarget({ context: undefined });
    for (const l of [...this.listeners]) l(t);
  }
}

/** `p`, or a rejection with the signal's reason as soon as `signal` aborts. */
function settledOrAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
