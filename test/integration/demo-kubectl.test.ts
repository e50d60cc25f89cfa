/**
 * A real kubectl v1.34 against the demo cluster: discovery, get of every listable type, watch,
 * run/label/delete (the study guide's probe-me command), selectors, and the Status errors kubectl prints.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import aggregated from '../../src/demo/data/aggregated_v2.json';
import coreV1 from '../../src/demo/data/api__v1.json';
import { configMap, namespace, startTestCluster, type TestCluster } from './demo-support';
import { eventually } from '../support/eventually';

/** group/resource names kubectl prints (`pods`, `deployments.apps`) for every listable upstream type. */
function upstreamListable(): string[] {
  const names = new Set<string>();
  for (const r of (coreV1 as { resources: { name: string; verbs: string[] }[] }).resources) {
    if (!r.name.includes('/') && r.verbs.includes('list')) names.add(r.name);
  }
  for (const g of (aggregated as unknown as { items: { metadata: { name: string }; versions: { resources: { resource: string; verbs: string[] }[] }[] }[] })
    .items) {
    for (const v of g.versions) for (const r of v.resources) if (r.verbs.includes('list')) names.add(`${r.resource}.${g.metadata.name}`);
  }
  return [...names].sort();
}

const PROBE_ME_OVERRIDES =
  '{"spec":{"nodeName":"pair-worker","containers":[{"name":"probe-me","image":"registry.k8s.io/e2e-test-images/agnhost:2.47","args":["netexec","--http-port=8080"],"livenessProbe":{"httpGet":{"path":"/healthz","port":8081},"periodSeconds":5,"failureThreshold":2}}]}}';

