/**
 * How a real kube-apiserver (v1.36) answers, written once as checks that run against any target:
 * test/apiserver/parity.test.ts runs them against the real control plane (so every fact here is
 * measured, not remembered), test/integration/demo-realserver.test.ts against the demo cluster
 * (so the demo cannot drift from it). Each fact is a place where the demo answered differently.
 */
import assert from 'node:assert/strict';

export interface Answer {
  status: number;
  body: any; // parsed JSON (or text); shape checked by the facts
  /** The raw body (a watch's newline-delimited events). */
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface FactTarget {
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** Creates a namespaced CRD group/v1 Kind (plural) and resolves once its objects can be created. */
  createCrd(group: string, kind: string, plural: string): Promise<void>;
}

/** The 410 message for a continue token whose snapshot was compacted (etcd3 inconsistentContinue). */
export const INCONSISTENT_CONTINUE_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** A target's `request` over plain fetch (the demo cluster over HTTP): JSON bodies parsed where they are JSON. */
export function fetchRequest(base: () => string): FactTarget['request'] {
  return async (method, path, body, headers = {}) => {
    const h: Record<string, string> = { Accept: 'application/json', ...headers };
    if (body !== undefined) h['Content-Type'] ??= 'application/json';
    const r = await fetch(`${base()}${path}`, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // a watch stream, or not JSON
    }
    const out: Record<string, string> = {};
    r.headers.forEach((v, k) => (out[k] = v));
    return { status: r.status, body: parsed, text, headers: out };
  };
}

const CRD = { group: 'facts.kubeloop.io', kind: 'Sample', plural: 'samples' };
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

async function must(t: FactTarget, method: string, path: string, body?: unknown, headers?: Record<string, string>, want = [200, 201]): Promise<any> {
  const r = await t.request(method, path, body, headers);
  assert.ok(want.includes(r.status), `${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

const pod = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }], ...extra },
});

export interface Fact {
  name: string;
  run(t: FactTarget, ns: string): Promise<void>;
}

export const FACTS: Fact[] = [
  {
    name: 'pod defaults: terminationMessagePath /dev/termination-log, probe defaults, port protocol TCP',
    async run(t, ns) {
      const p = await must(
        t,
        'POST',
        `/api/v1/namespaces/${ns}/pods`,
        pod('defaults', {
          containers: [
            {
              name: 'c',
              image: 'registry.k8s.io/e2e-test-images/agnhost:2.47',
              ports: [{ containerPort: 8080 }],
              livenessProbe: { httpGet: { path: '/healthz', port: 8081 }, periodSeconds: 5, failureThreshold: 2 },
              readinessProbe: { tcpSocket: { port: 8080 } },
            },
          ],
        }),
      );
      const c = p.spec.containers[0];
      assert.equal(c.terminationMessagePath, '/dev/termination-log');
      assert.equal(c.terminationMessagePolicy, 'File');
      assert.deepEqual(c.ports, [{ containerPort: 8080, protocol: 'TCP' }]);
      assert.deepEqual(c.livenessProbe, {
        httpGet: { path: '/healthz', port: 8081, scheme: 'HTTP' },
        timeoutSeconds: 1,
        periodSeconds: 5,
        successThreshold: 1,
        failureThreshold: 2,
      });
      assert.deepEqual(c.readinessProbe, { tcpSocket: { port: 8080 }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    },
  },
  {
    name: 'metadata.generation only on types whose strategy keeps one; spec changes and graceful deletion bump it',
    async run(t, ns) {
      const gen = async (path: string, body: Record<string, unknown>) => (await must(t, 'POST', path, body)).metadata.generation as number | undefined;
      assert.equal(await gen(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'g' }, data: { a: '1' } }), undefined, 'configmaps');
      assert.equal(await gen(`/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 'g' }, stringData: { a: '1' } }), undefined, 'secrets');
      assert.equal(await gen(`/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'g' } }), undefined, 'serviceaccounts');
      assert.equal(
        await gen(`/api/v1/namespaces/${ns}/services`, { metadata: { name: 'g' }, spec: { clusterIP: 'None', ports: [{ port: 80 }] } }),
        undefined,
        'services',
      );
      assert.equal(await gen(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, { metadata: { name: 'g' }, rules: [] }), undefined, 'roles');
      assert.equal(await gen(`/api/v1/namespaces/${ns}/pods`, pod('g')), 1, 'pods');
      assert.equal(
        await gen(`/apis/networking.k8s.io/v1/namespaces/${ns}/networkpolicies`, { metadata: { name: 'g' }, spec: { podSelector: {} } }),
        1,
        'networkpolicies',
      );
      assert.equal(
        await gen(`/apis/${CRD.group}/v1/namespaces/${ns}/${CRD.plural}`, {
          apiVersion: `${CRD.group}/v1`,
          kind: CRD.kind,
          metadata: { name: 'g' },
          spec: { a: 1 },
        }),
        1,
        'custom resources',
      );
      const dep = {
        metadata: { name: 'g' },
        spec: { replicas: 1, selector: { matchLabels: { app: 'g' } }, template: { metadata: { labels: { app: 'g' } }, spec: pod('x').spec } },
      };
      assert.equal(await gen(`/apis/apps/v1/namespaces/${ns}/deployments`, dep), 1, 'deployments');
      const scaled = await must(t, 'PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/g`, { spec: { replicas: 3 } }, MERGE);
      assert.equal(scaled.metadata.generation, 2, 'a spec change bumps it');
      const labelled = await must(t, 'PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/g`, { metadata: { labels: { x: 'y' } } }, MERGE);
      assert.equal(labelled.metadata.generation, 2, 'a metadata change does not');
      const cm = await must(t, 'PATCH', `/api/v1/namespaces/${ns}/configmaps/g`, { data: { a: '2' } }, MERGE);
      assert.equal(cm.metadata.generation, undefined);
    },
  },
  {
    name: 'a bound pod is deleted gracefully (no kubelet: it stays Terminating until a grace-0 delete); an unbound one at once',
    async run(t, ns) {
      const bound = await must(t, 'POST', `/api/v1/namespaces/${ns}/pods`, pod('bound', { nodeName: 'no-kubelet-here' }));
      const marked = await must(t, 'DELETE', `/api/v1/namespaces/${ns}/pods/bound`, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 1 });
      assert.ok(marked.metadata.deletionTimestamp, 'the answer is the pod, marked');
      assert.equal(marked.metadata.deletionGracePeriodSeconds, 1);
      assert.equal(marked.metadata.generation, 2, 'the start of a graceful deletion bumps the generation');
      const still = await t.request('GET', `/api/v1/namespaces/${ns}/pods/bound`);
      assert.equal(still.status, 200, 'still there: only its kubelet may remove it');
      assert.equal(still.body.metadata.deletionTimestamp, marked.metadata.deletionTimestamp);
      await must(t, 'DELETE', `/api/v1/namespaces/${ns}/pods/bound`, {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        gracePeriodSeconds: 0,
        preconditions: { uid: bound.metadata.uid },
      });
      assert.equal((await t.request('GET', `/api/v1/namespaces/${ns}/pods/bound`)).status, 404);
      await must(t, 'POST', `/api/v1/namespaces/${ns}/pods`, pod('unbound'));
      await must(t, 'DELETE', `/api/v1/namespaces/${ns}/pods/unbound`);
      assert.equal((await t.request('GET', `/api/v1/namespaces/${ns}/pods/unbound`)).status, 404, 'an unscheduled pod goes at once');
    },
  },
  {
    name: 'DeleteOptions come from the query when the body is empty (only then): ?gracePeriodSeconds=0 removes a bound pod at once; a bad value is a 400',
    async run(t, ns) {
      await must(t, 'POST', `/api/v1/namespaces/${ns}/pods`, pod('q-zero', { nodeName: 'no-kubelet-here' }));
      await must(t, 'DELETE', `/api/v1/namespaces/${ns}/pods/q-zero?gracePeriodSeconds=0`);
      assert.equal((await t.request('GET', `/api/v1/namespaces/${ns}/pods/q-zero`)).status, 404, 'grace 0 from the query: gone at once');
      await must(t, 'POST', `/api/v1/namespaces/${ns}/pods`, pod('q-body', { nodeName: 'no-kubelet-here' }));
      const marked = await must(t, 'DELETE', `/api/v1/namespaces/${ns}/pods/q-body?gracePeriodSeconds=0`, {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        gracePeriodSeconds: 7,
      });
      assert.equal(marked.metadata.deletionGracePeriodSeconds, 7, 'with a body, the query is not read');
      await must(t, 'DELETE', `/api/v1/namespaces/${ns}/pods/q-body`, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 });
      await must(t, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'q-bad' } });
      const bad = await t.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/q-bad?gracePeriodSeconds=soon`);
      assert.equal(bad.status, 400, JSON.stringify(bad.body));
      assert.equal(bad.body.reason, 'BadRequest');
      assert.equal((await t.request('GET', `/api/v1/namespaces/${ns}/configmaps/q-bad`)).status, 200, 'a refused delete deletes nothing');
    },
  },
  {
    name: 'a list at resourceVersion "0" comes whole from the watch cache: its limit is ignored (no continue); without it the list pages',
    async run(t, ns) {
      for (const name of ['rv0-a', 'rv0-b', 'rv0-c'])
        await must(t, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name, labels: { rv0: 'x' } } });
      const whole = await must(t, 'GET', `/api/v1/namespaces/${ns}/configmaps?labelSelector=rv0%3Dx&limit=1&resourceVersion=0`);
      assert.deepEqual(whole.items.map((o: any) => o.metadata.name).sort(), ['rv0-a', 'rv0-b', 'rv0-c']);
      assert.equal(whole.metadata.continue, undefined);
      const paged = await must(t, 'GET', `/api/v1/namespaces/${ns}/configmaps?labelSelector=rv0%3Dx&limit=1`);
      assert.equal(paged.items.length, 1);
      assert.ok(paged.metadata.continue, 'a continue token');
      const wholeMeta = await must(t, 'GET', `/api/v1/namespaces/${ns}/configmaps?labelSelector=rv0%3Dx&limit=1&resourceVersion=0`, undefined, {
        Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
      });
      assert.equal(wholeMeta.items.length, 3, 'metadata-only too');
    },
  },
  {
    name: 'list items of built-in types carry no apiVersion and kind (custom resources do); get and watch events do',
    async run(t, ns) {
      for (const name of ['li-a', 'li-b']) await must(t, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name, labels: { li: 'x' } } });
      await must(t, 'POST', `/apis/${CRD.group}/v1/namespaces/${ns}/${CRD.plural}`, {
        apiVersion: `${CRD.group}/v1`,
        kind: CRD.kind,
        metadata: { name: 'li', labels: { li: 'x' } },
      });
      const list = await must(t, 'GET', `/api/v1/namespaces/${ns}/configmaps?labelSelector=li%3Dx`);
      assert.deepEqual([list.kind, list.apiVersion], ['ConfigMapList', 'v1']);
      assert.equal(list.items.length, 2);
      for (const o of list.items) assert.deepEqual([o.kind, o.apiVersion], [undefined, undefined]);
      const one = await must(t, 'GET', `/api/v1/namespaces/${ns}/configmaps/li-a`);
      assert.deepEqual([one.kind, one.apiVersion], ['ConfigMap', 'v1']);
      const custom = await must(t, 'GET', `/apis/${CRD.group}/v1/namespaces/${ns}/${CRD.plural}?labelSelector=li%3Dx`);
      assert.deepEqual([custom.kind, custom.items[0].kind, custom.items[0].apiVersion], [`${CRD.kind}List`, CRD.kind, `${CRD.group}/v1`]);
      const meta = await must(t, 'GET', `/api/v1/namespaces/${ns}/configmaps?labelSelector=li%3Dx`, undefined, {
        Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
      });
      assert.deepEqual([meta.items[0].kind, meta.items[0].apiVersion], ['PartialObjectMetadata', 'meta.k8s.io/v1']);
      const w = await t.request('GET', `/api/v1/namespaces/${ns}/configmaps?watch=1&labelSelector=li%3Dx&timeoutSeconds=1`);
      const events = w.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.deepEqual(
        events.map((e) => [e.type, e.object.kind, e.object.apiVersion]),
        [
          ['ADDED', 'ConfigMap', 'v1'],
          ['ADDED', 'ConfigMap', 'v1'],
        ],
      );
    },
  },
  {
    name: 'a watch from "now" that allows bookmarks ends its initial ADDED events with the initial-events-end BOOKMARK',
    async run(t, ns) {
      for (const name of ['wb-a', 'wb-b']) await must(t, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name, labels: { wb: 'x' } } });
      const lines = async (q: string) => {
        const r = await t.request('GET', `/api/v1/namespaces/${ns}/configmaps?watch=1&labelSelector=wb%3Dx&timeoutSeconds=1${q}`);
        assert.equal(r.status, 200);
        return r.text
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
      };
      const withBookmarks = await lines('&allowWatchBookmarks=true');
      assert.deepEqual(
        withBookmarks.map((e) => e.type),
        ['ADDED', 'ADDED', 'BOOKMARK'],
      );
      const b = withBookmarks[2].object;
      assert.deepEqual([b.kind, b.apiVersion, b.metadata.annotations], ['ConfigMap', 'v1', { 'k8s.io/initial-events-end': 'true' }]);
      assert.match(b.metadata.resourceVersion, /^\d+$/);
      assert.deepEqual(
        (await lines('&resourceVersion=0&allowWatchBookmarks=true')).map((e) => e.type),
        ['ADDED', 'ADDED', 'BOOKMARK'],
      );
      assert.deepEqual(
        (await lines('')).map((e) => e.type),
        ['ADDED', 'ADDED'],
        'no bookmark unless allowed',
      );
    },
  },
  {
    name: 'Go zero values: a pod status and an Event written without them read back with them',
    async run(t, ns) {
      await must(t, 'POST', `/api/v1/namespaces/${ns}/pods`, pod('zero'));
      const st = await must(
        t,
        'PATCH',
        `/api/v1/namespaces/${ns}/pods/zero/status`,
        {
          status: {
            conditions: [{ type: 'Ready', status: 'False' }],
            containerStatuses: [
              { name: 'c', state: { running: {} } },
              { name: 'd', lastState: { terminated: { exitCode: 2 } } },
            ],
          },
        },
        MERGE,
      );
      assert.deepEqual(st.status.conditions, [{ type: 'Ready', status: 'False', lastProbeTime: null, lastTransitionTime: null }]);
      assert.deepEqual(st.status.containerStatuses, [
        { name: 'c', state: { running: { startedAt: null } }, lastState: {}, ready: false, restartCount: 0, image: '', imageID: '' },
        {
          name: 'd',
          state: {},
          lastState: { terminated: { exitCode: 2, startedAt: null, finishedAt: null } },
          ready: false,
          restartCount: 0,
          image: '',
          imageID: '',
        },
      ]);
      const ev = await must(t, 'POST', `/api/v1/namespaces/${ns}/events`, {
        metadata: { name: 'zero.1' },
        involvedObject: { kind: 'Pod', namespace: ns, name: 'zero' },
        reason: 'Tested',
        message: 'm',
      });
      assert.deepEqual(
        [ev.source, ev.firstTimestamp, ev.lastTimestamp, ev.eventTime, ev.reportingComponent, ev.reportingInstance, ev.count, ev.metadata.generation],
        [{}, null, null, null, '', '', undefined, undefined],
      );
    },
  },
  {
    name: 'Table and PartialObjectMetadataList answers are labelled plain application/json',
    async run(t, ns) {
      for (const as of ['Table', 'PartialObjectMetadataList']) {
        const r = await t.request('GET', `/api/v1/namespaces/${ns}/configmaps`, undefined, {
          Accept: `application/json;as=${as};g=meta.k8s.io;v=v1,application/json`,
        });
        assert.equal(r.status, 200);
        assert.equal(r.body.kind, as);
        assert.equal(String(r.headers['content-type']).split(';')[0], 'application/json');
        assert.equal(r.headers['content-type'], 'application/json', as);
      }
    },
  },
];

/** Creates the namespace and the CRD every fact may use. */
export async function prepareFacts(t: FactTarget, ns: string): Promise<void> {
  await must(t, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await t.createCrd(CRD.group, CRD.kind, CRD.plural);
}
