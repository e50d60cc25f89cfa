// The cluster scenarios of test/e2e/cluster.test.ts through the VS Code API inside the extension host
// (run in code-server's extension host by test/e2e/inhost.test.ts, and in desktop VS Code by ../runTests.ts).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../../src/app/commandIds';
import type { KubeLoopApi } from '../../../../src/vscode/extension';
import type { ResourceNode } from '../../../../src/app/tree/treeNode';
import { eventually } from '../../../support/eventually';

describe('KubeLoop on the embedded demo cluster, in the extension host', () => {
  let api: KubeLoopApi;

  before(async () => {
    api = await vscode.extensions.getExtension<KubeLoopApi>('kubeloop.kubeloop')!.activate();
  });

  after(async () => {
    await vscode.commands.executeCommand(COMMANDS.stopSyncLoop.id);
    await vscode.commands.executeCommand(COMMANDS.stopDemoCluster.id);
  });

  it('starts the demo cluster and loads it into the tree', async () => {
    await vscode.commands.executeCommand(COMMANDS.startDemoCluster.id);
    assert.match(api.state().demoUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
    await vscode.commands.executeCommand(COMMANDS.loadClusterResources.id);
    assert.equal(api.model.context, 'kubeloop-demo');
    assert.ok(api.model.objectCount > 1000, `${api.model.objectCount} objects`);
    const [root] = api.tree.getChildren();
    assert.equal(api.tree.getTreeItem(root!).label, 'kubeloop-demo');
  });

  it('finds a pod by walking namespace > core > Pod, reveals it, and opens its YAML', async () => {
    const t = api.tree.tree;
    const ns = t.children(t.roots()[0]).find((n) => n.kind === 'namespace' && /-prod$/.test(n.namespace ?? ''))!;
    const core = t.children(ns).find((n) => n.group === '')!;
    const pods = t.children(core).find((n) => n.typeKey === 'pods')!;
    const pod = t.children(pods).find((n) => n.kind === 'object') as ResourceNode;
    assert.equal(api.tree.getParent(pod), pods);
    await vscode.commands.executeCommand(COMMANDS.openResourceYaml.id, pod);
    const text = await eventually(() => vscode.window.activeTextEditor?.document.getText(), { description: 'the YAML editor', timeoutMs: 30_000 });
    assert.match(text, /kind: Pod/);
    assert.match(text, new RegExp(`name: ${pod.name}`));
    assert.equal(vscode.window.activeTextEditor!.document.uri.scheme, 'kubeloop');
  });

  it('runs the sync loop: iterations reach the timeline', async () => {
    await vscode.commands.executeCommand(COMMANDS.startSyncLoop.id);
    await eventually(() => api.state().sync === 'running', { description: 'the sync loop to run', timeoutMs: 60_000 });
    await eventually(() => api.timeline.toArray().some((e) => e.kind === 'iteration'), { description: 'an iteration in the timeline', timeoutMs: 30_000 });
    await vscode.commands.executeCommand(COMMANDS.stopSyncLoop.id);
    assert.equal(api.state().sync, 'off');
  });
});
