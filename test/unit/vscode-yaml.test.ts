// The read-only YAML documents: addresses that survive any object name, and Secret values that
// never reach the document.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { load } from 'js-yaml';
import { addressToPath, pathToAddress, type ObjectAddress } from '../../src/app/yaml/address';
import { LAST_APPLIED, redactObject, renderObjectYaml } from '../../src/app/yaml/render';

const XSS = '<img src=x onerror=alert(1)>';
const SECRETS = { group: '', resource: 'secrets' };

describe('object addresses (kubeloop: URIs)', () => {
  it('names the object in a readable path, core group and cluster scope as _', () => {
    const a: ObjectAddress = { context: 'kubeloop-demo', group: '', version: 'v1', resource: 'pods', namespace: 'default', name: 'web-0' };
    assert.equal(addressToPath(a), '/kubeloop-demo/_/v1/pods/default/web-0.yaml');
    assert.deepEqual(pathToAddress(addressToPath(a)), a);
    const role: ObjectAddress = {
      context: 'arn:aws:eks:eu-west-1:1:cluster/prod',
      group: 'rbac.authorization.k8s.io',
      version: 'v1',
      resource: 'clusterroles',
      name: 'system:controller:x',
    };
    assert.equal(addressToPath(role), '/arn:aws:eks:eu-west-1:1:cluster%2Fprod/rbac.authorization.k8s.io/v1/clusterroles/_/system:controller:x.yaml');
    assert.deepEqual(pathToAddress(addressToPath(role)), role);
  });

  it('keeps an HTML name as plain characters (the tab shows it as text)', () => {
    const a: ObjectAddress = { context: 'c', group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', namespace: 'default', name: XSS };
    assert.ok(addressToPath(a).endsWith(`/${XSS}.yaml`), addressToPath(a));
    assert.deepEqual(pathToAddress(addressToPath(a)), a);
  });

  it('round-trips every context and name, and never yields a path with extra segments (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }),
        fc.option(fc.stringMatching(/^[a-z0-9]{1,10}$/), { nil: undefined }),
        (context, name, namespace) => {
          const a: ObjectAddress = { context, group: 'apps', version: 'v1', resource: 'deployments', ...(namespace ? { namespace } : {}), name };
          const path = addressToPath(a);
          assert.equal(path.split('/').length, 7);
          assert.ok(!/[?#\\]/.test(path), path);
          assert.deepEqual(pathToAddress(path), a);
        },
      ),
    );
  });

  it('rejects paths that are not object addresses', () => {
    for (const p of ['', '/', '/a/b', '/c/_/v1/pods/default/web-0.json', '/c/_/v1/pods/default/.yaml', '/c/_/v1/pods/%E0%A4%A/x.yaml'])
      assert.equal(pathToAddress(p), undefined, p);
  });
});

describe('rendering an object as YAML', () => {
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'db',
      namespace: 'default',
      managedFields: [{ manager: 'kubectl' }],
      annotations: { [LAST_APPLIED]: '{"data":{"password":"aHVudGVyMg=="}}', note: 'kept' },
    },
    data: { password: 'aHVudGVyMg==', empty: '' },
    stringData: { token: 's3cr3t-t0ken' },
    type: 'Opaque',
  };

  it('masks every Secret value with its size, and the last-applied annotation that repeats them', () => {
    const r = redactObject(SECRETS, secret) as typeof secret;
    assert.deepEqual(r.data, { password: '<masked: 7 bytes>', empty: '<masked: 0 bytes>' });
    assert.deepEqual(r.stringData, { token: '<masked: 12 bytes>' });
    assert.equal(r.metadata.annotations[LAST_APPLIED], '<masked: 36 bytes>');
    assert.equal(r.metadata.annotations.note, 'kept');
    assert.equal(secret.data.password, 'aHVudGVyMg==', 'the input is not mutated');
  });

  it('drops managedFields of any object and leaves other objects as they are', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', managedFields: [{}], annotations: { html: XSS } }, data: { k: 'v' } };
    const r = redactObject({ group: '', resource: 'configmaps' }, cm) as typeof cm;
    assert.equal('managedFields' in r.metadata, false);
    assert.deepEqual(r.data, { k: 'v' });
    assert.equal(r.metadata.annotations.html, XSS);
  });

  it('renders a header comment and a YAML body that parses back; no Secret value appears in the text (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.string({ minLength: 4 })), (values) => {
        const data = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(`SECRET:${v}`).toString('base64')]));
        const text = renderObjectYaml(
          { context: 'c', ...SECRETS, version: 'v1', namespace: 'default', name: 'db' },
          {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: 'db' },
            data,
            stringData: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, `SECRET:${v}`])),
          },
          new Date(0),
        );
        assert.ok(text.startsWith('# secrets default/db in context "c"'), text.slice(0, 80));
        assert.match(text, /Secret values are masked/);
        for (const v of [...Object.values(data), ...Object.values(values).map((v) => `SECRET:${v}`)]) assert.ok(!text.includes(v), 'a value leaked');
        const body = load(text) as { data?: Record<string, string> };
        for (const k of Object.keys(values)) assert.match(body.data![k]!, /^<masked: \d+ bytes?>$/);
      }),
    );
  });
});
