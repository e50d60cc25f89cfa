import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfigError, listContextNames, loadKubeContext, loadKubeContexts } from '../../src/core/kube';
import { kubeconfigYaml, tempDir } from './kube-helpers';

const t = tempDir();
after(() => t.cleanup());
const file = (name: string, text: string) => {
  const p = join(t.dir, name);
  writeFileSync(p, text);
  return p;
};
const isConfigError = (re: RegExp) => (e: unknown) => {
  assert.ok(e instanceof KubeConfigError, `expected KubeConfigError, got ${String(e)}`);
  assert.match((e as Error).message, re);
  return true;
};

const two = `apiVersion: v1
kind: Config
clusters:
- name: a
  cluster: { server: "https://a.example:6443", insecure-skip-tls-verify: true }
- name: b
  cluster: { server: "https://b.example:6443/" }
users:
- name: ua
  user: { token: "token-a" }
- name: ub
  user: { token: "token-b" }
contexts:
- name: ctx-a
  context: { cluster: a, user: ua, namespace: team-a }
- name: ctx-b
  context: { cluster: b, user: ub }
current-context: ctx-a
`;

describe('kubeconfig: one KubeConfig per context', () => {
  it('loads the current context, or the one named, each isolated in its own KubeConfig', () => {
    const p = file('two', two);
    const a = loadKubeContext({ kubeconfig: p });
    assert.equal(a.name, 'ctx-a');
    assert.equal(a.server, 'https://a.example:6443');
    assert.equal(a.namespace, 'team-a');
    assert.equal(a.cluster.skipTLSVerify, true);
    const b = loadKubeContext({ kubeconfig: p, context: 'ctx-b' });
    assert.equal(b.server, 'https://b.example:6443');
    // Each KubeConfig holds exactly its own context: its auth cannot follow another current-context.
    assert.deepEqual(
      b.kc.getContexts().map((c) => c.name),
      ['ctx-b'],
    );
    assert.equal(b.kc.getCurrentUser()?.token, 'token-b');
    assert.equal(a.kc.getCurrentUser()?.token, 'token-a');
    assert.deepEqual(listContextNames({ kubeconfig: p }), { names: ['ctx-a', 'ctx-b'], current: 'ctx-a' });
  });

  it('loadKubeContexts reads the configuration once and gives each name what loadKubeContext gives, or its error', () => {
    const p = file('two-many', two);
    const [a, b, missing] = loadKubeContexts({ kubeconfig: p }, ['ctx-a', 'ctx-b', 'nope']);
    for (const [got, name] of [
      [a, 'ctx-a'],
      [b, 'ctx-b'],
    ] as const) {
      assert.ok(!(got instanceof Error));
      const one = loadKubeContext({ kubeconfig: p, context: name });
      assert.deepEqual(
        [got.name, got.server, got.namespace, got.kc.getCurrentUser()?.token],
        [one.name, one.server, one.namespace, one.kc.getCurrentUser()?.token],
      );
      assert.deepEqual(
        got.kc.getContexts().map((c) => c.name),
        [name],
        'each its own KubeConfig',
      );
    }
    assert.ok(isConfigError(/unknown context "nope"/)(missing));
    assert.throws(() => loadKubeContexts({ kubeconfig: join(t.dir, 'absent') }, ['ctx-a']), isConfigError(/file not found/));
  });

  it('merges KUBECONFIG files like kubectl: first definition and first current-context win', () => {
    const p1 = file('k1', kubeconfigYaml('https://first.example', { token: 't1' }));
    const p2 = file('k2', two.replace('current-context: ctx-a', 'current-context: ctx-b'));
    const ctx = loadKubeContext({ env: { KUBECONFIG: `${p1}:${join(t.dir, 'absent')}:${p2}` } });
    assert.equal(ctx.name, 'ctx');
    assert.equal(ctx.server, 'https://first.example');
    assert.equal(loadKubeContext({ env: { KUBECONFIG: `${p1}:${p2}` }, context: 'ctx-b' }).server, 'https://b.example:6443');
  });

  it('says clearly when the file is missing', () => {
    assert.throws(() => loadKubeContext({ kubeconfig: join(t.dir, 'nope') }), isConfigError(/nope: file not found/));
    assert.throws(() => loadKubeContext({ env: { KUBECONFIG: join(t.dir, 'nope2') } }), isConfigError(/KUBECONFIG names no existing file/));
    assert.throws(() => loadKubeContext({ env: {}, homeDir: t.dir }), isConfigError(/no kubeconfig: .*\.kube\/config does not exist/));
  });

  it('says clearly when the YAML is broken or the file is not a kubeconfig', () => {
    assert.throws(() => loadKubeContext({ kubeconfig: file('broken', 'clusters: [\n  - name: x\n  bad') }), isConfigError(/broken: invalid YAML/));
    assert.throws(() => loadKubeContext({ kubeconfig: file('empty', '') }), isConfigError(/empty: (invalid kubeconfig|no clusters or contexts)/));
    assert.throws(
      () => loadKubeContext({ kubeconfig: file('noserver', 'clusters:\n- name: c\n  cluster: {}\n') }),
      isConfigError(/invalid kubeconfig: clusters\[0\]\.cluster\.server is missing/),
    );
  });

  it('says clearly when the context is unknown or there is no current context', () => {
    const p = file('two2', two);
    assert.throws(() => loadKubeContext({ kubeconfig: p, context: 'prod' }), isConfigError(/unknown context "prod" \(known: ctx-a, ctx-b\)/));
    const none = file('nocurrent', two.replace('current-context: ctx-a', ''));
    assert.throws(() => loadKubeContext({ kubeconfig: none }), isConfigError(/no current-context set; choose one with --context \(known: ctx-a, ctx-b\)/));
    const dangling = file('dangling', two.replace('cluster: b, user: ub', 'cluster: zz, user: ub'));
    assert.throws(() => loadKubeContext({ kubeconfig: dangling, context: 'ctx-b' }), isConfigError(/refers to cluster "zz", which is not defined/));
  });

  it('never puts a credential in an error message', () => {
    const p = file('secret', two);
    try {
      loadKubeContext({ kubeconfig: p, context: 'missing' });
      assert.fail('should throw');
    } catch (e) {
      assert.doesNotMatch((e as Error).message, /token-a|token-b/);
    }
  });
});
