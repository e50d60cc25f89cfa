/**
 * What the walkthrough's steps wait for (walkthrough.ts): context keys set from the model, and the
 * "Open Terminal on Demo Cluster" command the probe-me step offers. Glue only.
 *
 * Guarantees: a key is set once when its state is first reached and never cleared (a walkthrough
 * step, once done, stays done, as VS Code keeps it); the model is read on its change events only
 * (a few map lookups per change, never a scan of the objects).
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../../app/commandIds';
import type { ResourceModel } from '../../app/model/resourceModel';
import { PROBE_ME, WALKTHROUGH_KEYS } from '../../app/walkthrough/walkthrough';

/** Whether the model shows the probe-me pod restarted at least once. */
export function probeMeRestarted(model: ResourceModel): boolean {
  const e = model.object(PROBE_ME.namespace, 'pods', PROBE_ME.name);
  return (e?.view.restarts ?? 0) > 0;
}

export function trackWalkthrough(model: ResourceModel): vscode.Disposable {
  const done = new Set<string>();
  const mark = (key: string) => {
    if (done.has(key)) return;
    done.add(key);
    void vscode.commands.executeCommand('setContext', key, true);
  };
  const check = () => {
    if (!done.has(WALKTHROUGH_KEYS.loaded) && model.objectCount > 0) mark(WALKTHROUGH_KEYS.loaded);
    if (!done.has(WALKTHROUGH_KEYS.probeMeRestarted) && probeMeRestarted(model)) mark(WALKTHROUGH_KEYS.probeMeRestarted);
  };
  const unsubscribe = model.onChange(check);
  check();
  return { dispose: unsubscribe };
}

/**
 * A terminal whose KUBECONFIG is the demo cluster's (kubectl, helm and k9s run in it talk to the
 * demo cluster); on the workspace side, like the extension. Tells the user when no demo cluster runs.
 */
export function openDemoTerminal(demo: { name: string; kubeconfig: string } | undefined): void {
  if (!demo) {
    void vscode.window.showInformationMessage('KubeLoop: the demo cluster is not running.', 'Start Demo Cluster').then((c) => {
      if (c) void vscode.commands.executeCommand(COMMANDS.startDemoCluster.id);
    });
    return;
  }
  const t = vscode.window.createTerminal({ name: `KubeLoop: ${demo.name}`, env: { KUBECONFIG: demo.kubeconfig } });
  t.show();
}