describe('kubectl v1.34 against the demo cluster', () => {
  let t: TestCluster;
  before(async () => {
    t = await startTestCluster({ crds: [{ group: 'demo.kubeloop.io', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true }] });
    const s = t.cluster.store;
    s.create('', 'namespaces', namespace('team-a'));
    for (let i = 0; i < 5; i++) s.create('', 'configmaps', configMap('team-a', `cm-${i}`, { i: String(i) }, { app: i % 2 ? 'odd' : 'even' }));
    s.create('apps', 'deployments', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'team-a' }, spec: { replicas: 2 } });
    s.create('demo.kubeloop.io', 'widgets', {
      apiVersion: 'demo.kubeloop.io/v1',
      kind: 'Widget',
      metadata: { name: 'w1', namespace: 'team-a' },
      spec: { size: 3 },
    });
  });
  after(() => t.close());

  it('api-resources lists every upstream listable type, plus the CRD', async () => {
    const out = await t.kubectlOk(['api-resources', '--verbs=list', '-o', 'name']);
    const listed = out.trim().split('\n').sort();
    const want = [...upstreamListable(), 'widgets.demo.kubeloop.io'].sort();
    assert.deepEqual(listed, want);
    const wide = await t.kubectlOk(['api-resources']);
    assert.match(wide, /^pods\s+po\s+v1\s+true\s+Pod$/m);
    assert.match(wide, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
    assert.match(wide, /^customresourcedefinitions\s+crd,crds\s+apiextensions\.k8s\.io\/v1\s+false\s+CustomResourceDefinition$/m);
  });

  it('get <type> -A works for every listable type, in one call and as a table', async () => {
    const types = upstreamListable();
    const json = JSON.parse(await t.kubectlOk(['get', [...types, 'widgets.demo.kubeloop.io'].join(','), '-A', '-o', 'json']));
    const kinds = new Set(json.items.map((o: { kind: string }) => o.kind));
    for (const k of ['Namespace', 'ConfigMap', 'Deployment', 'Widget', 'CustomResourceDefinition']) assert.ok(kinds.has(k), `missing ${k}`);
    const r = await t.kubectl(['get', types.join(','), '-A']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /team-a\s+configmap\/cm-0\s+1\s+\d+s/);
    assert.match(r.stdout, /team-a\s+deployment\.apps\/web\s+0\/2\s+0\s+0\s+\d+s/);
  });

  it('label selectors and field selectors reach the server', async () => {
    assert.equal((await t.kubectlOk(['get', 'cm', '-n', 'team-a', '-l', 'app=odd', '-o', 'name'])).trim(), 'configmap/cm-1\nconfigmap/cm-3');
    assert.equal((await t.kubectlOk(['get', 'cm', '-n', 'team-a', '-l', 'app in (even),app!=odd', '-o', 'name'])).trim().split('\n').length, 3);
    assert.equal((await t.kubectlOk(['get', 'cm', '-A', '--field-selector', 'metadata.name=cm-2', '-o', 'name'])).trim(), 'configmap/cm-2');
    const bad = await t.kubectl(['get', 'cm', '-A', '--field-selector', 'data.i=1']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /field label not supported: data\.i/);
  });

  it('run (probe-me with the study guide overrides), label, get -o yaml, delete', async () => {
    const run = await t.kubectl([
      '-n',
      'default',
      'run',
      'probe-me',
      '--image=registry.k8s.io/e2e-test-images/agnhost:2.47',
      `--overrides=${PROBE_ME_OVERRIDES}`,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /pod\/probe-me created/);
    const pod = JSON.parse(await t.kubectlOk(['-n', 'default', 'get', 'pod', 'probe-me', '-o', 'json']));
    assert.equal(pod.spec.nodeName, 'pair-worker');
    assert.equal(pod.spec.containers[0].livenessProbe.httpGet.port, 8081);
    assert.deepEqual(pod.spec.containers[0].args, ['netexec', '--http-port=8080']);
    assert.equal(pod.metadata.labels.run, 'probe-me');
    assert.equal(pod.status.phase, 'Pending');

    assert.match(await t.kubectlOk(['-n', 'default', 'label', 'pod', 'probe-me', 'team=loop']), /pod\/probe-me labeled/);
    assert.match(await t.kubectlOk(['-n', 'default', 'get', 'pods', '-l', 'team=loop']), /^probe-me\s+0\/1\s+Pending\s+0\s+\d+s$/m);
    assert.match(await t.kubectlOk(['-n', 'default', 'label', 'pod', 'probe-me', 'team-']), /pod\/probe-me unlabeled/);
    assert.match(await t.kubectlOk(['-n', 'default', 'annotate', 'pod', 'probe-me', 'note=hi']), /annotated/);
    const yaml = await t.kubectlOk(['-n', 'default', 'get', 'pod', 'probe-me', '-o', 'yaml']);
    assert.match(yaml, /note: hi/);
    assert.doesNotMatch(yaml, /team: loop/);

    // No kubelet runs here: as on a real cluster whose node is gone, `delete --now` only marks the
    // bound pod (grace 1 s) and it stays Terminating until a grace-0 delete removes it.
    assert.match(await t.kubectlOk(['-n', 'default', 'delete', 'pod', 'probe-me', '--now', '--wait=false']), /pod "probe-me" deleted/);
    assert.match(await t.kubectlOk(['-n', 'default', 'get', 'pod', 'probe-me']), /^probe-me\s+0\/1\s+Terminating\s+0\s+\d+s$/m);
    assert.match(await t.kubectlOk(['-n', 'default', 'delete', 'pod', 'probe-me', '--grace-period=0', '--force']), /pod "probe-me" force deleted/);
    const gone = await t.kubectl(['-n', 'default', 'get', 'pod', 'probe-me']);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /Error from server \(NotFound\): pods "probe-me" not found/);
  });

  it('apply (client-side) creates and then patches; edit-style replace works', async () => {
    const manifest = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: 'team-a' }, data: { a: '1' } });
    assert.match(await t.kubectlOk(['apply', '-f', '-'], manifest), /configmap\/applied created/);
    const changed = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: 'team-a' }, data: { a: '2', b: '3' } });
    assert.match(await t.kubectlOk(['apply', '-f', '-'], changed), /configmap\/applied configured/);
    const got = JSON.parse(await t.kubectlOk(['get', 'cm', 'applied', '-n', 'team-a', '-o', 'json']));
    assert.deepEqual(got.data, { a: '2', b: '3' });
    got.data.c = '4';
    assert.match(await t.kubectlOk(['replace', '-f', '-'], JSON.stringify(got)), /configmap\/applied replaced/);
    assert.match(await t.kubectlOk(['apply', '--server-side', '-f', '-'], changed), /serverside-applied/);
  });

  it('typed create commands send protobuf, and the server decodes it', async () => {
    const creates: string[][] = [
      ['create', 'namespace', 'typed'],
      ['create', 'configmap', 'tc', '-n', 'typed', '--from-literal=k=v'],
      ['create', 'secret', 'generic', 'ts', '-n', 'typed', '--from-literal=pw=hunter2'],
      ['create', 'serviceaccount', 'tsa', '-n', 'typed'],
      ['create', 'deployment', 'td', '-n', 'typed', '--image=nginx:1.27', '--replicas=2', '--port=80'],
      ['create', 'job', 'tj', '-n', 'typed', '--image=busybox', '--', 'echo', 'hi'],
      ['create', 'cronjob', 'tcj', '-n', 'typed', '--image=busybox', '--schedule=*/5 * * * *', '--', 'date'],
      ['create', 'service', 'clusterip', 'tsvc', '-n', 'typed', '--tcp=80:8080'],
      ['create', 'role', 'tr', '-n', 'typed', '--verb=get,list', '--resource=pods'],
      ['create', 'rolebinding', 'trb', '-n', 'typed', '--role=tr', '--user=bob'],
      ['create', 'quota', 'tq', '-n', 'typed', '--hard=pods=5'],
      ['create', 'priorityclass', 'tpc', '--value=100'],
    ];
    for (const args of creates) assert.match(await t.kubectlOk(args), /created/, args.join(' '));
    const s = t.cluster.store;
    assert.deepEqual(s.get('', 'configmaps', 'typed', 'tc')!.data, { k: 'v' });
    assert.equal(Buffer.from((s.get('', 'secrets', 'typed', 'ts')!.data as any).pw, 'base64').toString(), 'hunter2');
    const d = s.get('apps', 'deployments', 'typed', 'td')! as any;
    assert.equal(d.spec.replicas, 2);
    assert.deepEqual(d.spec.selector.matchLabels, { app: 'td' });
    // As decoded from protobuf, then defaulted as a real apiserver does (SetDefaults_PodSpec on the template).
    assert.deepEqual(d.spec.template.spec.containers[0], {
      name: 'nginx',
      image: 'nginx:1.27',
      ports: [{ containerPort: 80, protocol: 'TCP' }],
      imagePullPolicy: 'IfNotPresent',
      resources: {},
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
    assert.deepEqual((s.get('batch', 'jobs', 'typed', 'tj') as any).spec.template.spec.containers[0].command, ['echo', 'hi']);
    assert.equal((s.get('batch', 'cronjobs', 'typed', 'tcj') as any).spec.schedule, '*/5 * * * *');
    assert.deepEqual((s.get('', 'services', 'typed', 'tsvc') as any).spec.ports, [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }]);
    assert.deepEqual((s.get('rbac.authorization.k8s.io', 'roles', 'typed', 'tr') as any).rules, [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
    ]);
    assert.equal((s.get('scheduling.k8s.io', 'priorityclasses', undefined, 'tpc') as any).value, 100);
  });

  it('get -w sees a create and a delete', async () => {
    const w = t.spawnKubectl(['get', 'configmaps', '-n', 'team-a', '-w', '--output-watch-events']);
    try {
      await w.waitFor(/cm-4/);
      t.cluster.store.create('', 'configmaps', configMap('team-a', 'watched'));
      await w.waitFor(/ADDED\s+watched/);
      t.cluster.store.delete('', 'configmaps', 'team-a', 'watched');
      await w.waitFor(/DELETED\s+watched/);
    } finally {
      await w.stop();
    }
  });

  it('prints the server Status for errors: NotFound, Forbidden-free create in a missing namespace, AlreadyExists', async () => {
    const nf = await t.kubectl(['get', 'deployment', 'nope', '-n', 'team-a']);
    assert.match(nf.stderr, /Error from server \(NotFound\): deployments\.apps "nope" not found/);
    const ns = await t.kubectl(['run', 'x', '--image=busybox', '-n', 'missing-ns']);
    assert.match(ns.stderr, /Error from server \(NotFound\): namespaces "missing-ns" not found/);
    const dup = await t.kubectl(['create', '-f', '-'], JSON.stringify(configMap('team-a', 'cm-0')));
    assert.match(dup.stderr, /Error from server \(AlreadyExists\).*configmaps "cm-0" already exists/);
  });
});

