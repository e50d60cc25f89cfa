/**
 * The protobuf walker against a real kube-apiserver: for every listable type it serves, the tree
 * rows (computeObjectView, what a row shows) of a metadata-only list read from protobuf equal those
 * read from JSON, a custom resource's included; for every kind with a field set, the full list read
 * from protobuf equals the JSON list narrowed to the field set, and so do its rows; a custom
 * resource's full list is answered in JSON when protobuf is asked first (the fallback); a protobuf
 * watch yields the object the JSON API returns. And the unit tier's fixtures (test/fixtures/protobuf)
 * are checked to be what apimachinery writes (the Go toolchain is this tier's set-up anyway).
 * Run: node --import tsx --test --test-timeout=600000 test/apiserver/protobuf.test.ts
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { execFile } from 'node:child_process';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { startControlPlane, type ControlPlane } from '../../lab/controlplane';
import {
  decodeProtobuf,
  hasFieldSet,
  isProtobuf,
  PROTOBUF_ACCEPT,
  PROTOBUF_METADATA_ACCEPT,
  PROTOBUF_METADATA_LIST_ACCEPT,
  WatchFrameDecoder,
  type ProtobufWatchEvent,
} from '../../src/core/kube/protobuf';
import { planFor } from '../../src/core/kube/protobuf/decode';
import { project } from '../../src/core/kube/protobuf/plan';
import { computeObjectView } from '../../src/core/rows/objectView';
import type { StoredObject } from '../../src/core/kube/objects/types';
import { eventually } from '../support/eventually';
import { seed } from './objects';
import { Api, collectionPath, createCrd } from './support';

const JSON_METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
const NS = 'pb';
const ROOT = path.resolve(__dirname, '../..');

/** A program's stdout; rejects with its stderr when it fails. */
const run = (cmd: string, args: string[]) =>
  new Promise<string>((resolve, reject) =>
    execFile(cmd, args, { maxBuffer: 16 << 20 }, (err, stdout, stderr) => (err ? reject(new Error(`${cmd}: ${err.message}\n${stderr}`)) : resolve(stdout))),
  );

interface Raw {
  status: number;
  contentType: string;
  body: Buffer;
}

interface Listable {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
}

type Obj = Record<string, unknown> & { metadata: { name: string; namespace?: string; uid: string } };

