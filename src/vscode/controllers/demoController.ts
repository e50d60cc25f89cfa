/**
 * Start Demo Cluster / Stop Demo Cluster: the embedded demo cluster (src/demo) in the extension
 * host, its kubeconfig in the extension's global storage (mode 0600), the extension pointed at it.
 * Options come from KUBELOOP_DEMO_* environment variables (../demo/demoOptions.ts). The cluster
 * stops with the extension (deactivate). Glue only.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { startDemoCluster, type DemoCluster } from '../../demo';
import { COMMANDS, CONTEXT_KEYS } from '../../app/commandIds';
import type { ConnectionTarget } from '../../app/connection/connection';
import { demoSettingsFromEnv, describeDemoSettings } from '../../app/demo/demoOptions';
import { appendReconciles } from '../../app/timeline/controllers';
import type { TargetState } from '../../app/connection/target';
import type { Logger } from '../../app/logger';
import { setContextKey, type Storage, type TimelineSink } from './services';

export type DemoDeps = TimelineSink & Storage & { readonly log: Logger; readonly target: TargetState };

/** The context name the demo cluster's kubeconfig defines (src/demo/kubeconfig.ts). */
export const DEMO_CONTEXT = 'kubeloop-demo';

export class DemoController implements vscode.Disposable {
  private cluster: DemoCluster | undefined;
  private starting: Promise<DemoCluster | undefined> | undefined;
  private kubeconfigPath: string | undefined;

  constructor(private readonly s: DemoDeps) {}

  /** While running: its name, URL and the target that points at it. */
  get info(): { name: string; url: string; target: () => ConnectionTarget } | undefined {
    const c = this.cluster;
    const path = this.kubeconfigPath;
    if (!c || !path) return undefined;
    return { name: DEMO_CONTEXT, url: c.url, target: () => ({ kubeconfig: path, context: DEMO_CONTEXT, demo: true }) };
  }

  async start(): Promise<void> {
    if (this.cluster) {
      this.s.target.setDemo(this.info!.target());
      this.offerNext(`KubeLoop: the demo cluster is already running at ${this.cluster.url}.`);
      return;
    }
    if (this.starting) {
      await this.starting;
      return;
    }
    let settings;
    try {
      settings = demoSettingsFromEnv();
    } catch (e) {
      void vscode.window.showErrorMessage(`KubeLoop: cannot start the demo cluster: ${(e as Error).message}`);
      return;
    }
    const path = join(this.s.storagePath, 'demo', 'kubeconfig');
    this.starting = Promise.resolve(
      vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'KubeLoop: starting the demo cluster…' }, async () => {
        const cluster = await startDemoCluster({
          host: '127.0.0.1',
          port: 0,
          objects: settings.objects,
          seed: settings.seed,
          churnPerSecond: settings.churnPerSecond,
          faults: settings.faults,
          forbidden: settings.forbidden,
          kubelet: true,
          // in this process, so each controller's reconciles can be its own timeline lane
          controllers: settings.controllers,
          onControllerReconcile: appendReconciles(this.s.timeline, this.s.origin),
        });
        try {
          await cluster.writeKubeconfig(path);
        } catch (e) {
          await cluster.stop();
          throw e;
        }
        return cluster;
      }),
    );
    let cluster: DemoCluster | undefined;
    try {
      cluster = await this.starting;
    } catch (e) {
      this.s.log.error(`demo cluster: failed to start: ${(e as Error).message}`);
      void vscode.window.showErrorMessage(`KubeLoop: the demo cluster failed to start: ${(e as Error).message}`);
      return;
    } finally {
      this.starting = undefined;
    }
    if (!cluster) return;
    this.cluster = cluster;
    this.kubeconfigPath = path;
    setContextKey(CONTEXT_KEYS.demoRunning, true);
    const what = describeDemoSettings(settings);
    this.s.log.info(`demo cluster: running at ${cluster.url} (${what}); kubeconfig ${path}`);
    this.s.target.setDemo(this.info!.target());
    this.offerNext(`KubeLoop: demo cluster running at ${cluster.url} (${what}).`);
  }

  async stop(): Promise<void> {
    const c = this.cluster;
    if (!c) return;
    this.cluster = undefined;
    setContextKey(CONTEXT_KEYS.demoRunning, false);
    if (this.s.target.isDemo) this.s.target.setDemo(undefined);
    await c.stop();
    // Its kubeconfig names a server that no longer exists.
    if (this.kubeconfigPath) await rm(this.kubeconfigPath, { force: true }).catch(() => undefined);
    this.kubeconfigPath = undefined;
    this.s.log.info('demo cluster: stopped');
  }

  private offerNext(message: string): void {
    void vscode.window.showInformationMessage(message, 'Load Cluster Resources', 'Start Sync Loop').then((c) => {
      if (c === 'Load Cluster Resources') void vscode.commands.executeCommand(COMMANDS.loadClusterResources.id);
      if (c === 'Start Sync Loop') void vscode.commands.executeCommand(COMMANDS.startSyncLoop.id);
    });
  }

  dispose(): void {
    void this.stop();
  }
}