describe('kubectl with the kubelet simulation running', () => {
  let t: TestCluster;
  before(async () => {
    t = await startTestCluster({ kubelet: true });
  });
  after(() => t.close());

  it('delete is graceful: the pod turns Terminating, the kubelet stops it, then it is gone', async () => {
    assert.match(await t.kubectlOk(['run', 'web', '--image=nginx:1.27', '--port=80']), /pod\/web created/);
    // With --output-watch-events, kubectl hands its printer the event ({type, object}).
    const w = t.spawnKubectl([
      'get',
      'pods',
      '--watch-only',
      '--output-watch-events',
      '-o',
      'jsonpath={.type} {.object.metadata.name} {.object.metadata.deletionTimestamp}{"\\n"}',
    ]);
    try {
      await eventually(async () => /Running/.test(await t.kubectlOk(['get', 'pod', 'web'])), { description: 'kubectl to show web Running', timeoutMs: 15_000 });
      const del = await t.kubectl(['delete', 'pod', 'web']);
      assert.equal(del.code, 0, del.stderr);
      assert.match(del.stdout, /pod "web" deleted/);
      await w.waitFor(/DELETED\s+web/);
      assert.match(w.stdout, /MODIFIED\s+web\s+\d{4}-\d\d-\d\dT[\d:]+Z/, 'a deletionTimestamp came before the pod went away');
    } finally {
      await w.stop();
    }
    const gone = await t.kubectl(['get', 'pod', 'web']);
    assert.match(gone.stderr, /NotFound/);
  });

  it('--grace-period=0 --force deletes at once; logs and events of a running pod', async () => {
    await t.kubectlOk(['run', 'quick', '--image=busybox', '--', 'sleep', '3600']);
    await eventually(async () => /Running/.test(await t.kubectlOk(['get', 'pod', 'quick'])), {
      description: 'kubectl to show quick Running',
      timeoutMs: 15_000,
    });
    assert.equal(await t.kubectlOk(['logs', 'quick']), '', 'sleep writes nothing: an empty log');
    assert.match((await t.kubectl(['logs', 'nope'])).stderr, /NotFound/);
    assert.match(
      await t.kubectlOk(['get', 'events', '--field-selector', 'involvedObject.name=quick']),
      /Normal\s+Started\s+pod\/quick\s+Started container quick/,
    );
    assert.match(await t.kubectlOk(['describe', 'pod', 'quick']), /Successfully assigned default\/quick to /);
    const r = await t.kubectl(['delete', 'pod', 'quick', '--grace-period=0', '--force']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(t.cluster.store.get('', 'pods', 'default', 'quick'), undefined);
  });
});
