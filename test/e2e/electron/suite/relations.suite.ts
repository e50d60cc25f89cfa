// Show Relations on a row of the Recording tree, through the VS Code API inside the extension host
// (run in code-server's extension host by test/e2e/inhost.test.ts): the view is filled from the
// recording at its instant, its owner, what it owns, and an Event the cluster has deleted since (as
// the API server's one-hour expiry would) but the recording holds.
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../../src/app/commandIds';
import type { RelationRow } from '../../../../src/app/relations/relationRows';
import type { KubeLoopApi } from '../../../../src/vscode/extension';
import { eventually } from '../../../support/eventually';

const NS = 'default';
const EVENT = 'rel-subject.expired';

describe('Show Relations on a recorded object, in the extension host', () => {
  let api: KubeLoopApi;
  const dir = mkdtempSync(join(tmpdir(), 'kubeloop-inhost-relations-'));
  const file = join(dir, 'relations.klr');
  /** The demo cluster's API, over its socket. */
  let request: (method: string, path: string, body?: object) => Promise<{ status: number; body: any }>;
  let subjectUid = '';

  before(async () => {
    api = await vscode.extensions.getExtension<KubeLoopApi>('kubeloop.kubeloop')!.activate();
  });

  after(async () => {
    await vscode.commands.executeCommand(COMMANDS.stopRecording.id);
    await vscode.commands.executeCommand(COMMANDS.stopSyncLoop.id);
    await vscode.commands.executeCommand(COMMANDS.stopDemoCluster.id);
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts the demo cluster with an owner, an object it owns and that one's own object", async () => {
    await vscode.commands.executeCommand(COMMANDS.startDemoCluster.id);
    const url = api.state().demoUrl!;
    request = async (method, path, body) => {
      const r = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
      return { status: r.status, body: await r.json() };
    };
    const configMap = async (name: string, owner?: { name: string; uid: string }) => {
      const r = await request('POST', `/api/v1/namespaces/${NS}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name,
          ...(owner ? { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner.name, uid: owner.uid, controller: true }] } : {}),
        },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.metadata.uid as string;
    };
    const ownerUid = await configMap('rel-owner');
    subjectUid = await configMap('rel-subject', { name: 'rel-owner', uid: ownerUid });
    await configMap('rel-child', { name: 'rel-subject', uid: subjectUid });
    await vscode.commands.executeCommand(COMMANDS.loadClusterResources.id);
    assert.ok(api.model.object(NS, 'configmaps', 'rel-subject'), 'the tree holds rel-subject');
  });

  it('records an Event about it, then the cluster deletes the Event', async () => {
    await vscode.commands.executeCommand(COMMANDS.startRecording.id, file); // starts the sync loop too
    await eventually(() => api.state().sync === 'running', { description: 'the sync loop running', timeoutMs: 50_000 });
    const created = await request('POST', `/api/v1/namespaces/${NS}/events`, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: EVENT },
      involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'rel-subject', namespace: NS, uid: subjectUid },
      type: 'Warning',
      reason: 'RelationsRecorded',
      message: 'seen by the recording before the cluster deleted it',
      count: 1,
      lastTimestamp: new Date().toISOString(),
      source: { component: 'relations-suite' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await eventually(() => api.model.object(NS, 'events', EVENT), { description: 'the loop to see the Event', timeoutMs: 30_000 });
    assert.equal((await request('DELETE', `/api/v1/namespaces/${NS}/events/${EVENT}`)).status, 200);
    await eventually(() => !api.model.object(NS, 'events', EVENT), { description: 'the loop to see the Event deleted', timeoutMs: 30_000 });
    await vscode.commands.executeCommand(COMMANDS.stopRecording.id);
  });

  it('Show Relations on its Recording-tree row: its owner, what it owns and the deleted Event, from the recording', async () => {
    await vscode.commands.executeCommand(COMMANDS.openRecording.id, file);
    // a row of the Recording tree, as its context menu passes it
    await vscode.commands.executeCommand(COMMANDS.showRelations.id, { kind: 'object', key: `configmaps/${NS}/rel-subject` });
    const label = (r: RelationRow) => String(api.relations.getTreeItem(r).label);
    const rows = await eventually(
      () => {
        const top = api.relations.getChildren();
        return top.length === 4 ? top : undefined;
      },
      { description: 'the Relations view filled', timeoutMs: 30_000 },
    );
    assert.deepEqual(rows.map(label), ['Owners', `ConfigMap ${NS}/rel-subject`, 'Owned', 'Events (1)']);
    assert.match(String(api.relations.getTreeItem(rows[1]!).description), /^recorded, at \d\d:\d\d:\d\d$/);
    const children = (r: RelationRow) => api.relations.getChildren(r);
    assert.deepEqual(children(rows[0]!).map(label), [`ConfigMap ${NS}/rel-owner`]);
    assert.deepEqual(children(rows[2]!).map(label), [`ConfigMap ${NS}/rel-child`]);
    const [event] = children(rows[3]!);
    assert.equal(label(event!), 'RelationsRecorded');
    assert.match(String(api.relations.getTreeItem(event!).description), /seen by the recording before the cluster deleted it$/);
    // the Event is gone from the cluster: only the recording could show it
    assert.equal((await request('GET', `/api/v1/namespaces/${NS}/events/${EVENT}`)).status, 404);
  });
});
