// Reading the Kubernetes extension's published API (its API broker and configuration component) and
// the rules for what KubeLoop follows, without VS Code. The brokers here have the contract's shape
// (vscode-kubernetes-tools src/api/contract: get(component, version) -> { available, api | reason }).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { configurationApi, followed, hostPath, kubernetesSettings, type FollowAnswer, type KubeconfigPath } from '../../../src/app/ecosystem/kubernetesApi';
import { FollowConsent } from '../../../src/app/ecosystem/followConsent';

/** A minimal event emitter with vscode.Event's calling convention. */
function emitter<T>() {
  const listeners = new Set<(e: T) => unknown>();
  return {
    event: (l: (e: T) => unknown) => {
      listeners.add(l);
      return { dispose: () => listeners.delete(l) };
    },
    fire: (e: T) => listeners.forEach((l) => l(e)),
    get size() {
      return listeners.size;
    },
  };
}

function broker(versions: Record<string, unknown>) {
  const asked: string[] = [];
  return {
    asked,
    apiVersion: '1.0',
    get(component: string, version: string) {
      asked.push(`${component}/${version}`);
      if (component !== 'configuration' || !(version in versions)) return { available: false, reason: 'version-unknown' };
      return { available: true, api: versions[version] };
    },
  };
}

describe("the Kubernetes extension's configuration API", () => {
  it('uses v1_1 when offered: the kubeconfig path and the kubeconfig, context and namespace events', () => {
    const ctx = emitter<string | null>();
    const ns = emitter<string>();
    const path = emitter<KubeconfigPath>();
    const v1_1 = {
      getKubeconfigPath: () => ({ pathType: 'host', hostPath: '/home/u/.kube/other' }),
      onDidChangeKubeconfigPath: path.event,
      onDidChangeContext: ctx.event,
      onDidChangeNamespace: ns.event,
    };
    const b = broker({ v1: { getKubeconfigPath: () => ({ pathType: 'host', hostPath: '/wrong' }) }, v1_1 });
    const api = configurationApi(b)!;
    assert.equal(api.version, 'v1_1');
    assert.deepEqual(b.asked, ['configuration/v1_1']);
    assert.equal(hostPath(api.getKubeconfigPath()), '/home/u/.kube/other');
    const seen: unknown[] = [];
    const sub = api.onDidChangeContext!((c) => seen.push(c));
    api.onDidChangeNamespace!((n) => seen.push(`ns:${n}`));
    ctx.fire('beta');
    ns.fire('team-a');
    sub.dispose();
    ctx.fire('gamma');
    assert.deepEqual(seen, ['beta', 'ns:team-a']);
    assert.equal(ctx.size, 0, 'disposing the subscription removes the listener from the extension');
  });

  it('falls back to v1 (the path only) on an older extension, and gives nothing for "unavailable" or a foreign value', () => {
    const v1 = configurationApi(broker({ v1: { getKubeconfigPath: () => ({ pathType: 'host', hostPath: '/k' }) } }))!;
    assert.equal(v1.version, 'v1');
    assert.equal(v1.onDidChangeContext, undefined);
    assert.equal(hostPath(v1.getKubeconfigPath()), '/k');
    assert.equal(configurationApi(broker({})), undefined);
    for (const foreign of [
      undefined,
      null,
      42,
      'x',
      {},
      { get: 1 },
      {
        get: () => {
          throw new Error('boom');
        },
      },
      { get: () => ({ available: true, api: { getKubeconfigPath: 'no' } }) },
    ]) {
      assert.equal(configurationApi(foreign), undefined, String(foreign));
    }
  });

  it('a getKubeconfigPath that throws reads as no path; a WSL path is not one this extension host can open', () => {
    const api = configurationApi(
      broker({
        v1_1: {
          getKubeconfigPath: () => {
            throw new Error('no kubeconfig');
          },
        },
      }),
    )!;
    assert.equal(api.getKubeconfigPath(), undefined);
    assert.equal(hostPath({ pathType: 'wsl', wslPath: '/home/u/.kube/config' }), undefined);
    assert.equal(hostPath({ pathType: 'host', hostPath: '  ' }), undefined);
    assert.equal(hostPath(undefined), undefined);
  });
});

