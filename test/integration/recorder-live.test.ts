/**
 * A flight recording started while the sync loop already runs (the extension's Start Recording):
 * the recorder is given what the loop holds, so the API server is not asked for the watched types
 * again (their reflectors make no new list), only the pod Events list again; the recording holds
 * every pod and ConfigMap the loop held at its start, and a change made afterwards.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '../../src/core/kube/client';
import type { SyncObserver } from '../../src/core/syncloop/observer';
import { Recording } from '../../src/core/recorder/reader';
import { startRecording } from '../../src/core/recorder/session';
import { ClusterSync } from '../../src/core/syncloop/sources/cluster';
import { TimelineStore } from '../../src/core/timeline/store';
import { api, configMap, startTestCluster, type TestCluster } from './demo-support';
import { eventually } from '../support/eventually';

const never = new AbortController().signal;

describe('a recording started while the sync loop runs', () => {
  let t: TestCluster;
  let dir: string;
  before(async () => {
    t = await startTestCluster({ kubelet: false, objects: 400, seed: 3 });
    dir = mkdtempSync(join(tmpdir(), 'kubeloop-rec-live-'));
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is seeded from the loop, relisting only the pods (the loop keeps its own copy of a pod), and records what follows', async () => {
    const client = await KubeClient.fromKubeconfig({ kubeconfig: t.kubeconfig });
    const timeline = new TimelineStore(10_000);
    let target: SyncObserver | undefined;
    const sync = new ClusterSync({
      client,
      timeline,
      types: [{ group: '', version: 'v1', resource: 'configmaps', namespaced: true }],
      observer: {
        replace: (s, ty, items) => target?.replace(s, ty, items),
        apply: (s, ty, e, o) => target?.apply(s, ty, e, o),
      },
    });
    const stop = new AbortController();
    const running = sync.run(stop.signal);
    const session = new AbortController();
    try {
      await eventually(() => sync.allSourcesReady() && sync.allWatching(), {
        description: 'sources listed and watching',
        timeoutMs: 20_000,
      });
      const held = (source: string) => sync.held(source).length;
      const configSources = sync.running.filter((r) => r.source !== undefined);
      const podSources = configSources.filter((r) => r.reflector.opts.gvr.resource === 'pods');
      const otherSources = configSources.filter((r) => !podSources.includes(r));
      const listsBefore = configSources.map((r) => r.reflector.stats.lists);
      const heldAtStart = configSources.reduce((n, r) => n + held(r.source!), 0);
      const podsAtStart = podSources.reduce((n, r) => n + held(r.source!), 0);
      assert.ok(heldAtStart > 50, `the loop holds the demo's pods and ConfigMaps (${heldAtStart})`);

      const path = join(dir, 'live.klr');
      const rec = await startRecording({ path, context: 'demo', timeline }, session.signal);
      target = rec.recorder;
      const seeded = sync.seedObserver(rec.recorder);
      assert.equal(seeded.seeded, heldAtStart - podsAtStart, 'the ConfigMaps from what the loop holds');
      assert.equal(seeded.relisted, sync.running.length - otherSources.length, 'the pods and the Events sources list again');
      await eventually(() => rec.recorder.size >= heldAtStart, { description: 'the pods relisted into the recording', timeoutMs: 10_000 });

      assert.equal(
        (await api(t.cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', json: configMap('default', 'after-start', { a: '1' }) })).status,
        201,
      );
      await eventually(() => rec.recorder.holds('configmaps/default/after-start'), { description: 'the new ConfigMap recorded', timeoutMs: 10_000 });
      assert.deepEqual(
        configSources.map((r) => r.reflector.stats.lists - (podSources.includes(r) ? 1 : 0)),
        listsBefore,
        'the pods listed once more, no other watched type',
      );
      session.abort();
      await rec.done;

      const r = await Recording.open(path, never);
      try {
        const objs = await r.objectsAt(r.range.end, never);
        const watched = [...objs.keys()].filter((k) => k.startsWith('pods/') || k.startsWith('configmaps/'));
        assert.equal(watched.length, heldAtStart + 1, 'every pod and ConfigMap the loop held, and the new one');
        assert.ok(objs.has('configmaps/default/after-start'));
      } finally {
        r.close();
      }
    } finally {
      session.abort();
      stop.abort();
      await running;
      client.close();
    }
  });
});
