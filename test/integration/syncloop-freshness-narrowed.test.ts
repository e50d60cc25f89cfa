/**
 * A type narrowed to the context namespace after a cluster-wide 403 (no access review: the rights
 * path of test/support/rights/sync.ts, user erin, who may watch pods in team-a only) is watched in
 * team-a, and its freshness marks say so: `pods:team-a/*`, the documented key of a type watched in
 * one namespace, never `pods:*`. Over a real socket to the demo cluster with its RBAC-style grants.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient, loadKubeContext } from '../../src/core/kube';
import type { SyncIterationEvent } from '../../src/core/timeline/events';
import type { RightsServer } from '../support/rights/server';
import { eventually } from '../support/eventually';
import { startSync, type RunningSync } from '../support/syncLoop';
import { demoRightsServer } from './rightsServer';

describe('freshness marks of a type narrowed after a 403 (demo cluster RBAC)', () => {
  let server: RightsServer;
  let r: RunningSync;
  before(async () => {
    server = await demoRightsServer({ objects: 0, kubelet: false });
    const client = await KubeClient.connect(loadKubeContext({ kubeconfig: await server.kubeconfig('erin') }));
    r = await startSync({ client }, { housekeepingPeriodMs: 200, contextNamespace: client.context.namespace, ready: false });
  });
  after(async () => {
    await r?.stop();
    await server?.stop();
  });

  it('key the pods marks `pods:team-a/*` from the first full list on', async () => {
    const podMarks = () =>
      r.timeline.toArray().filter((e): e is SyncIterationEvent => e.kind === 'iteration' && e.source === 'freshness' && e.key.startsWith('pods:'));
    await eventually(() => r.sync.allSourcesReady() && podMarks().some((e) => e.op === 'relist'), {
      description: 'pods listed in team-a, their relist marked',
      timeoutMs: 20_000,
    });
    assert.equal(r.sync.watchScope({ group: '', resource: 'pods' }), 'team-a');
    assert.equal(r.sync.running.find((x) => x.source === 'api')!.reflector.narrowed, 1);
    assert.deepEqual(
      podMarks().map((e) => [e.op, e.key]),
      podMarks().map((e) => [e.op, 'pods:team-a/*']),
    );
    const relist = podMarks().find((e) => e.op === 'relist')!;
    assert.equal(relist.message, 'initial list');
    assert.deepEqual(
      r.sync.freshness().map((f) => [f.source, f.namespace]),
      [['api', 'team-a']],
    );
  });
});
