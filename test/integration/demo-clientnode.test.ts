/**
 * @kubernetes/client-node (1.x) against the demo cluster: typed list with paging, CRUD, Watch
 * (initial ADDED events, resume from a list's resourceVersion, bookmarks, 410 for a too-old
 * resourceVersion), TLS with a bearer token, and metadata-only / table lists over plain HTTP.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, CustomObjectsApi, KubeConfig, Watch } from '@kubernetes/client-node';
import { api, configMap, namespace, startTestCluster, type TestCluster } from './demo-support';

function clientFor(t: TestCluster, user?: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(t.cluster.kubeconfig(user ? { user } : {}));
  return kc;
}

interface Seen {
  type: string;
  name: string;
  rv: string;
}

/** Starts a watch and collects its events; resolves `until` when the predicate holds. */
async function watchInto(kc: KubeConfig, path: string, query: Record<string, string | number | boolean>) {
  const events: Seen[] = [];
  let doneErr: unknown = 'open';
  const waiters: { pred: () => boolean; resolve: () => void }[] = [];
  const check = () => {
    for (const w of [...waiters]) if (w.pred()) (waiters.splice(waiters.indexOf(w), 1), w.resolve());
  };
  const ctl = await new Watch(kc).watch(
    path,
    query,
    (type, obj) => {
      events.push({ type, name: obj?.metadata?.name ?? '', rv: obj?.metadata?.resourceVersion ?? '' });
      check();
    },
    (err) => {
      doneErr = err ?? null;
      check();
    },
  );
  return {
    events,
    get done() {
      return doneErr !== 'open';
    },
    until(pred: () => boolean, ms = 5000): Promise<void> {
      if (pred()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`watch condition not met in ${ms} ms; events: ${JSON.stringify(events)}`)), ms);
        waiters.push({ pred, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    stop: () => ctl.abort(),
  };
}

describe('@kubernetes/client-node against the demo cluster', () => {
  let t: TestCluster;
  before(async () => {
    t = await startTestCluster({
      bookmarkIntervalMs: 200,
      crds: [{ group: 'demo.kubeloop.io', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true }],
    });
    t.cluster.store.create('', 'namespaces', namespace('apps'));
    for (let i = 0; i < 25; i++) t.cluster.store.create('', 'configmaps', configMap('apps', `cm-${String(i).padStart(2, '0')}`));
  });
  after(() => t.close());

  it('CoreV1Api lists, pages with limit/_continue, and does CRUD', async () => {
    const core = clientFor(t).makeApiClient(CoreV1Api);
    const nss = await core.listNamespace();
    assert.deepEqual(nss.items.map((n) => n.metadata?.name).sort(), ['apps', 'default', 'kube-node-lease', 'kube-public', 'kube-system']);
    const names: string[] = [];
    let cont: string | undefined;
    do {
      const page = await core.listNamespacedConfigMap({ namespace: 'apps', limit: 10, _continue: cont });
      names.push(...page.items.map((c) => c.metadata!.name!));
      cont = page.metadata?._continue;
    } while (cont);
    assert.equal(names.length, 25);
    assert.equal(new Set(names).size, 25);

    const created = await core.createNamespacedConfigMap({ namespace: 'apps', body: { metadata: { name: 'made' }, data: { a: '1' } } });
    assert.ok(created.metadata?.uid);
    const replaced = await core.replaceNamespacedConfigMap({ name: 'made', namespace: 'apps', body: { ...created, data: { a: '2' } } });
    assert.equal(replaced.data?.a, '2');
    await assert.rejects(
      core.replaceNamespacedConfigMap({ name: 'made', namespace: 'apps', body: { ...created, data: { a: '3' } } }),
      (e: any) => e.code === 409,
    );
    await core.deleteNamespacedConfigMap({ name: 'made', namespace: 'apps' });
    await assert.rejects(core.readNamespacedConfigMap({ name: 'made', namespace: 'apps' }), (e: any) => e.code === 404);
  });

  it('CustomObjectsApi works on a start-up CRD', async () => {
    const co = clientFor(t).makeApiClient(CustomObjectsApi);
    await co.createNamespacedCustomObject({
      group: 'demo.kubeloop.io',
      version: 'v1',
      namespace: 'apps',
      plural: 'widgets',
      body: { apiVersion: 'demo.kubeloop.io/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { n: 1 } },
    });
    const list: any = await co.listNamespacedCustomObject({ group: 'demo.kubeloop.io', version: 'v1', namespace: 'apps', plural: 'widgets' });
    assert.deepEqual(
      list.items.map((o: any) => o.metadata.name),
      ['w'],
    );
    assert.equal(list.kind, 'WidgetList');
  });

  it('Watch from no resourceVersion sends ADDED for what exists, then live events', async () => {
    const w = await watchInto(clientFor(t), '/api/v1/namespaces/apps/configmaps', {});
    try {
      await w.until(() => w.events.length >= 25);
      assert.ok(w.events.slice(0, 25).every((e) => e.type === 'ADDED'));
      t.cluster.store.create('', 'configmaps', configMap('apps', 'live'));
      const o = t.cluster.store.get('', 'configmaps', 'apps', 'live')!;
      t.cluster.store.update('', 'configmaps', { ...o, data: { x: 'y' } });
      t.cluster.store.delete('', 'configmaps', 'apps', 'live');
      await w.until(() => w.events.some((e) => e.type === 'DELETED' && e.name === 'live'));
      assert.deepEqual(
        w.events.filter((e) => e.name === 'live').map((e) => e.type),
        ['ADDED', 'MODIFIED', 'DELETED'],
      );
    } finally {
      w.stop();
    }
  });

  it('Watch resumes from a list resourceVersion and gets bookmarks when allowed', async () => {
    const core = clientFor(t).makeApiClient(CoreV1Api);
    const list = await core.listNamespacedConfigMap({ namespace: 'apps' });
    const rv = list.metadata!.resourceVersion!;
    t.cluster.store.create('', 'configmaps', configMap('apps', 'after-list'));
    const w = await watchInto(clientFor(t), '/api/v1/namespaces/apps/configmaps', { resourceVersion: rv, allowWatchBookmarks: true });
    try {
      await w.until(() => w.events.some((e) => e.type === 'BOOKMARK'));
      assert.deepEqual(
        w.events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type}:${e.name}`),
        ['ADDED:after-list'],
      );
      const bm = w.events.find((e) => e.type === 'BOOKMARK')!;
      assert.ok(Number(bm.rv) >= Number(rv) + 1);
    } finally {
      w.stop();
      t.cluster.store.delete('', 'configmaps', 'apps', 'after-list');
    }
  });

  it('Watch from a resourceVersion older than the history gets an ERROR event with 410 Expired', async () => {
    const small = await startTestCluster({ historySize: 5 });
    try {
      for (let i = 0; i < 20; i++) small.cluster.store.create('', 'configmaps', configMap('default', `c${i}`));
      const kc = new KubeConfig();
      kc.loadFromString(small.cluster.kubeconfig());
      const raw: any[] = [];
      await new Promise<void>((resolve) => {
        void new Watch(kc).watch(
          '/api/v1/configmaps',
          { resourceVersion: '3' },
          (type, obj) => raw.push({ type, obj }),
          () => resolve(),
        );
      });
      assert.equal(raw.length, 1);
      assert.equal(raw[0].type, 'ERROR');
      assert.equal(raw[0].obj.code, 410);
      assert.equal(raw[0].obj.reason, 'Expired');
      assert.match(raw[0].obj.message, /^too old resource version: 3 \(\d+\)$/);
    } finally {
      await small.close();
    }
  });

  it('a watch ends after timeoutSeconds, and a label-selected watch sees objects enter and leave the selection', async () => {
    const w = await watchInto(clientFor(t), '/api/v1/namespaces/apps/configmaps', { labelSelector: 'pick=yes', timeoutSeconds: 1 });
    t.cluster.store.create('', 'configmaps', configMap('apps', 'sel'));
    const o = t.cluster.store.get('', 'configmaps', 'apps', 'sel')!;
    const picked = t.cluster.store.update('', 'configmaps', { ...o, metadata: { ...o.metadata, labels: { pick: 'yes' } } });
    t.cluster.store.update('', 'configmaps', { ...picked, metadata: { ...picked.metadata, labels: { pick: 'no' } } });
    await w.until(() => w.done, 3000);
    assert.deepEqual(
      w.events.map((e) => `${e.type}:${e.name}`),
      ['ADDED:sel', 'DELETED:sel'],
    );
  });

  it('metadata-only and table lists, and a protobuf form the demo does not serve (Table) falls back to JSON', async () => {
    const meta = await api(t.cluster, '/api/v1/namespaces/apps/configmaps?limit=5', {
      headers: { accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json' },
    });
    assert.equal(meta.body.kind, 'PartialObjectMetadataList');
    assert.equal(meta.body.apiVersion, 'meta.k8s.io/v1');
    assert.equal(meta.body.items.length, 5);
    assert.equal(meta.body.items[0].kind, 'PartialObjectMetadata');
    assert.equal(meta.body.items[0].data, undefined);
    assert.ok(meta.body.metadata.continue);
    const one = await api(t.cluster, '/api/v1/namespaces/apps/configmaps/cm-01', {
      headers: { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' },
    });
    assert.equal(one.body.kind, 'PartialObjectMetadata');
    assert.equal(one.body.metadata.name, 'cm-01');
    const tbl = await api(t.cluster, '/api/v1/namespaces/apps/configmaps?limit=2', {
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' },
    });
    assert.equal(tbl.body.kind, 'Table');
    assert.deepEqual(
      tbl.body.columnDefinitions.map((c: any) => c.name),
      ['Name', 'Data', 'Age'],
    );
    assert.equal(tbl.body.rows.length, 2);
    assert.equal(tbl.body.rows[0].cells[0], 'cm-00');
    assert.equal(tbl.body.rows[0].object.kind, 'PartialObjectMetadata');
    const pb = await api(t.cluster, '/api/v1/namespaces/apps/configmaps/cm-01', {
      headers: { accept: 'application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1, */*' },
    });
    assert.equal(pb.headers.get('content-type'), 'application/json');
    assert.equal(pb.body.kind, 'ConfigMap');
  });

  it('pods get the kubectl columns in the Table form', async () => {
    t.cluster.store.create('', 'pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'apps' },
      spec: { containers: [{ name: 'a' }, { name: 'b' }] },
      status: {
        phase: 'Running',
        containerStatuses: [
          {
            name: 'a',
            ready: true,
            restartCount: 2,
            state: { running: {} },
            lastState: { terminated: { finishedAt: new Date(Date.now() - 300_000).toISOString() } },
          },
          { name: 'b', ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      },
    });
    const tbl = await api(t.cluster, '/api/v1/namespaces/apps/pods', { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    assert.deepEqual(
      tbl.body.columnDefinitions.filter((c: any) => c.priority === 0).map((c: any) => c.name),
      ['Name', 'Ready', 'Status', 'Restarts', 'Age'],
    );
    const [name, ready, status, restarts] = tbl.body.rows[0].cells;
    assert.deepEqual([name, ready, status, restarts], ['p', '1/2', 'CrashLoopBackOff', '3 (5m ago)']);
  });
});
