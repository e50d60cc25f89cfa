/**
 * Nothing lost across cuts and restarts, on a real kube-apiserver (watch cache on, as in
 * production). The sync loop (pods, and ConfigMaps through their informer) reaches the server
 * through a relay the test cuts. While it is cut off, objects are deleted, created, and created then
 * deleted; after the link comes back the loop's desired state and its views must equal the
 * server's: every object with its UID and resourceVersion, nothing left behind, nothing missed.
 *
 * 1. A reset: every connection dropped, new ones refused; the reflectors back off and reconnect.
 * 2. A blackhole: the link goes silent with connections open; on restore what was held crosses.
 * 3. A restart: cut off, the kube-apiserver is replaced by a fresh one (its watch cache starts at
 *    the current revision), so resuming a watch at an older resourceVersion is answered 410 and the
 *    reflectors relist.
 * Each prints the time from restore to converged.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { kubeconfigViaRelay } from '../../bench/relay-kubeconfig';
import { startControlPlane, type ControlPlane } from '../../lab/controlplane';
import { KubeClient } from '../../src/core/kube/client';
import { ClusterSync } from '../../src/core/syncloop/sources/cluster';
import { TimelineStore } from '../../src/core/timeline/store';
import { startCutRelay, type CutRelay } from '../support/cutRelay';
import { eventually } from '../support/eventually';
import { Api } from './support';

const NS = 'cuts';
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };

const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: NS },
  spec: { nodeName: 'nowhere', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
});
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data: { v: name } });

describe('nothing lost across cuts and restarts (real kube-apiserver)', () => {
  let cp: ControlPlane;
  let api: Api;
  let relay: CutRelay;
  let sync: ClusterSync;
  let client: KubeClient;
  const stop = new AbortController();
  let running: Promise<void>;
  const errors: string[] = [];

  before(async () => {
    cp = await startControlPlane();
    api = Api.admin(cp);
    await api.must('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, [201]);
    for (const n of ['a', 'b', 'c']) {
      await api.must('POST', `/api/v1/namespaces/${NS}/pods`, pod(n), [201]);
      await api.must('POST', `/api/v1/namespaces/${NS}/configmaps`, configMap(n), [201]);
    }
    const server = new URL(cp.server);
    relay = await startCutRelay({ host: server.hostname, port: Number(server.port) });
    const kubeconfig = join(cp.dir, 'kubeconfig-cut');
    kubeconfigViaRelay(cp.kubeconfigPath, relay, kubeconfig);
    client = await KubeClient.fromKubeconfig({ kubeconfig });
    sync = new ClusterSync({
      client,
      timeline: new TimelineStore(20_000),
      namespaces: [NS],
      types: [CONFIGMAPS],
      logger: { info: () => undefined, error: (l) => errors.push(l) },
    });
    running = sync.run(stop.signal);
    await readServer();
    await eventually(() => sync.allSourcesReady() && converged(), { description: 'the first sync', timeoutMs: 30_000 });
  });
  after(async () => {
    stop.abort();
    await running;
    client?.close();
    await relay?.close();
    api?.close();
    await cp?.stop();
  });

  /** The server's objects in NS, "key uid rv", sorted; the loop's keys for the same. */
  let server: string[] = [];
  async function readServer(): Promise<void> {
    const pods = (await api.list(`/api/v1/namespaces/${NS}/pods`)).items.map((p) => `${NS}/${p.metadata.name} ${p.metadata.uid} ${p.metadata.resourceVersion}`);
    const cms = (await api.list(`/api/v1/namespaces/${NS}/configmaps`)).items
      .filter((c) => c.metadata.name !== 'kube-root-ca.crt')
      .map((c) => `configmaps:${NS}/${c.metadata.name} ${c.metadata.uid} ${c.metadata.resourceVersion}`);
    server = [...pods, ...cms].sort();
  }
  const desired = () =>
    [...sync.desiredObjects()]
      .filter((d) => d.key.startsWith(`${NS}/`) || (d.key.startsWith(`configmaps:${NS}/`) && !d.key.endsWith('/kube-root-ca.crt')))
      .map((d) => `${d.key} ${d.obj.metadata.uid} ${d.obj.metadata.resourceVersion}`)
      .sort();
  const views = () =>
    [...sync.views()]
      .filter((v) => v.key.startsWith(`${NS}/`) || (v.key.startsWith(`configmaps:${NS}/`) && !v.key.endsWith('/kube-root-ca.crt')))
      .map((v) => `${v.key} ${v.uid}`)
      .sort();
  function converged(): boolean {
    const d = desired();
    return (
      server.length > 0 &&
      JSON.stringify(d) === JSON.stringify(server) &&
      JSON.stringify(views()) === JSON.stringify(server.map((s) => s.split(' ').slice(0, 2).join(' ')))
    );
  }
  /** While cut off: one of each kind deleted, one created, one created and deleted again; the server read after. */
  async function changeWhileCut(tag: string): Promise<void> {
    const victim = server
      .find((s) => s.startsWith(`${NS}/`))!
      .split(' ')[0]!
      .split('/')[1]!;
    const cmVictim = server
      .find((s) => s.startsWith('configmaps:'))!
      .split(' ')[0]!
      .split('/')[1]!;
    await api.must('DELETE', `/api/v1/namespaces/${NS}/pods/${victim}?gracePeriodSeconds=0`, undefined, [200]);
    await api.must('DELETE', `/api/v1/namespaces/${NS}/configmaps/${cmVictim}`, undefined, [200]);
    await api.must('POST', `/api/v1/namespaces/${NS}/pods`, pod(`new-${tag}`), [201]);
    await api.must('POST', `/api/v1/namespaces/${NS}/configmaps`, configMap(`new-${tag}`), [201]);
    await api.must('POST', `/api/v1/namespaces/${NS}/pods`, pod(`brief-${tag}`), [201]);
    await api.must('DELETE', `/api/v1/namespaces/${NS}/pods/brief-${tag}?gracePeriodSeconds=0`, undefined, [200]);
    await api.must('POST', `/api/v1/namespaces/${NS}/configmaps`, configMap(`brief-${tag}`), [201]);
    await api.must('DELETE', `/api/v1/namespaces/${NS}/configmaps/brief-${tag}`, undefined, [200]);
    // And one changed in place: a label on a surviving pod.
    const keep = server.filter((s) => s.startsWith(`${NS}/`)).map((s) => s.split(' ')[0]!.split('/')[1]!)[1]!;
    await api.must('PATCH', `/api/v1/namespaces/${NS}/pods/${keep}`, { metadata: { labels: { cut: tag } } }, [200], {
      'Content-Type': 'application/merge-patch+json',
    });
    await readServer();
    assert.ok(!converged(), 'the loop has not seen the changes while cut off');
  }
  async function restoredAndConverged(t: { diagnostic(m: string): void }, what: string): Promise<void> {
    const at = performance.now();
    relay.restore();
    await eventually(
      () => {
        if (!converged()) throw new Error(`desired: ${desired().join(', ')}\nserver:  ${server.join(', ')}\nviews:   ${views().join(', ')}`);
        return true;
      },
      { description: `converged after ${what}`, timeoutMs: 60_000, maxIntervalMs: 50 },
    );
    t.diagnostic(`${what}: converged ${(performance.now() - at).toFixed(0)} ms after the link came back`);
  }

  it('a reset (connections dropped, new ones refused): the reflectors reconnect and the loop converges; nothing lost', async (t) => {
    await readServer();
    assert.ok(converged());
    relay.cut('reset');
    await changeWhileCut('reset');
    // Let the reflectors meet the refused link (their watches failed, their retries refused).
    await eventually(() => sync.running.some((r) => r.reflector.stats.errors > 0 || r.reflector.state !== 'watching'), {
      description: 'a reflector noticed the cut',
      timeoutMs: 20_000,
    });
    await restoredAndConverged(t, 'a reset');
  });

  it('a blackhole (the link silent, connections open): what was held crosses on restore; nothing lost', async (t) => {
    await readServer();
    assert.ok(converged());
    relay.cut('blackhole');
    await changeWhileCut('blackhole');
    await restoredAndConverged(t, 'a blackhole');
  });

  it('a kube-apiserver replaced while cut off (fresh watch cache): resuming is answered 410, the reflectors relist; nothing lost', async (t) => {
    await readServer();
    assert.ok(converged());
    const before = sync.running.map((r) => ({ ...r.reflector.stats }));
    relay.cut('reset');
    await changeWhileCut('restart-1');
    await cp.restartApiserver();
    // More changes on the new server, before the loop is back.
    await api.must('POST', `/api/v1/namespaces/${NS}/pods`, pod('after-restart'), [201]);
    await api.must('POST', `/api/v1/namespaces/${NS}/configmaps`, configMap('after-restart'), [201]);
    await readServer();
    await restoredAndConverged(t, 'an apiserver restart');
    const relisted = sync.running.filter((r, i) => r.reflector.stats.lists + r.reflector.stats.watchLists > before[i]!.lists + before[i]!.watchLists);
    assert.ok(relisted.length > 0, 'a reflector relisted against the fresh watch cache');
    assert.deepEqual(
      errors.filter((e) => !/Reflector|watch|connect|ECONNRESET|ECONNREFUSED|socket|refused|reset|closed|Failed to watch|Failed to list/i.test(e)),
      [],
      'no error other than the link',
    );
  });
});
