/**
 * Bad requests get Kubernetes-shaped Status answers with the apiserver's codes and reasons
 * (400, 401, 403, 404, 405, 409, 410, 415, 422), never a hang or a crash; authentication and TLS
 * work with kubectl and client-node; dryRun=All changes nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { api, configMap, namespace, startTestCluster, type TestCluster } from './demo-support';

function assertStatus(r: { status: number; body: any }, code: number, reason: string, message?: RegExp): void {
  assert.equal(r.status, code, JSON.stringify(r.body));
  assert.equal(r.body.kind, 'Status');
  assert.equal(r.body.apiVersion, 'v1');
  assert.equal(r.body.status, 'Failure');
  assert.equal(r.body.code, code);
  assert.equal(r.body.reason, reason);
  if (message) assert.match(r.body.message, message);
}

describe('Status errors', () => {
  let t: TestCluster;
  before(async () => {
    t = await startTestCluster({ forbidden: ['/secrets', 'apps/deployments'] });
    t.cluster.store.create('', 'namespaces', namespace('e'));
    t.cluster.store.create('', 'configmaps', configMap('e', 'one'));
  });
  after(() => t.close());

  it('404 NotFound: missing object, missing namespace on create, unknown resource and path', async () => {
    assertStatus(await api(t.cluster, '/api/v1/namespaces/e/configmaps/nope'), 404, 'NotFound', /^configmaps "nope" not found$/);
    const r = await api(t.cluster, '/api/v1/namespaces/nowhere/configmaps', { method: 'POST', json: configMap('nowhere', 'x') });
    assertStatus(r, 404, 'NotFound', /^namespaces "nowhere" not found$/);
    assert.deepEqual(r.body.details, { name: 'nowhere', kind: 'namespaces' });
    assertStatus(await api(t.cluster, '/api/v1/widgets'), 404, 'NotFound', /could not find the requested resource/);
    assertStatus(await api(t.cluster, '/apis/nope.example.com/v1'), 404, 'NotFound');
    assertStatus(await api(t.cluster, '/totally/unknown'), 404, 'NotFound');
  });

  it('400 BadRequest: malformed JSON, mismatched name or namespace, bad selectors', async () => {
    assertStatus(
      await api(t.cluster, '/api/v1/namespaces/e/configmaps', { method: 'POST', body: '{"metadata": {', headers: { 'content-type': 'application/json' } }),
      400,
      'BadRequest',
      /json parse error/,
    );
    const put = await api(t.cluster, '/api/v1/namespaces/e/configmaps/one', { method: 'PUT', json: configMap('e', 'other') });
    assertStatus(put, 400, 'BadRequest', /does not match the name on the URL/);
    assertStatus(
      await api(t.cluster, '/api/v1/namespaces/e/configmaps', { method: 'POST', json: configMap('elsewhere', 'x') }),
      400,
      'BadRequest',
      /namespace of the provided object does not match/,
    );
    assertStatus(await api(t.cluster, '/api/v1/configmaps?labelSelector=a%20b%20c'), 400, 'BadRequest', /unable to parse requirement/);
    assertStatus(await api(t.cluster, '/api/v1/pods?fieldSelector=spec.bogus%3D1'), 400, 'BadRequest', /field label not supported: spec.bogus/);
    assertStatus(await api(t.cluster, '/api/v1/configmaps?fieldSelector=metadata.name'), 400, 'BadRequest');
    assertStatus(
      await api(t.cluster, '/api/v1/namespaces/e/configmaps', { method: 'POST', json: { ...configMap('e', 'y'), kind: 'Secret' } }),
      400,
      'BadRequest',
    );
    assertStatus(
      await api(t.cluster, '/api/v1/namespaces/e/configmaps/one', {
        method: 'PATCH',
        body: '{not json',
        headers: { 'content-type': 'application/merge-patch+json' },
      }),
      400,
      'BadRequest',
    );
  });

  it('403 Forbidden for the default user, with the apiserver RBAC message; another user may', async () => {
    const list = await api(t.cluster, '/api/v1/secrets');
    assertStatus(list, 403, 'Forbidden', /^secrets is forbidden: User "kubeloop-demo" cannot list resource "secrets" in API group "" at the cluster scope$/);
    const get = await api(t.cluster, '/apis/apps/v1/namespaces/e/deployments/web');
    assertStatus(
      get,
      403,
      'Forbidden',
      /^deployments\.apps "web" is forbidden: User "kubeloop-demo" cannot get resource "deployments" in API group "apps" in the namespace "e"$/,
    );
    assert.deepEqual(get.body.details, { name: 'web', group: 'apps', kind: 'deployments' });
    const k = await t.kubectl(['get', 'secrets', '-A']);
    assert.match(
      k.stderr,
      /Error from server \(Forbidden\): secrets is forbidden: User "kubeloop-demo" cannot list resource "secrets" in API group "" at the cluster scope/,
    );
    // kubectl auth can-i / whoami ask the same authorizer through the review APIs.
    const canList = await t.kubectl(['auth', 'can-i', 'list', 'secrets', '-A']);
    assert.equal(canList.code, 1);
    assert.equal(canList.stdout.trim(), 'no');
    assert.equal((await t.kubectlOk(['auth', 'can-i', 'create', 'pods'])).trim(), 'yes');
    assert.match(await t.kubectlOk(['auth', 'whoami']), /Username\s+kubeloop-demo/);
    // Discovery is not forbidden, and an admin kubeconfig may do anything.
    assert.match(await t.kubectlOk(['api-resources', '-o', 'name']), /^secrets$/m);
    const kc = new KubeConfig();
    kc.loadFromString(t.cluster.kubeconfig({ user: 'admin' }));
    const secrets = await kc.makeApiClient(CoreV1Api).listSecretForAllNamespaces();
    assert.deepEqual(secrets.items, []);
  });

  it('405 MethodNotAllowed for verbs a type lacks', async () => {
    assertStatus(
      await api(t.cluster, '/api/v1/componentstatuses', { method: 'POST', json: { metadata: { name: 'x' } } }),
      405,
      'MethodNotAllowed',
      /does not allow this method/,
    );
    assertStatus(await api(t.cluster, '/apis/authentication.k8s.io/v1/tokenreviews'), 405, 'MethodNotAllowed');
    assertStatus(await api(t.cluster, '/api/v1/namespaces', { method: 'DELETE' }), 405, 'MethodNotAllowed');
    assertStatus(await api(t.cluster, '/api', { method: 'POST' }), 405, 'MethodNotAllowed');
  });

  it('409 AlreadyExists and Conflict', async () => {
    const dup = await api(t.cluster, '/api/v1/namespaces/e/configmaps', { method: 'POST', json: configMap('e', 'one') });
    assertStatus(dup, 409, 'AlreadyExists', /^configmaps "one" already exists$/);
    const cur = (await api(t.cluster, '/api/v1/namespaces/e/configmaps/one')).body;
    assert.equal((await api(t.cluster, '/api/v1/namespaces/e/configmaps/one', { method: 'PUT', json: { ...cur, data: { v: '1' } } })).status, 200);
    const stale = await api(t.cluster, '/api/v1/namespaces/e/configmaps/one', { method: 'PUT', json: { ...cur, data: { v: '2' } } });
    assertStatus(
      stale,
      409,
      'Conflict',
      /^Operation cannot be fulfilled on configmaps "one": the object has been modified; please apply your changes to the latest version and try again$/,
    );
    const pre = await api(t.cluster, '/api/v1/namespaces/e/configmaps/one', {
      method: 'DELETE',
      json: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-the-uid' } },
    });
    assertStatus(pre, 409, 'Conflict', /Precondition failed: UID in precondition: not-the-uid/);
  });

  it('410 Gone for an old watch resourceVersion (as an ERROR event) and an old Exact list', async () => {
    const small = await startTestCluster({ historySize: 3 });
    try {
      for (let i = 0; i < 10; i++) small.cluster.store.create('', 'configmaps', configMap('default', `c${i}`));
      const list = await api(small.cluster, '/api/v1/configmaps?resourceVersion=2&resourceVersionMatch=Exact');
      assertStatus(list, 410, 'Expired', /^too old resource version: 2 \(\d+\)$/);
      const w = await fetch(`${small.cluster.url}/api/v1/configmaps?watch=true&resourceVersion=2`);
      assert.equal(w.status, 200);
      const ev = JSON.parse((await w.text()).trim());
      assert.equal(ev.type, 'ERROR');
      assert.equal(ev.object.code, 410);
    } finally {
      await small.close();
    }
  });

  it('415 for unknown patch types and protobuf kinds the demo lacks, 400 for a body that is not protobuf; 422 Invalid for a missing or bad name', async () => {
    assertStatus(
      await api(t.cluster, '/api/v1/namespaces/e/configmaps/one', { method: 'PATCH', body: '{}', headers: { 'content-type': 'text/plain' } }),
      415,
      'UnsupportedMediaType',
    );
    // the magic alone is an empty body to kube-apiserver's protobuf serializer: 400 (its message)
    assertStatus(
      await api(t.cluster, '/api/v1/namespaces/e/configmaps', {
        method: 'POST',
        body: 'k8s\u0000',
        headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
      }),
      400,
      'BadRequest',
      /^the object provided is unrecognized \(must be of type ConfigMap\): empty body \(6b387300\)$/,
    );
    // a kind the demo has no protobuf schema for: 415, never silently dropped
    const podTemplate = Buffer.from([0x6b, 0x38, 0x73, 0, 0x0a, 0x11, 0x0a, 0x02, ...Buffer.from('v1'), 0x12, 0x0b, ...Buffer.from('PodTemplate'), 0x12, 0x00]);
    assertStatus(
      await api(t.cluster, '/api/v1/namespaces/e/podtemplates', {
        method: 'POST',
        body: podTemplate,
        headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
      }),
      415,
      'UnsupportedMediaType',
    );
    const noName = await api(t.cluster, '/api/v1/namespaces/e/configmaps', { method: 'POST', json: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} } });
    assertStatus(noName, 422, 'Invalid', /^ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required$/);
    assert.equal(noName.body.details.causes[0].field, 'metadata.name');
    assertStatus(
      await api(t.cluster, '/api/v1/namespaces/e/configmaps', { method: 'POST', json: configMap('e', 'Bad_Name') }),
      422,
      'Invalid',
      /a lowercase RFC 1123 subdomain/,
    );
    assertStatus(
      await api(t.cluster, '/api/v1/namespaces/e/pods', { method: 'POST', json: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} } }),
      422,
      'Invalid',
      /spec.containers: Required value/,
    );
    const gen = await api(t.cluster, '/api/v1/namespaces/e/configmaps', {
      method: 'POST',
      json: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } },
    });
    assert.equal(gen.status, 201);
    assert.match(gen.body.metadata.name, /^gen-[a-z0-9]{5}$/);
  });

  it('dryRun=All validates and answers without storing', async () => {
    const rv = t.cluster.store.currentRV;
    const c = await api(t.cluster, '/api/v1/namespaces/e/configmaps?dryRun=All', { method: 'POST', json: configMap('e', 'dry') });
    assert.equal(c.status, 201);
    assert.ok(c.body.metadata.uid);
    const d = await api(t.cluster, '/api/v1/namespaces/e/configmaps/one?dryRun=All', { method: 'DELETE' });
    assert.equal(d.status, 200);
    const p = await api(t.cluster, '/api/v1/namespaces/e/configmaps/one?dryRun=All', {
      method: 'PATCH',
      json: { data: { dry: 'yes' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(p.body.data.dry, 'yes');
    assert.equal(t.cluster.store.currentRV, rv, 'nothing was written');
    const k = await t.kubectl(['create', 'configmap', 'dry2', '-n', 'e', '--dry-run=server', '-o', 'name']);
    assert.equal(k.code, 0, k.stderr);
    assert.match(k.stdout, /configmap\/dry2/);
    assert.equal(t.cluster.store.currentRV, rv);
  });

  it('patch types: merge, strategic (lists merged by name), json-patch; status subresource', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'pp', namespace: 'e' },
      spec: {
        containers: [
          { name: 'a', image: 'x' },
          { name: 'b', image: 'y' },
        ],
      },
    };
    assert.equal((await api(t.cluster, '/api/v1/namespaces/e/pods', { method: 'POST', json: pod })).status, 201);
    const smp = await api(t.cluster, '/api/v1/namespaces/e/pods/pp', {
      method: 'PATCH',
      json: { spec: { containers: [{ name: 'b', image: 'z' }] } },
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
    });
    assert.deepEqual(
      smp.body.spec.containers.map((c: any) => `${c.name}=${c.image}`),
      ['a=x', 'b=z'],
    );
    const jp = await api(t.cluster, '/api/v1/namespaces/e/pods/pp', {
      method: 'PATCH',
      json: [{ op: 'add', path: '/metadata/labels', value: { j: 'p' } }],
      headers: { 'content-type': 'application/json-patch+json' },
    });
    assert.deepEqual(jp.body.metadata.labels, { j: 'p' });
    const badTest = await api(t.cluster, '/api/v1/namespaces/e/pods/pp', {
      method: 'PATCH',
      json: [{ op: 'test', path: '/metadata/name', value: 'nope' }],
      headers: { 'content-type': 'application/json-patch+json' },
    });
    assertStatus(badTest, 422, 'Invalid');
    const st = await api(t.cluster, '/api/v1/namespaces/e/pods/pp/status', {
      method: 'PATCH',
      json: { status: { phase: 'Running' }, spec: { nodeName: 'ignored' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(st.status, 200);
    assert.equal(st.body.status.phase, 'Running');
    assert.equal(st.body.spec.nodeName, undefined, 'the status subresource changes only status');
    const viaMain = await api(t.cluster, '/api/v1/namespaces/e/pods/pp', {
      method: 'PATCH',
      json: { status: { phase: 'Failed' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(viaMain.body.status.phase, 'Running', 'the main resource ignores status changes');
    assert.equal((await api(t.cluster, '/api/v1/namespaces/e/pods/pp/status')).body.status.phase, 'Running');
  });

  it('a flood of garbage requests leaves the server answering', async () => {
    const paths = [
      '/api/v1/namespaces/e/configmaps/%E0%A4%A',
      '/apis//v1',
      '/api/v1/namespaces//pods',
      '/api/v1/pods?limit=-1',
      '/api/v1/pods?watch=1&timeoutSeconds=abc',
      '/api/v1/pods?resourceVersion=xyz',
      '/openapi/v3/apis/none/v1',
      '/_demo/nothing',
    ];
    for (const p of paths) {
      const r = await api(t.cluster, p);
      assert.ok(r.status >= 400 && r.status < 500, `${p} -> ${r.status}`);
      assert.equal(r.body.kind, 'Status', p);
    }
    const ok = await api(t.cluster, '/api/v1/namespaces/e/configmaps/one');
    assert.equal(ok.status, 200);
  });
});

describe('authentication and TLS', () => {
  it('a token-protected HTTPS cluster: 401 without the token, kubectl and client-node with the kubeconfig', async () => {
    const t = await startTestCluster({ tls: true, token: 'sekret-token' });
    try {
      assert.match(t.cluster.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const kc = new KubeConfig();
      kc.loadFromString(t.cluster.kubeconfig());
      const nss = await kc.makeApiClient(CoreV1Api).listNamespace();
      assert.ok(nss.items.length >= 4);
      assert.match(await t.kubectlOk(['get', 'ns']), /kube-system/);
      const bad = new KubeConfig();
      bad.loadFromString(t.cluster.kubeconfig().replace('sekret-token', 'wrong-token'));
      await assert.rejects(bad.makeApiClient(CoreV1Api).listNamespace(), (e: any) => e.code === 401);
      const anon = await t.kubectl(['get', 'ns', '--token=wrong']);
      assert.match(anon.stderr, /Unauthorized|must be logged in/);
    } finally {
      await t.close();
    }
  });
});