describe('protobuf from a real kube-apiserver reads as its JSON does', () => {
  let cp: ControlPlane;
  let api: Api;
  let ca: Buffer;
  let types: Listable[];

  const get = (p: string, accept: string): Promise<Raw> =>
    new Promise((resolve, reject) => {
      const req = https.get(`${cp.server}${p}`, { ca, agent: false, headers: { Authorization: `Bearer ${cp.adminToken}`, Accept: accept } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
    });

  before(async () => {
    cp = await startControlPlane();
    ca = fs.readFileSync(cp.caFile);
    api = Api.admin(cp);
    await seed(api, { namespaces: [NS], perNamespace: 2, cluster: 2, prefix: 'pb' });
    await seedTheRest(api);
    await createCrd(api, { group: 'pb.kubeloop.io', kind: 'Widget', plural: 'widgets', scope: 'Namespaced' });
    for (const name of ['w-1', 'w-2']) {
      await api.must('POST', collectionPath('pb.kubeloop.io', 'v1', 'widgets', NS), {
        apiVersion: 'pb.kubeloop.io/v1',
        kind: 'Widget',
        metadata: { name, labels: { a: 'b' }, finalizers: ['pb.kubeloop.io/keep'] },
        spec: { size: 3 },
      });
    }
    // A deleting object: its row reads Terminating from metadata alone.
    await api.must('DELETE', collectionPath('pb.kubeloop.io', 'v1', 'widgets', NS) + '/w-2');
    types = await listableTypes(api);
  });
  after(async () => {
    api?.close();
    await cp?.stop();
  });

  it("the unit tier's fixtures are what apimachinery writes today (scripts/protobuf-fixtures, rebuilt)", async () => {
    const bin = (await run('bash', [path.join(ROOT, 'scripts/build-protobuf-fixtures.sh')])).trim().split('\n').pop()!;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubeloop-protobuf-fixtures-'));
    try {
      await run(bin, ['-out', dir]);
      const committed = path.join(ROOT, 'test/fixtures/protobuf');
      assert.deepEqual(fs.readdirSync(dir).sort(), fs.readdirSync(committed).sort());
      for (const f of fs.readdirSync(dir)) assert.ok(fs.readFileSync(path.join(dir, f)).equals(fs.readFileSync(path.join(committed, f))), `${f} differs`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serves the kinds the walker has field sets for, and more', () => {
    const kinds = new Set(types.map((t) => `${t.group ? `${t.group}/` : ''}${t.version}/${t.kind}`));
    for (const k of [
      'v1/Pod',
      'v1/Event',
      'v1/Node',
      'apps/v1/Deployment',
      'batch/v1/CronJob',
      'discovery.k8s.io/v1/EndpointSlice',
      'pb.kubeloop.io/v1/Widget',
    ]) {
      assert.ok(kinds.has(k), `${k} is served`);
    }
  });

  it('every listable type: the rows of a metadata-only list read from protobuf equal those from JSON', async () => {
    let objects = 0;
    for (const t of types) {
      const p = collectionPath(t.group, t.version, t.resource);
      const [pb, js] = await Promise.all([get(p, PROTOBUF_METADATA_LIST_ACCEPT), get(p, JSON_METADATA_LIST)]);
      assert.equal(pb.status, 200, `${p}: ${pb.body.toString()}`);
      assert.ok(isProtobuf(pb.contentType), `${p} answered ${pb.contentType}`);
      const fromPb = decoded(pb.body);
      const fromJson = sorted(JSON.parse(js.body.toString('utf8')) as Obj);
      assert.deepStrictEqual(fromPb, expected(fromJson), `${p}: the decoded list`);
      assert.deepStrictEqual(rows(fromPb, t), rows(fromJson, t), `${p}: the rows`);
      objects += (fromPb.items as unknown[]).length;
    }
    assert.ok(objects > 50, `${objects} objects compared`);
  });

  it('every kind with a field set: the full list from protobuf equals the JSON list narrowed to it, and so do the rows', async () => {
    const compared: string[] = [];
    for (const t of types) {
      const apiVersion = t.group ? `${t.group}/${t.version}` : t.version;
      if (!hasFieldSet(apiVersion, `${t.kind}List`)) continue;
      const p = collectionPath(t.group, t.version, t.resource);
      const [pb, js] = await Promise.all([get(p, PROTOBUF_ACCEPT), get(p, 'application/json')]);
      assert.ok(isProtobuf(pb.contentType), `${p} answered ${pb.contentType}`);
      const fromPb = decoded(pb.body);
      const fromJson = sorted(JSON.parse(js.body.toString('utf8')) as Obj);
      assert.ok((fromJson.items as unknown[]).length > 0, `${p} has objects to compare`);
      assert.deepStrictEqual(fromPb, expected(fromJson), `${p}: the decoded list`);
      assert.deepStrictEqual(rows(fromPb, t), rows(fromJson, t), `${p}: the rows`);
      compared.push(`${apiVersion}/${t.kind}`);
    }
    assert.deepEqual(compared.sort(), [
      'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration',
      'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration',
      'apps/v1/ControllerRevision',
      'apps/v1/DaemonSet',
      'apps/v1/Deployment',
      'apps/v1/ReplicaSet',
      'apps/v1/StatefulSet',
      'autoscaling/v2/HorizontalPodAutoscaler',
      'batch/v1/CronJob',
      'batch/v1/Job',
      'coordination.k8s.io/v1/Lease',
      'discovery.k8s.io/v1/EndpointSlice',
      'events.k8s.io/v1/Event',
      'networking.k8s.io/v1/Ingress',
      'networking.k8s.io/v1/IngressClass',
      'networking.k8s.io/v1/NetworkPolicy',
      'node.k8s.io/v1/RuntimeClass',
      'policy/v1/PodDisruptionBudget',
      'rbac.authorization.k8s.io/v1/ClusterRole',
      'rbac.authorization.k8s.io/v1/ClusterRoleBinding',
      'rbac.authorization.k8s.io/v1/Role',
      'rbac.authorization.k8s.io/v1/RoleBinding',
      'scheduling.k8s.io/v1/PriorityClass',
      'storage.k8s.io/v1/CSIDriver',
      'storage.k8s.io/v1/StorageClass',
      'v1/ConfigMap',
      'v1/Endpoints',
      'v1/Event',
      'v1/LimitRange',
      'v1/Namespace',
      'v1/Node',
      'v1/PersistentVolume',
      'v1/PersistentVolumeClaim',
      'v1/Pod',
      'v1/ReplicationController',
      'v1/ResourceQuota',
      'v1/Secret',
      'v1/Service',
      'v1/ServiceAccount',
    ]);
  });

  it('a custom resource asked for protobuf first is answered in JSON, which stays the fallback', async () => {
    const r = await get(collectionPath('pb.kubeloop.io', 'v1', 'widgets', NS), PROTOBUF_ACCEPT);
    assert.equal(r.status, 200);
    assert.equal(isProtobuf(r.contentType), false, r.contentType);
    assert.equal((JSON.parse(r.body.toString('utf8')) as { items: unknown[] }).items.length, 2);
    assert.equal(hasFieldSet('pb.kubeloop.io/v1', 'WidgetList'), false);
  });

  /** A watch of `p` asked for with `accept`, decoded frame by frame as its bytes arrive. */
  function watch(p: string, rv: string, accept: string) {
    const events: ProtobufWatchEvent[] = [];
    const d = new WatchFrameDecoder();
    let contentType = '';
    const req = https.get(
      `${cp.server}${p}?watch=1&resourceVersion=${rv}`,
      { ca, agent: false, headers: { Authorization: `Bearer ${cp.adminToken}`, Accept: accept } },
      (res) => {
        contentType = String(res.headers['content-type']);
        res.on('data', (c: Buffer) => {
          const r = d.push(new Uint8Array(c));
          if (r.ok) events.push(...r.events);
          else events.push({ type: 'DECODE-ERROR', object: { message: r.error.message } });
        });
        res.on('error', () => {});
      },
    );
    req.on('error', () => {});
    const types = () => events.map((e) => e.type).join(',');
    return {
      events,
      contentType: () => contentType,
      until: (want: string) => eventually(() => types() === want, { description: `watch events ${want} (have ${types()})`, timeoutMs: 30_000 }),
      stop: () => req.destroy(),
    };
  }

  it('a protobuf watch yields each event with the object the JSON API returns', async () => {
    const p = collectionPath('', 'v1', 'configmaps', NS);
    const w = watch(p, (await api.must('GET', p)).metadata.resourceVersion as string, PROTOBUF_ACCEPT);
    try {
      const made = (await api.must('POST', p, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'watched', labels: { x: 'y' } },
        data: { k: 'v' },
      })) as Obj;
      const changed = (await api.must('PUT', `${p}/watched`, { ...made, data: { k: 'w' } })) as Obj;
      await api.must('DELETE', `${p}/watched`);
      await w.until('ADDED,MODIFIED,DELETED');
      assert.match(w.contentType(), /^application\/vnd\.kubernetes\.protobuf;stream=watch/);
      assert.deepStrictEqual(w.events[0]!.object, expected(made));
      assert.deepStrictEqual(w.events[1]!.object, expected(changed));
    } finally {
      w.stop();
    }
  });

  it('a metadata-only protobuf watch of a custom resource yields its metadata as the JSON API has it', async () => {
    const p = collectionPath('pb.kubeloop.io', 'v1', 'widgets', NS);
    const w = watch(p, (await api.must('GET', p)).metadata.resourceVersion as string, PROTOBUF_METADATA_ACCEPT);
    try {
      const made = (await api.must('POST', p, {
        apiVersion: 'pb.kubeloop.io/v1',
        kind: 'Widget',
        metadata: { name: 'w-watched', annotations: { a: 'ü' } },
        spec: { size: 1 },
      })) as Obj;
      await w.until('ADDED');
      assert.match(w.contentType(), /^application\/vnd\.kubernetes\.protobuf;stream=watch/);
      assert.deepStrictEqual(w.events[0]!.object, expected({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: made.metadata }));
    } finally {
      w.stop();
    }
  });
});

function decoded(body: Buffer): Obj {
  const d = decodeProtobuf(new Uint8Array(body.buffer, body.byteOffset, body.length));
  if (!d.ok) assert.fail(d.error.message);
  return sorted(d.value as Obj);
}

/** The list with its items in namespace/name order: some lists are computed in map order (componentstatuses). */
function sorted(list: Obj): Obj {
  const key = (o: Obj) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  if (Array.isArray(list.items)) (list.items as Obj[]).sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return list;
}

/**
 * The JSON form narrowed to the field set the walker reads for its kind. An empty metadata-only
 * list has `items: null` in JSON (a typed one has []): the walker always gives an array.
 */
function expected(o: Record<string, unknown>): Obj {
  const plan = planFor(o.apiVersion as string, o.kind as string);
  assert.ok(plan, `a field set for ${String(o.apiVersion)}/${String(o.kind)}`);
  const out = { kind: o.kind, apiVersion: o.apiVersion, ...(project(o, plan) as object) } as unknown as Obj;
  if ('items' in out && out.items === null) out.items = [];
  return out;
}

/** The tree rows of a list's items, typed from the list as the loader types them. */
function rows(list: Obj, t: Listable): unknown[] {
  return ((list.items ?? []) as Obj[]).map((item) => {
    const o = { ...item, kind: t.kind } as unknown as StoredObject;
    const key = `${item.metadata.namespace ?? ''}/${item.metadata.name}`;
    return computeObjectView(key, o, { group: t.group, resource: t.resource });
  });
}

/** Every listable resource of each group's preferred version (subresources left out). */
async function listableTypes(api: Api): Promise<Listable[]> {
  const out: Listable[] = [];
  const add = (group: string, version: string, list: { resources: { name: string; kind: string; namespaced: boolean; verbs: string[] }[] }) => {
    for (const r of list.resources) {
      if (r.name.includes('/') || !r.verbs.includes('list')) continue;
      out.push({ group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced });
    }
  };
  add('', 'v1', await api.must('GET', '/api/v1'));
  const groups = (await api.must('GET', '/apis')) as { groups: { name: string; preferredVersion: { version: string } }[] };
  for (const g of groups.groups) add(g.name, g.preferredVersion.version, await api.must('GET', `/apis/${g.name}/${g.preferredVersion.version}`));
  return out;
}

/** Kinds with a field set that objects.ts does not seed, and a pod whose status a kubelet wrote. */
async function seedTheRest(api: Api): Promise<void> {
  const meta = (name: string) => ({ name, labels: { app: 'pb' }, annotations: { note: 'ü ✓' } });
  const template = { metadata: { labels: { app: 'pb' } }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } };
  const post = (p: string, body: unknown) => api.must('POST', p, body, [201]);
  // The kinds with a field set that seed() does not make (its StorageClasses and PriorityClasses it does).
  await post(collectionPath('', 'v1', 'limitranges', NS), {
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: meta('pb-limits'),
    spec: { limits: [{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m' }, max: { memory: '1Gi' } }] },
  });
  await post('/apis/storage.k8s.io/v1/csidrivers', {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIDriver',
    metadata: meta('pb.csi.kubeloop.io'),
    spec: { attachRequired: false, podInfoOnMount: true, volumeLifecycleModes: ['Persistent', 'Ephemeral'] },
  });
  await post('/apis/node.k8s.io/v1/runtimeclasses', {
    apiVersion: 'node.k8s.io/v1',
    kind: 'RuntimeClass',
    metadata: meta('pb-runc'),
    handler: 'runc',
    scheduling: { nodeSelector: { 'kubeloop.io/runtime': 'runc' } },
  });
  await post('/apis/networking.k8s.io/v1/ingressclasses', {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: meta('pb-ingress'),
    spec: { controller: 'kubeloop.io/ingress' },
  });
  // Webhooks that can never be called: they match only a resource nothing here creates, and are ignored if they fail.
  const webhook = (name: string) => ({
    name,
    clientConfig: { url: 'https://127.0.0.1:1/never' },
    rules: [{ apiGroups: ['pb.kubeloop.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['gadgets'] }],
    failurePolicy: 'Ignore',
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    timeoutSeconds: 1,
  });
  await post('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: meta('pb-validating'),
    webhooks: [webhook('validate.pb.kubeloop.io')],
  });
  await post('/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: meta('pb-mutating'),
    webhooks: [{ ...webhook('mutate.pb.kubeloop.io'), reinvocationPolicy: 'Never' }],
  });
  await post('/api/v1/nodes', {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: meta('pb-node'),
    spec: { podCIDR: '10.244.9.0/24', taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] },
  });
  await post(collectionPath('', 'v1', 'events', NS), {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: meta('pb-event'),
    involvedObject: { kind: 'Pod', namespace: NS, name: 'pb-0000' },
    reason: 'Unhealthy',
    message: 'Readiness probe failed',
    type: 'Warning',
    count: 3,
    firstTimestamp: '2026-03-14T15:09:26Z',
    lastTimestamp: '2026-03-14T15:10:26Z',
    source: { component: 'kubelet', host: 'pb-node' },
  });
  await post(collectionPath('', 'v1', 'replicationcontrollers', NS), {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: meta('pb-rc'),
    spec: { replicas: 2, selector: { app: 'pb' }, template },
  });
  await post(collectionPath('apps', 'v1', 'replicasets', NS), {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: meta('pb-rs'),
    spec: { replicas: 3, selector: { matchLabels: { app: 'pb' } }, template },
  });
  await post(collectionPath('apps', 'v1', 'daemonsets', NS), {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: meta('pb-ds'),
    spec: { selector: { matchLabels: { app: 'pb' } }, template },
  });
  await post(collectionPath('discovery.k8s.io', 'v1', 'endpointslices', NS), {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: meta('pb-eps'),
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.244.9.5'], conditions: { ready: true }, nodeName: 'pb-node' }],
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  });
  // A pod as a kubelet leaves it: running, a restart, a ready container, an init container done.
  const pod = (await post(collectionPath('', 'v1', 'pods', NS), {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: meta('pb-running'),
    spec: {
      nodeName: 'pb-node',
      initContainers: [{ name: 'init', image: 'busybox' }],
      containers: [
        {
          name: 'app',
          image: 'registry.k8s.io/pause:3.10',
          ports: [{ name: 'http', containerPort: 8080 }],
          readinessProbe: { httpGet: { path: '/', port: 'http' } },
        },
      ],
    },
  })) as Obj;
  const at = '2026-03-14T15:09:26Z';
  await api.must('PUT', collectionPath('', 'v1', 'pods', NS) + '/pb-running/status', {
    ...pod,
    status: {
      phase: 'Running',
      startTime: at,
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at }],
      initContainerStatuses: [
        {
          name: 'init',
          image: 'busybox',
          imageID: '',
          ready: true,
          restartCount: 0,
          state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: at, finishedAt: at } },
        },
      ],
      containerStatuses: [
        {
          name: 'app',
          image: 'registry.k8s.io/pause:3.10',
          imageID: '',
          ready: true,
          started: true,
          restartCount: 2,
          state: { running: { startedAt: at } },
          lastState: { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: at, finishedAt: at } },
        },
      ],
    },
  });
  // The kinds read whole since the loader's field sets grew (fieldsets.ts), beside those seed() makes.
  await post(collectionPath('', 'v1', 'endpoints', NS), {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: meta('pb-ep'),
    subsets: [{ addresses: [{ ip: '10.244.9.5', nodeName: 'pb-node' }], notReadyAddresses: [{ ip: '10.244.9.6' }], ports: [{ name: 'http', port: 8080 }] }],
  });
  await post(collectionPath('', 'v1', 'resourcequotas', NS), {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: meta('pb-quota'),
    spec: { hard: { pods: '100', 'requests.cpu': '20' } },
  });
  await post(collectionPath('apps', 'v1', 'controllerrevisions', NS), {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: meta('pb-rev'),
    data: { spec: { template } },
    revision: 3,
  });
  await post(collectionPath('events.k8s.io', 'v1', 'events', NS), {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: meta('pb-event-v1'),
    eventTime: '2026-03-14T15:09:26.123456Z',
    reportingController: 'kubeloop.io/test',
    reportingInstance: 'test-1',
    action: 'Probe',
    reason: 'Unhealthy',
    regarding: { kind: 'Pod', namespace: NS, name: 'pb-0000' },
    note: 'Readiness probe failed',
    type: 'Warning',
  });
}
