/**
 * The load of a listed context as the extension runs it: its own connection (kubeconfig context,
 * credentials, rate limiter: one KubeClient per context, never shared), then the extension's load
 * (runLoad) on the lanes every context shares, with core's reach deadline so a cluster that does
 * not answer is reported unreachable within seconds. No 'vscode' import.
 */
import type { SharedLanes } from '../../core/pool/sharedLanes';
import type { TimelineStore } from '../../core/timeline/store';
import { emptySummary } from '../../core/loader/clusterLoader';
import { Connections, describeConnectionError, type ConnectionTarget } from '../connection/connection';
import type { Logger } from '../logger';
import { runLoad, type LoadSettings } from '../load/loadRunner';
import type { ContextLoad } from './listedContexts';

export interface ContextLoadOptions {
  /** The kubeconfig the contexts are read from (its `context` is ignored: each load names its own). */
  kubeconfig: () => ConnectionTarget['kubeconfig'];
  connection: () => { requestTimeoutMs: number; discoveryCache?: boolean };
  settings: () => LoadSettings;
  timeline: TimelineStore;
  log: Logger;
  origin: number;
  lanes: SharedLanes;
  reachTimeoutMs: number;
}

export class ContextConnections {
  private readonly open = new Map<string, Connections>();
  private seq = 0;

  constructor(private readonly o: ContextLoadOptions) {}

  readonly load: ContextLoad = async ({ name, model, signal, onProgress }) => {
    const target = this.targetOf(name);
    let conns = this.open.get(name);
    if (!conns) this.open.set(name, (conns = new Connections(this.o.connection, this.o.log)));
    let conn;
    try {
      conn = await conns.get(target);
    } catch (e) {
      const problem = describeConnectionError(e, { context: name });
      this.o.log.error(`context "${name}": ${problem.message}`);
      return { summary: { ...emptySummary(), outcome: 'failed', error: new Error(problem.message) } };
    }
    const result = await runLoad({
      client: conn.client,
      contextName: name,
      settings: this.o.settings(),
      model,
      timeline: this.o.timeline,
      log: this.o.log,
      origin: this.o.origin,
      loadId: `${name}-load-${++this.seq}`,
      signal,
      onProgress,
      lanes: this.o.lanes,
      reachTimeoutMs: this.o.reachTimeoutMs,
    });
    if (result.unreachable) this.o.log.warn(`context "${name}" is unreachable: ${result.unreachable}`);
    return { ...result, server: conn.context.server };
  };

  /** The open connection of a listed context (for its YAML documents), if one is open. */
  async client(name: string): Promise<Awaited<ReturnType<Connections['get']>>['client'] | undefined> {
    const conns = this.open.get(name);
    if (!conns) return undefined;
    return (await conns.peek(this.targetOf(name)))?.client;
  }

  /** A listed context's connection target: the kubeconfig of the settings, that context. */
  private targetOf(name: string): ConnectionTarget {
    const kubeconfig = this.o.kubeconfig();
    return { ...(kubeconfig ? { kubeconfig } : {}), context: name };
  }

  close(name: string): void {
    this.open.get(name)?.close();
    this.open.delete(name);
  }

  closeAll(): void {
    for (const name of [...this.open.keys()]) this.close(name);
  }
}