describe('what KubeLoop follows', () => {
  const settings = kubernetesSettings({ 'vs-kubernetes.kubeconfig': ' /home/u/.kube/team ', 'vs-kubernetes.knownKubeconfigs': ['/a', '/a', 7, '', '/b'] });

  it('reads the vs-kubernetes section as that extension does', () => {
    assert.deepEqual(settings, { kubeconfig: '/home/u/.kube/team', known: ['/a', '/b'] });
    assert.deepEqual(kubernetesSettings(undefined), { known: [] });
    assert.deepEqual(kubernetesSettings({ 'vs-kubernetes.kubeconfig': 3 }), { known: [] });
  });

  it("the API's path first (once it is the user's own), else vs-kubernetes.kubeconfig; the context it switched to", () => {
    const base = { follow: true, kubeloopKubeconfig: '', kubeloopContext: '', settings, answers: { '/api/path': 'follow' as const } };
    assert.deepEqual(followed({ ...base, apiPath: '/api/path', context: 'beta' }), {
      kubeconfig: '/api/path',
      from: 'the Kubernetes extension',
      context: 'beta',
    });
    assert.deepEqual(followed(base), { kubeconfig: '/home/u/.kube/team', from: 'vs-kubernetes.kubeconfig' });
    assert.deepEqual(followed({ ...base, settings: { known: ['/a', '/b'] } }), {}, 'knownKubeconfigs alone chooses no file');
  });

  it("KubeLoop's own settings win, and following off follows nothing", () => {
    const base = { follow: true, kubeloopKubeconfig: '', kubeloopContext: '', settings, apiPath: '/a', context: 'beta' };
    assert.deepEqual(followed({ ...base, kubeloopKubeconfig: '/mine' }), { context: 'beta' });
    assert.deepEqual(followed({ ...base, kubeloopContext: 'alpha' }), { kubeconfig: '/a', from: 'the Kubernetes extension' });
    assert.deepEqual(followed({ ...base, follow: false }), {});
  });

  it("an API path the user's own setup does not name waits for their word; an untrusted window never follows it", () => {
    const base = { follow: true, kubeloopKubeconfig: '', kubeloopContext: '', settings, defaults: ['/home/u/.kube/config'] };
    // a workspace's vs-kubernetes.kubeconfig reaches KubeLoop only through the API's path
    assert.deepEqual(followed({ ...base, apiPath: '/repo/evil' }), {
      unconfirmed: '/repo/evil',
      kubeconfig: '/home/u/.kube/team',
      from: 'vs-kubernetes.kubeconfig',
    });
    assert.deepEqual(followed({ ...base, settings: { known: [] }, apiPath: '/repo/evil' }), { unconfirmed: '/repo/evil' });
    assert.deepEqual(followed({ ...base, apiPath: '/repo/evil', answers: { '/repo/evil': 'follow' } }), {
      kubeconfig: '/repo/evil',
      from: 'the Kubernetes extension',
    });
    assert.deepEqual(followed({ ...base, apiPath: '/repo/evil', answers: { '/repo/evil': 'refuse' } }), {
      kubeconfig: '/home/u/.kube/team',
      from: 'vs-kubernetes.kubeconfig',
    });
    // the user's own: their vs-kubernetes.kubeconfig, a known kubeconfig, a default file (compared resolved)
    for (const own of ['/home/u/.kube/team', '/b', '/home/u/.kube/../.kube/config'])
      assert.deepEqual(followed({ ...base, apiPath: own }), { kubeconfig: own, from: 'the Kubernetes extension' }, own);
    // untrusted: the API's path is not followed, nor asked about, even when answered or the user's own
    for (const apiPath of ['/repo/evil', '/b'])
      assert.deepEqual(followed({ ...base, apiPath, trusted: false, answers: { '/repo/evil': 'follow' } }), {
        kubeconfig: '/home/u/.kube/team',
        from: 'vs-kubernetes.kubeconfig',
      });
  });

  it('asks once per path and remembers the answer; a dismissed question is not asked again this session', async () => {
    const saved = new Map<string, unknown>();
    const store = { get: (k: string) => saved.get(k), update: async (k: string, v: unknown) => void saved.set(k, v) };
    const asked: string[] = [];
    const replies: (FollowAnswer | undefined)[] = ['follow', undefined, 'refuse'];
    const consent = new FollowConsent(store, async (p) => (asked.push(p), replies.shift()));
    assert.equal(await consent.confirm('/repo/a'), true);
    assert.equal(await consent.confirm('/repo/../repo/a'), false, 'answered: not asked again');
    assert.equal(await consent.confirm('/repo/b'), false, 'dismissed');
    assert.equal(await consent.confirm('/repo/b'), false, 'not asked again this session');
    assert.deepEqual(consent.answers(), { '/repo/a': 'follow' });
    // a later session (a new FollowConsent over the same store) asks about what was only dismissed
    const later = new FollowConsent(store, async (p) => (asked.push(p), replies.shift()));
    assert.equal(await later.confirm('/repo/a'), false);
    assert.equal(await later.confirm('/repo/b'), true);
    assert.deepEqual(later.answers(), { '/repo/a': 'follow', '/repo/b': 'refuse' });
    assert.deepEqual(asked, ['/repo/a', '/repo/b', '/repo/b']);
    saved.set('kubeloop.kubernetesExtension.kubeconfigAnswers', { '/x': 'yes', '/y': 7, '/z': 'refuse' });
    assert.deepEqual(later.answers(), { '/z': 'refuse' }, 'what is not an answer is ignored');
  });
});
