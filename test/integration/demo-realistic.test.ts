/**
 * The demo cluster's objects as kube-apiserver and its clients leave them (issue 41): managedFields
 * Update entries of the writing client (kubectl), of kube-controller-manager and of the kubelet's
 * status writes; the admission plugins' additions to a pod (kube-api-access projected volume,
 * default tolerations); a running pod's full status; a generated cluster that is already what its
 * controllers and kubelet would make it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../support/eventually';
import { api, startTestCluster, type TestCluster } from './demo-support';
import { parseCron } from '../../src/demo/controllers/cron';
import type { DemoObject } from '../../src/demo/store';

type Obj = Record<string, any>;

const entries = (o: DemoObject | undefined) => (o?.metadata.managedFields ?? []) as Obj[];
const entryOf = (o: DemoObject | undefined, manager: string, subresource?: string) =>
  entries(o).find((m) => m.manager === manager && (m.subresource ?? undefined) === subresource);

describe('demo cluster objects as a real control plane writes them', () => {
  let t: TestCluster;
  before(async () => {
    t = await startTestCluster({ kubelet: true, kubeletSpeed: 20, controllers: true });
  });
  after(() => t?.close());

  it("a pod created with kubectl: kubectl-create's Update entry, admission's volume and tolerations, then the kubelet's status entry", async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default', labels: { app: 'p' } },
      spec: { containers: [{ name: 'c', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
    };
    await t.kubectlOk(['create', '-f', '-'], JSON.stringify(pod));
    const created = t.cluster.store.get('', 'pods', 'default', 'p')!;
    const mine = entryOf(created, 'kubectl-create');
    assert.ok(mine, `no kubectl-create entry in ${JSON.stringify(entries(created))}`);
    assert.equal(mine.operation, 'Update');
    assert.equal(mine.apiVersion, 'v1');
    assert.equal(mine.fieldsType, 'FieldsV1');
    assert.match(mine.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // What kubectl sent (as decoded, with defaults): not what admission added afterwards.
    const spec = mine.fieldsV1['f:spec'];
    assert.deepEqual(mine.fieldsV1['f:metadata'], { 'f:labels': { '.': {}, 'f:app': {} } });
    assert.ok(spec['f:containers']['k:{"name":"c"}']['f:ports']['k:{"containerPort":80,"protocol":"TCP"}'], JSON.stringify(spec));
    assert.ok(spec['f:restartPolicy'] && spec['f:dnsPolicy'] && spec['f:enableServiceLinks']);
    assert.equal(spec['f:volumes'], undefined, 'the service-account volume is admission’s, not the client’s');
    assert.equal(spec['f:tolerations'], undefined);

    const s = created.spec as Obj;
    const vol = (s.volumes as Obj[]).find((v) => /^kube-api-access-[a-z0-9]{5}$/.test(v.name));
    assert.ok(vol, JSON.stringify(s.volumes));
    assert.deepEqual(
      vol.projected.sources.map((x: Obj) => Object.keys(x)[0]),
      ['serviceAccountToken', 'configMap', 'downwardAPI'],
    );
    assert.equal(vol.projected.sources[1].configMap.name, 'kube-root-ca.crt');
    assert.deepEqual(s.containers[0].volumeMounts, [{ name: vol.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
    assert.deepEqual(
      (s.tolerations as Obj[]).map((x) => [x.key, x.effect, x.tolerationSeconds]),
      [
        ['node.kubernetes.io/not-ready', 'NoExecute', 300],
        ['node.kubernetes.io/unreachable', 'NoExecute', 300],
      ],
    );
    assert.equal(s.serviceAccountName, 'default');

    const running = await eventually(
      () => {
        const p = t.cluster.store.get('', 'pods', 'default', 'p');
        return (p?.status as Obj | undefined)?.phase === 'Running' && (p!.status as Obj).conditions.every((c: Obj) => c.status === 'True') ? p : undefined;
      },
      { description: 'pod p Running and Ready', timeoutMs: 60_000 },
    );
    const st = running.status as Obj;
    assert.deepEqual(st.conditions.map((c: Obj) => c.type).sort(), ['ContainersReady', 'Initialized', 'PodReadyToStartContainers', 'PodScheduled', 'Ready']);
    for (const k of ['hostIP', 'hostIPs', 'podIP', 'podIPs', 'qosClass', 'startTime']) assert.ok(st[k] !== undefined, k);
    const cs = st.containerStatuses[0] as Obj;
    assert.match(cs.containerID, /^containerd:\/\/[0-9a-f]{64}$/);
    assert.match(cs.imageID, /@sha256:[0-9a-f]{64}$/);
    assert.equal(cs.started, true);
    assert.deepEqual(cs.volumeMounts, [
      { name: vol.name, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true, recursiveReadOnly: 'Disabled' },
    ]);
    const kubelet = entryOf(running, 'kubelet', 'status');
    assert.ok(kubelet, `no kubelet status entry in ${JSON.stringify(entries(running))}`);
    assert.equal(kubelet.operation, 'Update');
    const sf = kubelet.fieldsV1['f:status'];
    assert.ok(sf['f:conditions']['k:{"type":"Ready"}'], JSON.stringify(sf));
    assert.ok(sf['f:containerStatuses'] && sf['f:podIPs']['k:{"ip":"' + st.podIP + '"}'], JSON.stringify(sf));
    // The status write took nothing from kubectl's entry (kubectl set no status).
    assert.deepEqual(entryOf(running, 'kubectl-create')!.fieldsV1, mine.fieldsV1);
  });

  it("a new namespace gets kube-controller-manager's default ServiceAccount and kube-root-ca.crt, again when they are deleted", async () => {
    await t.kubectlOk(['create', 'namespace', 'fresh']);
    const store = t.cluster.store;
    const both = () => store.get('', 'serviceaccounts', 'fresh', 'default') && store.get('', 'configmaps', 'fresh', 'kube-root-ca.crt');
    await eventually(both, { description: 'default ServiceAccount and kube-root-ca.crt in fresh' });
    const cm = store.get('', 'configmaps', 'fresh', 'kube-root-ca.crt')!;
    assert.match(String((cm.data as Obj)['ca.crt']), /^-----BEGIN CERTIFICATE-----\n/);
    assert.equal(entryOf(cm, 'kube-controller-manager')?.operation, 'Update');
    await t.kubectlOk(['-n', 'fresh', 'delete', 'configmap', 'kube-root-ca.crt']);
    await t.kubectlOk(['-n', 'fresh', 'delete', 'serviceaccount', 'default']);
    await eventually(both, { description: 'both made again' });
  });

  it("a Deployment's ReplicaSet and pods are kube-controller-manager's; its status too", async () => {
    const dep = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
      },
    };
    await t.kubectlOk(['create', '-f', '-'], JSON.stringify(dep));
    const store = t.cluster.store;
    const d = await eventually(
      () => {
        const x = store.get('apps', 'deployments', 'default', 'web');
        return (x?.status as Obj | undefined)?.availableReplicas === 2 ? x : undefined;
      },
      { description: 'Deployment web available', timeoutMs: 60_000 },
    );
    assert.ok(entryOf(d, 'kubectl-create'));
    assert.ok(entryOf(d, 'kube-controller-manager', 'status')?.fieldsV1['f:status']['f:availableReplicas']);
    const rs = store.list('apps', 'replicasets', 'default').items.find((x) => x.metadata.name.startsWith('web-'))!;
    const rsEntry = entryOf(rs, 'kube-controller-manager');
    assert.ok(rsEntry?.fieldsV1['f:metadata']['f:ownerReferences'][`k:{"uid":"${d.metadata.uid}"}`], JSON.stringify(entries(rs)));
    const pods = store.list('', 'pods', 'default').items.filter((p) => p.metadata.labels?.app === 'web');
    assert.equal(pods.length, 2);
    for (const p of pods) {
      assert.deepEqual(
        entries(p).map((m) => [m.manager, m.operation, m.subresource ?? '']),
        [
          ['kube-controller-manager', 'Update', ''],
          ['kubelet', 'Update', 'status'],
        ],
      );
    }
  });
});

describe('a freshly generated demo cluster is at rest', () => {
  const reconciled = new Set<string>();
  let t: TestCluster;
  before(async () => {
    t = await startTestCluster({ objects: 3000, kubelet: true, controllers: true, onControllerReconcile: (r) => reconciled.add(`${r.controller} ${r.key}`) });
  });
  after(() => t?.close());

  const WORKLOADS: [string, string, string][] = [
    ['deployment', '/apis/apps/v1/deployments', 'deployments.apps'],
    ['replicaset', '/apis/apps/v1/replicasets', 'replicasets.apps'],
    ['statefulset', '/apis/apps/v1/statefulsets', 'statefulsets.apps'],
    ['daemonset', '/apis/apps/v1/daemonsets', 'daemonsets.apps'],
    ['job', '/apis/batch/v1/jobs', 'jobs.batch'],
    ['cronjob', '/apis/batch/v1/cronjobs', 'cronjobs.batch'],
  ];
  const LISTED = [...WORKLOADS.map((w) => w[1]), '/api/v1/pods', '/api/v1/events', '/api/v1/nodes', '/api/v1/configmaps', '/api/v1/serviceaccounts'];

  async function list(): Promise<Map<string, DemoObject>> {
    const out = new Map<string, DemoObject>();
    for (const path of LISTED) {
      const r = await api(t.cluster, path);
      assert.equal(r.status, 200, path);
      for (const o of r.body.items as DemoObject[]) out.set(`${path} ${o.metadata.namespace ?? ''}/${o.metadata.name}`, o);
    }
    return out;
  }

  it('two lists a second apart, after every controller synced every object once, agree', async () => {
    const listedAt = Date.now();
    const first = await list();
    const workloads = [...first.entries()].filter(([k]) => !k.startsWith('/api/v1/'));
    assert.ok(workloads.length > 50, `a generated cluster has workloads (${workloads.length})`);
    assert.ok([...first.keys()].filter((k) => k.startsWith('/api/v1/pods ')).length > 200);
    // Every controller has looked at each of its objects (their initial sync is done) ...
    await eventually(
      () =>
        WORKLOADS.every(([controller, path, resource]) =>
          [...first.values()].every((o) => o.kind !== kindOf(path) || reconciled.has(`${controller} ${resource}:${o.metadata.namespace}/${o.metadata.name}`)),
        ),
      { description: 'every workload reconciled once', timeoutMs: 60_000 },
    );
    // ... and a second has passed (the kubelet's adoption of every pod has long run).
    await new Promise((r) => setTimeout(r, Math.max(0, listedAt + 1000 - Date.now())));
    const second = await list();
    // A CronJob whose schedule came due between the lists rightly ran: its objects are left out.
    const until = Date.now();
    const due = [...first.values()]
      .filter((o) => o.kind === 'CronJob' && (parseCron(String((o.spec as Obj).schedule)).next(listedAt - 60_000) ?? Infinity) <= until)
      .map((o) => `${o.metadata.namespace}/${o.metadata.name}-`);
    const ranNow = (k: string) => due.some((d) => k.split(' ')[1]!.startsWith(d) || k.split(' ')[1]! === d.slice(0, -1));
    const changed: string[] = [];
    for (const [k, o] of first) {
      if (ranNow(k)) continue;
      const now = second.get(k);
      if (!now) changed.push(`deleted ${k}`);
      else if (now.metadata.resourceVersion !== o.metadata.resourceVersion) changed.push(`changed ${k}`);
    }
    for (const k of second.keys()) if (!first.has(k) && !ranNow(k)) changed.push(`created ${k}`);
    assert.deepEqual(changed, []);
  });
});

function kindOf(path: string): string {
  const plural = path.split('/').pop()!;
  return { deployments: 'Deployment', replicasets: 'ReplicaSet', statefulsets: 'StatefulSet', daemonsets: 'DaemonSet', jobs: 'Job', cronjobs: 'CronJob' }[
    plural
  ]!;
}
