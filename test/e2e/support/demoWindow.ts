import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DemoCluster } from '../../../src/demo';
import { startVsCode, type Session } from './session';

export interface DemoWindow {
  /** VS Code with the workbench loaded and KubeLoop's view container open. */
  s: Session;
  /** Closes VS Code, stops the cluster and removes the kubeconfig's folder. */
  close(): Promise<void>;
}

/**
 * A real VS Code on a demo cluster of the test's: `writeKubeconfig` writes the kubeconfig the test
 * wants (into a folder of its own, removed on close), set as `kubeloop.kubeconfig`. From the call
 * on, the window owns the cluster: a failure on the way closes what was made, the cluster included,
 * so a test's `after` needs only `close()` what it got.
 */
export async function openOnDemoCluster(name: string, cluster: DemoCluster, writeKubeconfig: (path: string) => unknown): Promise<DemoWindow> {
  let dir: string | undefined;
  let s: Session | undefined;
  const close = async () => {
    await s?.close();
    await cluster.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    dir = mkdtempSync(join(tmpdir(), `kubeloop-e2e-${name}-`));
    const kubeconfig = join(dir, 'config');
    await writeKubeconfig(kubeconfig);
    s = await startVsCode({ name, settings: { 'kubeloop.kubeconfig': kubeconfig } });
    const session = s;
    await session.step('workbench loaded', () => session.workbench.waitReady('KubeLoop'));
    await session.workbench.openViewContainer('KubeLoop');
    return { s: session, close };
  } catch (e) {
    await close();
    throw e;
  }
}
