/**
 * Token rotation under a running sync loop, on a real kube-apiserver that accepts the new token and
 * refuses the old one. The loop's user is a ServiceAccount whose token comes from the TokenRequest
 * API bound to a Secret (as a projected service-account token is bound to its pod): deleting that
 * Secret revokes the token on the server. The kubeconfig names the token by `token-file`.
 *
 * The file is rewritten with a token bound to a second Secret, the first Secret is deleted (the old
 * token now answers 401), and the link is cut so that every watch must be opened again. Guarantees
 * pinned: the loop reconnects with the new token by itself (no restart), sees what changed meanwhile,
 * and meets at most one 401 per request it reopens (no 401 storm); after that, none.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Api } from '../../lab/api';
import { startControlPlane, type ControlPlane } from '../../lab/controlplane';
import { startCutRelay, type CutRelay } from '../support/cutRelay';
import { eventually } from '../support/eventually';
import { startSync, type RunningSync } from '../support/syncLoop';

const NS = 'rotation';
const SA = 'watcher';

const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: NS },
  spec: { nodeName: 'nowhere', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
});

describe('token rotation under a running sync loop (real kube-apiserver, bound service-account tokens)', () => {
  let cp: ControlPlane;
  let admin: Api;
  let relay: CutRelay;
  let loop: RunningSync;
  let tokenFile: string;

  /** A token of the ServiceAccount bound to Secret `secret` (revoked when the Secret is deleted). */
  async function boundToken(secret: string): Promise<string> {
    const s = await admin.must('POST', `/api/v1/namespaces/${NS}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: secret } }, [201]);
    const tr = await admin.must(
      'POST',
      `/api/v1/namespaces/${NS}/serviceaccounts/${SA}/token`,
      {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: 3600, boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name: secret, uid: s.metadata.uid } },
      },
      [201],
    );
    return tr.status.token as string;
  }
  /** What the server answers a token: 200 while it is valid, 401 once revoked. */
  const answers = async (token: string) => (await new Api(cp.server, cp.caFile, token).request('GET', `/api/v1/namespaces/${NS}/pods?limit=1`)).status;
  const unauthorized = () => loop.lines.filter((l) => /\b401\b|Unauthorized/.test(l));
  const holds = (name: string) => [...loop.sync.desiredObjects()].some((d) => d.key === `${NS}/${name}`);

  before(async () => {
    cp = await startControlPlane();
    admin = Api.admin(cp);
    await admin.must('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, [201]);
    await admin.must('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA } }, [201]);
    await admin.must(
      'POST',
      `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`,
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'read' },
        rules: [{ apiGroups: [''], resources: ['pods', 'events'], verbs: ['get', 'list', 'watch'] }],
      },
      [201],
    );
    await admin.must(
      'POST',
      `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`,
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'read' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read' },
        subjects: [{ kind: 'ServiceAccount', name: SA, namespace: NS }],
      },
      [201],
    );
    await admin.must('POST', `/api/v1/namespaces/${NS}/pods`, pod('before'), [201]);

    const server = new URL(cp.server);
    relay = await startCutRelay({ host: server.hostname, port: Number(server.port) });
    tokenFile = join(cp.dir, 'sa-token');
    writeFileSync(tokenFile, await boundToken('bound-1'), { mode: 0o600 });
    const kubeconfig = join(cp.dir, 'kubeconfig-rotation');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        `- name: c\n  cluster:\n    server: https://${server.hostname}:${relay.port}\n    certificate-authority: ${JSON.stringify(cp.caFile)}`,
        'users:',
        `- name: sa\n  user:\n    token-file: ${JSON.stringify(tokenFile)}`,
        'contexts:',
        `- name: sa\n  context:\n    cluster: c\n    user: sa\n    namespace: ${NS}`,
        'current-context: sa',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    loop = await startSync(kubeconfig, { namespaces: [NS], readyTimeoutMs: 60_000 });
    await eventually(() => holds('before'), { description: 'the first pod in the loop', timeoutMs: 30_000 });
    assert.deepEqual(unauthorized(), [], 'no 401 before the rotation');
  });
  after(async () => {
    await loop?.stop();
    await relay?.close();
    admin?.close();
    await cp?.stop();
  });

  it('the file rotated and the old token revoked: the loop reconnects with the new token, sees what changed, one 401 at most per reopened request', async (t) => {
    const oldToken = (await import('node:fs')).readFileSync(tokenFile, 'utf8');
    const newToken = await boundToken('bound-2');
    writeFileSync(tokenFile, newToken, { mode: 0o600 });
    await admin.must('DELETE', `/api/v1/namespaces/${NS}/secrets/bound-1`, undefined, [200]);
    // The server's token cache may keep a good answer for a few seconds; wait until it refuses.
    await eventually(async () => (await answers(oldToken)) === 401, { description: 'the server refuses the old token', timeoutMs: 60_000 });
    assert.equal(await answers(newToken), 200, 'and accepts the new one');

    // Every connection dropped: the watches must be opened again, with whatever token the loop holds.
    relay.cut('reset');
    await admin.must('POST', `/api/v1/namespaces/${NS}/pods`, pod('while-cut'), [201]);
    await eventually(() => loop.sync.running.some((r) => r.reflector.state !== 'watching' || r.reflector.stats.errors > 0), {
      description: 'a reflector noticed the cut',
      timeoutMs: 30_000,
    });
    const at = performance.now();
    relay.restore();
    await eventually(() => holds('while-cut') && loop.sync.allWatching(), {
      description: 'the loop back, with the pod created while cut',
      timeoutMs: 60_000,
    });
    t.diagnostic(`back ${(performance.now() - at).toFixed(0)} ms after the link returned; 401 lines: ${unauthorized().length}`);
    const reflectors = loop.sync.running.length;
    assert.ok(unauthorized().length <= reflectors, `at most one 401 per reopened request (${reflectors} reflectors):\n${unauthorized().join('\n')}`);

    // And from then on the new token serves: a later pod arrives with no further 401.
    const seen = unauthorized().length;
    await admin.must('POST', `/api/v1/namespaces/${NS}/pods`, pod('after'), [201]);
    await eventually(() => holds('after'), { description: 'a pod created after the rotation', timeoutMs: 30_000 });
    assert.equal(unauthorized().length, seen, 'no 401 after the loop took the new token');
  });
});
