/**
 * The window's loads: one at a time, on what its Session is connected to. No 'vscode' import: the
 * glue (vscode/controllers/loadController.ts) adds the progress notification and the messages.
 *
 * Guarantees:
 * - One load at a time: a new load aborts the one running, connecting included, and starts once
 *   that one has settled.
 * - Each load begins a Session lease before it connects and retargets the model once (the lease's
 *   show), so a load whose target was switched away, or that was superseded or cancelled, before
 *   it connected ends 'dropped' and writes nothing; one switched away later writes nothing more.
 * - Never rejects: a connection failure is the outcome 'unconnected', a cluster failure the
 *   summary's outcome.
 */
import type { SharedLanes } from '../../core/pool/sharedLanes';
import type { TimelineStore } from '../../core/timeline/store';
import type { ConnectionTarget, OpenConnection } from '../connection/connection';
import type { Session } from '../connection/session';
import type { Logger } from '../logger';
import type { Relations } from '../relations/relations';
import { runLoad, type LoadProgress, type LoadResult, type LoadSettings } from './loadRunner';

export type WindowLoadOutcome =
  | { kind: 'loaded'; result: LoadResult; conn: OpenConnection }
  | { kind: 'unconnected'; error: unknown; target: ConnectionTarget }
  /** Superseded, cancelled, or its target switched away before it connected. */
  | { kind: 'dropped' };

export interface WindowLoadOptions {
  /** Refresh one type, in one namespace when given; the rest of the model stays. */
  only?: { typeKey: string; namespace?: string };
  onProgress?: (p: LoadProgress) => void;
  /** Connected and retargeted: the load itself starts now. */
  onStart?: (conn: OpenConnection, signal: AbortSignal) => void;
}

export interface WindowLoadsDeps {
  readonly session: Session;
  settings(): LoadSettings;
  readonly timeline: TimelineStore;
  readonly log: Logger;
  readonly origin: number;
  readonly lanes: SharedLanes;
  /** The owner index beside the window's model, fed by every load. */
  readonly relations?: Relations;
}

export class WindowLoads {
  private current: { ac: AbortController; done: Promise<unknown> } | undefined;
  private seq = 0;

  constructor(private readonly d: WindowLoadsDeps) {}

  get loading(): boolean {
    return !!this.current;
  }

  async load(opts: WindowLoadOptions = {}): Promise<WindowLoadOutcome> {
    const previous = this.current;
    const ac = new AbortController();
    const entry = { ac, done: Promise.resolve() as Promise<unknown> };
    this.current = entry;
    if (previous) {
      previous.ac.abort(new Error('superseded by a new load'));
      await previous.done.catch(() => undefined);
    }
    const lease = this.d.session.begin(ac.signal);
    const done = this.run(opts, lease).finally(() => {
      lease.release();
      if (this.current === entry) this.current = undefined;
    });
    entry.done = done;
    return done;
  }

  /** Aborts the running load (Cancel Load); false when none runs. */
  cancel(reason = 'cancelled by the user'): boolean {
    if (!this.current) return false;
    this.current.ac.abort(new Error(reason));
    return true;
  }

  dispose(): void {
    this.current?.ac.abort(new Error('the extension is shutting down'));
  }

  private async run(opts: WindowLoadOptions, lease: ReturnType<Session['begin']>): Promise<WindowLoadOutcome> {
    if (lease.signal.aborted) return { kind: 'dropped' };
    const target = this.d.session.target.current();
    let conn: OpenConnection;
    try {
      conn = await lease.connect();
    } catch (error) {
      return lease.current && !lease.signal.aborted ? { kind: 'unconnected', error, target } : { kind: 'dropped' };
    }
    const settings = this.d.settings();
    if (lease.signal.aborted || !lease.show(conn, opts.only ? undefined : settings.namespaces)) return { kind: 'dropped' };
    opts.onStart?.(conn, lease.signal);
    const result = await runLoad({
      client: conn.client,
      contextName: conn.context.name,
      settings,
      ...(opts.only ? { only: opts.only } : {}),
      model: lease.into,
      timeline: this.d.timeline,
      log: this.d.log,
      origin: this.d.origin,
      loadId: `load-${++this.seq}`,
      signal: lease.signal,
      lanes: this.d.lanes,
      ...(this.d.relations ? { relations: this.d.relations } : {}),
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    });
    return { kind: 'loaded', result, conn };
  }
}
